package incidents

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"inflight/internal/near"
)

// collectAnchors records every &name, refusing a name defined twice (an
// alias must mean one thing). Depth is bounded by scan.
func (r *reader) collectAnchors(n ast.Node, depth int) {
	if n == nil || depth > 2*MaxDepth+4 {
		return
	}
	switch n := n.(type) {
	case *ast.AnchorNode:
		name := n.Name.GetToken().Value
		if _, dup := r.anchors[name]; dup {
			r.addAt(n.GetToken().Position, "anchor &%s is defined twice", name)
		} else {
			r.anchors[name] = n
		}
		r.collectAnchors(n.Value, depth+1)
	case *ast.MappingNode:
		for _, v := range n.Values {
			r.collectAnchors(v, depth+1)
		}
	case *ast.MappingValueNode:
		r.collectAnchors(n.Key, depth+1)
		r.collectAnchors(n.Value, depth+1)
	case *ast.SequenceNode:
		for _, v := range n.Values {
			r.collectAnchors(v, depth+1)
		}
	case *ast.TagNode:
		r.collectAnchors(n.Value, depth+1)
	case *ast.MappingKeyNode:
		r.collectAnchors(n.Value, depth+1)
	}
}

// resolve looks through anchors and aliases to the value they stand for,
// counting each alias's expansion against MaxTokens.
func (r *reader) resolve(n ast.Node) (ast.Node, bool) {
	for hops := 0; n != nil && hops <= MaxAliases; hops++ {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.AliasNode:
			a, ok := r.anchors[x.Value.GetToken().Value]
			if !ok || a.GetToken().Position.Offset > x.GetToken().Position.Offset {
				r.addAt(x.GetToken().Position, "alias *%s: no anchor &%s before it", x.Value.GetToken().Value, x.Value.GetToken().Value)
				return nil, false
			}
			n = a.Value
		default:
			return n, true
		}
	}
	return n, n != nil
}

// kindOf describes a YAML value in the incident's terms.
func kindOf(n ast.Node) string {
	switch x := n.(type) {
	case nil, *ast.NullNode:
		return "nothing (null)"
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a map"
	case *ast.StringNode, *ast.LiteralNode:
		s := scalarText(x)
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return fmt.Sprintf("text %q", s)
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return "something else"
}

// scalarText is a scalar as written: a number keeps its digits ("0.050"
// stays as written), a string its value.
func scalarText(n ast.Node) string {
	switch x := n.(type) {
	case *ast.StringNode:
		return x.Value
	case *ast.LiteralNode:
		return x.Value.Value
	}
	return n.GetToken().Value
}

func isScalar(n ast.Node) bool {
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NanNode, *ast.InfinityNode:
		return true
	}
	return false
}

// decode reads node into v (a field of file), reporting a value of the
// wrong kind in the incident's terms and carrying on with the rest.
func (r *reader) decode(path string, n ast.Node, v reflect.Value, textTag string, depth int) {
	if r.stopped {
		return
	}
	if r.values++; r.values > MaxTokens {
		r.stopped = true
		r.at(path, "more than %d values once aliases are expanded; an incident needs far fewer", MaxTokens)
		return
	}
	n, ok := r.resolve(n)
	if !ok {
		r.bad[path] = true
		return
	}
	fail := func(want string) {
		pos := (*token.Position)(nil)
		if n != nil && n.GetToken() != nil {
			pos = n.GetToken().Position
		} else if p, ok := r.pos[path]; ok {
			pos = p
		}
		if strings.HasPrefix(want, "!") { // a whole message
			r.addAt(pos, "%s: %s", field(path), want[1:])
		} else {
			r.addAt(pos, "%s: want %s, got %s", field(path), want, kindOf(n))
		}
		r.bad[path] = true
	}
	if depth > 2*MaxDepth {
		fail("a simpler value")
		return
	}
	if v.Type() == pinTableType {
		r.decodePinTable(path, n, v)
		return
	}
	switch v.Kind() {
	case reflect.String:
		if !isScalar(n) {
			fail("text")
			return
		}
		s := scalarText(n)
		if l, ok := n.(*ast.LiteralNode); ok {
			if r.blocks == nil {
				r.blocks = map[string]*ast.LiteralNode{}
			}
			r.blocks[path] = l // a block's problems point into it (publish)
		}
		multiline := textTag == "multiline"
		if c, bad := firstUnprintable(s, multiline); bad {
			what := "a control character"
			if c == '\n' {
				what = "a line break (only story, words, question, explain and description may have several lines)"
				if r.multiline != "" { // another kind of file (DecodeStrict)
					what = "a line break (only " + r.multiline + " may have several lines)"
				}
			}
			r.addAt(n.GetToken().Position, "%s: %s (%s); incident text must be plain, printable text", field(path), what, visible(string(c)))
			r.bad[path] = true
			return
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := n.(*ast.BoolNode)
		if !ok {
			fail("true or false")
			return
		}
		v.SetBool(b.Value)
	case reflect.Int, reflect.Int32, reflect.Uint64:
		r.decodeInt(path, n, v, fail)
	case reflect.Pointer:
		e := reflect.New(v.Type().Elem())
		r.decode(path, n, e.Elem(), textTag, depth)
		if !r.bad[path] {
			v.Set(e)
		}
	case reflect.Slice:
		if v.Type() == entriesType {
			r.decodeEntries(path, n, v, depth)
			return
		}
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			fail("a list")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(seq.Values), len(seq.Values))
		for i, e := range seq.Values {
			p := fmt.Sprintf("%s[%d]", path, i)
			if e != nil && e.GetToken() != nil {
				r.pos[p] = e.GetToken().Position
			}
			r.decode(p, e, s.Index(i), textTag, depth+1)
		}
		v.Set(s)
	case reflect.Struct:
		r.decodeStruct(path, n, v, depth, fail)
	default:
		panic("incidents: no decoder for " + v.Type().String())
	}
}

func (r *reader) decodeInt(path string, n ast.Node, v reflect.Value, fail func(string)) {
	var lo, hi int64
	want := "a whole number"
	switch v.Kind() {
	case reflect.Int:
		lo, hi = -1<<63, 1<<63-1
	case reflect.Int32:
		lo, hi = -1<<31, 1<<31-1
	case reflect.Uint64:
		want = "a whole number from 0 to 18446744073709551615"
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		switch i := x.Value.(type) {
		case int64:
			if v.Kind() == reflect.Uint64 {
				if i < 0 {
					fail(want)
					return
				}
				v.SetUint(uint64(i))
				return
			}
			if i < lo || i > hi {
				fail(fmt.Sprintf("a whole number from %d to %d", lo, hi))
				return
			}
			v.SetInt(i)
			return
		case uint64:
			if v.Kind() == reflect.Uint64 {
				v.SetUint(i)
				return
			}
			if i > uint64(hi) {
				fail(fmt.Sprintf("a whole number from %d to %d", lo, hi))
				return
			}
			v.SetInt(int64(i))
			return
		}
	case *ast.StringNode:
		// digits YAML could not fit in 64 bits arrive as text
		if t := x.GetToken(); t != nil && t.Type == token.StringType && isDigits(strings.TrimLeft(x.Value, "+-")) {
			if v.Kind() == reflect.Uint64 {
				fail(fmt.Sprintf("!%s does not fit: want %s", x.Value, want))
			} else {
				fail(fmt.Sprintf("!%s does not fit: want a whole number from %d to %d", x.Value, lo, hi))
			}
			return
		}
	}
	fail(want)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mapping returns the key/value pairs of a map node.
func mapping(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch x := n.(type) {
	case *ast.MappingNode:
		return x.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{x}, true
	}
	return nil, false
}

// key reads a map key, which must be plain text; seen catches a key given
// twice.
func (r *reader) key(path string, kv *ast.MappingValueNode, seen map[string]*token.Position) (string, *token.Position, bool) {
	kn := ast.Node(kv.Key)
	pos := kn.GetToken().Position
	if _, ok := kn.(*ast.MappingKeyNode); ok || !isScalar(kn) {
		r.addAt(pos, "%s: a key must be a plain name, got %s", field(path), kindOf(kn))
		return "", pos, false
	}
	k := scalarText(kn)
	if !printable(k, false) {
		r.addAt(pos, "%s: key %q has a control character; keys are plain names", field(path), k)
		return "", pos, false
	}
	if first, dup := seen[k]; dup {
		r.addAt(pos, "%s: key %q given twice (first on line %d)", field(path), k, first.Line)
		return "", pos, false
	}
	seen[k] = pos
	return k, pos, true
}

func (r *reader) decodeStruct(path string, n ast.Node, v reflect.Value, depth int, fail func(string)) {
	kvs, ok := mapping(n)
	if !ok {
		fail("a map of keys (" + strings.Join(keysOf(v.Type()), ", ") + ")")
		return
	}
	t := v.Type()
	seen := map[string]*token.Position{}
	for _, kv := range kvs {
		k, pos, ok := r.key(path, kv, seen)
		if !ok {
			continue
		}
		i := fieldIndex(t, k)
		p := path + "." + k
		if i < 0 {
			where := ""
			if path != "$" {
				where = " in " + field(path)
			}
			if near := near.Misspelt(k, keysOf(t)); near != "" {
				r.addAt(pos, "unknown key %q%s; did you mean %q?", k, where, near)
			} else {
				r.addAt(pos, "unknown key %q%s (keys: %s)", k, where, strings.Join(keysOf(t), ", "))
			}
			continue
		}
		r.pos[p] = valuePos(kv, pos)
		if f := v.Field(i); f.Type() == sectionsType {
			var e entries
			r.decode(p, kv.Value, reflect.ValueOf(&e).Elem(), "", depth+1)
			f.Set(reflect.Append(f, reflect.ValueOf(section{Name: k, Entries: e})))
			continue
		}
		r.decode(p, kv.Value, v.Field(i), t.Field(i).Tag.Get("text"), depth+1)
	}
}

// valuePos is where a problem with a key's value is shown: at the value
// when it is on the key's line, at the key when a block follows.
func valuePos(kv *ast.MappingValueNode, keyPos *token.Position) *token.Position {
	if v := kv.Value; v != nil && v.GetToken() != nil && v.GetToken().Position != nil && v.GetToken().Position.Line == keyPos.Line {
		return v.GetToken().Position
	}
	return keyPos
}

// fieldIndex is the field a key decodes into: the one tagged with it, or
// the sections field for a family's knob section.
func fieldIndex(t reflect.Type, key string) int {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Tag.Get("yaml") == key || f.Type == sectionsType && contains(familySections, key) {
			return i
		}
	}
	return -1
}

func keysOf(t reflect.Type) []string {
	var ks []string
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type == sectionsType {
			ks = append(ks, familySections...)
			continue
		}
		ks = append(ks, t.Field(i).Tag.Get("yaml"))
	}
	return ks
}

func (r *reader) decodeEntries(path string, n ast.Node, v reflect.Value, depth int) {
	if _, null := n.(*ast.NullNode); null {
		return // "broker:" with nothing under it: no settings
	}
	kvs, ok := mapping(n)
	if !ok {
		r.addAt(n.GetToken().Position, "%s: want a map of key: value, got %s", field(path), kindOf(n))
		r.bad[path] = true
		return
	}
	var out entries
	seen := map[string]*token.Position{}
	for _, kv := range kvs {
		k, pos, ok := r.key(path, kv, seen)
		if !ok {
			continue
		}
		p := path + "." + k
		r.pos[p] = valuePos(kv, pos)
		r.keys[p] = pos
		if r.values++; r.values > MaxTokens {
			r.stopped = true
			r.addAt(pos, "more than %d values once aliases are expanded; an incident needs far fewer", MaxTokens)
			return
		}
		val, ok := r.resolve(kv.Value)
		if !ok {
			r.bad[p] = true
			continue
		}
		e := entry{Key: k}
		switch x := val.(type) {
		case *ast.NullNode:
			// "key:" with no value: CheckExpectationSyntax and the knobs
			// say what is missing
		case *ast.SequenceNode:
			e.IsList = true
			var parts []string
			for _, el := range x.Values {
				if r.values++; r.values > MaxTokens {
					r.stopped = true
					r.addAt(pos, "more than %d values once aliases are expanded; an incident needs far fewer", MaxTokens)
					return
				}
				el, _ = r.resolve(el)
				if !isScalar(el) {
					r.addAt(pos, "%s: want a value or a list of values, got a list holding %s", field(p), kindOf(el))
					r.bad[p] = true
					break
				}
				parts = append(parts, r.entryText(el))
			}
			e.Value = "[" + strings.Join(parts, ",") + "]"
		default:
			if !isScalar(val) {
				r.addAt(pos, "%s: want a value, got %s", field(p), kindOf(val))
				r.bad[p] = true
				continue
			}
			e.Value = r.entryText(val)
		}
		if r.bad[p] {
			continue
		}
		if !printable(e.Value, false) {
			r.addAt(pos, "%s: a control character (%s); values must be plain, printable text", field(p), visible(e.Value))
			r.bad[p] = true
			continue
		}
		out = append(out, e)
	}
	v.Set(reflect.ValueOf(out))
}

// entryText renders a knob or expectation value as --set would take it. A
// float is rendered from its value ("0.10" → "0.1") as it always was, so
// that a figure compares the same; anything else as written.
func (r *reader) entryText(n ast.Node) string {
	switch x := n.(type) {
	case *ast.FloatNode:
		return strconv.FormatFloat(x.Value, 'g', -1, 64)
	case *ast.IntegerNode:
		return fmt.Sprint(x.Value)
	case *ast.NanNode:
		return "NaN"
	case *ast.InfinityNode:
		return strconv.FormatFloat(x.Value, 'g', -1, 64)
	}
	return scalarText(n)
}
