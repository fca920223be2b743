// Package incidents holds the bundled incident files and reads incident
// files into engine specs, strictly: an unknown or mistyped key is an error
// naming the file, line and column.
package incidents

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"

	"inflight/engine"
)

// Limits on what a file may hold. A real incident is far inside them (the
// largest bundled file is under 8 KB, about 2,000 tokens, nested 5 deep,
// without a single alias); a hostile file passes one of them long before
// it costs time or memory, and is refused before it is parsed.
const (
	MaxFileBytes = 1 << 20 // 1 MiB
	MaxTokens    = 100_000 // YAML tokens, and values read counting each alias's expansion
	MaxDepth     = 16      // nesting of lists and maps
	MaxAliases   = 32      // *name references
)

// Problem is one thing wrong with an incident file, at a position. Line 0
// means the problem is with the file as a whole (not a regular file, too
// large), where there is no position to give.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p Problem) Error() string {
	// the message may quote the file; it must never carry a control
	// character to the terminal
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", visible(p.File), short(visible(p.Msg)))
	}
	return fmt.Sprintf("%s:%d:%d: %s", visible(p.File), p.Line, p.Col, short(visible(p.Msg)))
}

// short cuts a message that quotes a long value from the file: one line
// of error, not a page of the file back.
func short(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Problems is every problem found in one file, in file order.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// visible writes control characters and invalid UTF-8 as Go escapes.
func visible(s string) string {
	if printable(s, false) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// printable reports whether s is valid UTF-8 free of characters a terminal
// acts on: C0 controls (newline and tab only if multiline), DEL, C1
// controls, and the bidirectional overrides that reorder what is shown.
func printable(s string, multiline bool) bool {
	_, ok := firstUnprintable(s, multiline)
	return !ok
}

func firstUnprintable(s string, multiline bool) (rune, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return r, true
		case r == '\n' || r == '\t':
			if !multiline {
				return r, true
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, true
		}
	}
	return 0, false
}

// The file's shape. Fields tagged text:"multiline" may hold newlines.
// Knob sections are lists of entries checked against the engine's knobs,
// so the file and --set accept exactly the same values.
type file struct {
	ID       string `yaml:"id"`
	Title    string `yaml:"title"`
	Story    string `yaml:"story" text:"multiline"`
	Label    string `yaml:"label"`
	Start    string `yaml:"start"`
	Seed     uint64 `yaml:"seed"`
	Featured *int32 `yaml:"featured"`
	// FeaturedKnobs are the knobs the lesson is about, first in the fork
	// form: featured_knobs: [visibility_timeout, late_ack]
	FeaturedKnobs []string   `yaml:"featured_knobs"`
	Sources       []source   `yaml:"sources"`
	Broker        entries    `yaml:"broker"`
	Workers       workers    `yaml:"workers"`
	Handler       entries    `yaml:"handler"`
	Provider      entries    `yaml:"provider"`
	Family        string     `yaml:"family"`
	Params        entries    `yaml:"params"`
	Pins          []pin      `yaml:"pins"`
	Alerts        []alert    `yaml:"alerts"`
	WouldHave     []alert    `yaml:"would_have"`
	Operators     []operator `yaml:"operators"`
	Bookmarks     []bookmark `yaml:"bookmarks"`
	Expect        entries    `yaml:"expect"`
	Forks         []fork     `yaml:"forks"`
	Exercises     []exercise `yaml:"exercises"`
	Properties    []property `yaml:"properties"`
}

type source struct {
	Name   string `yaml:"name"`
	Start  string `yaml:"start"`
	Every  string `yaml:"every"`
	Count  int    `yaml:"count"`
	Poison bool   `yaml:"poison"`
}

type workers struct {
	Boxes        []string `yaml:"boxes"`
	PerBox       int      `yaml:"per_box"`
	Start        string   `yaml:"start"`
	RestartAfter string   `yaml:"restart_after"`
}

type pin struct {
	Decision string `yaml:"decision"`
	Message  int32  `yaml:"message"`
	Delivery int    `yaml:"delivery"`
	Value    string `yaml:"value"`
	Box      string `yaml:"box"`
}

type alert struct {
	Name      string `yaml:"name"`
	Kind      string `yaml:"kind"`
	Threshold string `yaml:"threshold"`
}

type operator struct {
	Name        string `yaml:"name"`
	Action      string `yaml:"action"`
	WhenDLQ     int    `yaml:"when_dlq"`
	Description string `yaml:"description" text:"multiline"`
}

type bookmark struct {
	At    string `yaml:"at"`
	Title string `yaml:"title"`
	Words string `yaml:"words" text:"multiline"`
	Event string `yaml:"event"`
	// Message narrows event: to one message's event at the clock.
	Message *int32 `yaml:"message"`
}

type fork struct {
	Name   string  `yaml:"name"`
	At     string  `yaml:"at"`
	Set    entries `yaml:"set"`
	Expect entries `yaml:"expect"`
}

type exercise struct {
	Key      string  `yaml:"key"`
	Question string  `yaml:"question" text:"multiline"`
	At       string  `yaml:"at"`
	Set      entries `yaml:"set"`
	Explain  string  `yaml:"explain" text:"multiline"`
	From     string  `yaml:"from"` // "lesson": one of its "Check your understanding" questions; else written for the incident
	// Choices, the right one's number (answer: 1 is the first), the
	// bookmark it is asked at and the moment that proves the answer make
	// the exercise a question; questions() reads them.
	Choices  []string `yaml:"choices"`
	Answer   *int     `yaml:"answer"`
	Bookmark string   `yaml:"bookmark"`
	Proof    string   `yaml:"proof"`
}

// entries is a map section (knobs, expectations) in file order. A value is
// a scalar written as --set would take it, or a flat list of scalars
// written "[a,b]".
type entries []entry

type entry struct {
	Key    string
	Value  string
	IsList bool
}

var entriesType = reflect.TypeOf(entries(nil))

// knobSections says which knobs each section may set.
var knobSections = map[string][]string{
	"broker":   {"mode", "visibility_timeout", "max_receives", "late_ack"},
	"handler":  {"ack", "claim", "claim_window", "crash_after_claim", "heartbeat"},
	"provider": {"latency_min", "latency_max", "wedge_p"},
}

// reader carries the positions of what was read so that every check can
// point at the line and column of what it complains about.
type reader struct {
	name string
	pos  map[string]*token.Position // path ("$.sources[0].count") → its key's position
	bad  map[string]bool            // paths already reported by the decoder
	// knobs whose value in the file was refused: their default stands in,
	// so a check of how knobs sit together would only add noise
	badKnobs map[string]bool
	probs    Problems

	anchors map[string]*ast.AnchorNode
	values  int // values decoded, each alias's expansion counted again
	stopped bool
}

func (r *reader) addAt(p *token.Position, format string, args ...any) {
	line, col := 1, 1
	if p != nil {
		line, col = p.Line, p.Column
	}
	r.probs = append(r.probs, Problem{r.name, line, col, fmt.Sprintf(format, args...)})
}

// at reports a problem at path, or at the nearest enclosing path the file
// has (a missing key is reported where its section is).
func (r *reader) at(path string, format string, args ...any) {
	if r.bad[path] {
		return // the decoder already said what is wrong with this value
	}
	for p := path; ; p = parentPath(p) {
		if pos, ok := r.pos[p]; ok {
			r.addAt(pos, format, args...)
			return
		}
		if p == "$" || p == "" {
			r.addAt(nil, format, args...)
			return
		}
	}
}

// has reports whether the file wrote path at all.
func (r *reader) has(path string) bool { _, ok := r.pos[path]; return ok }

func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i > 0 {
		return p[:i]
	}
	return "$"
}

// field names a path the way the file writes it: "sources[0].count".
func field(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, "$"), ".") }

func (r *reader) clock(path, s string, required bool) engine.Time {
	if s == "" {
		if required && !r.bad[path] {
			r.at(path, "missing %s (a clock like \"19:40:20\")", lastKey(path))
		}
		return 0
	}
	t, err := engine.ParseClock(s)
	if err != nil {
		r.at(path, "%v", err)
	}
	return t
}

func (r *reader) dur(path, s string, required bool) engine.Duration {
	if s == "" {
		if required && !r.bad[path] {
			r.at(path, "missing %s (a duration like \"30s\")", lastKey(path))
		}
		return 0
	}
	d, err := engine.ParseDuration(s, false)
	if err != nil {
		r.at(path, "%v", err)
	}
	return d
}

func lastKey(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return strings.TrimSuffix(path[i+1:], "]")
	}
	return path
}

// settings checks a knob section; paths records where each knob was set,
// so that a problem found later (latency_max below latency_min) can point
// at its line.
func (r *reader) settings(path string, m entries, allowed []string, paths map[string]string) []engine.Setting {
	var out []engine.Setting
	for _, it := range m {
		k := it.Key
		p := path + "." + k
		if r.bad[p] {
			r.badKnobs[k] = true
			continue
		}
		if allowed != nil && !contains(allowed, k) {
			r.at(p, "unknown key %q in %s (allowed: %s)", k, lastKey(path), strings.Join(allowed, ", "))
			continue
		}
		knob, ok := engine.LookupKnob(k)
		if !ok {
			r.at(p, "unknown knob %q (knobs: %s)", k, strings.Join(engine.KnobNames(), ", "))
			continue
		}
		if it.IsList {
			r.at(p, "%s: want a single value, got a list", field(p))
			r.badKnobs[k] = true
			continue
		}
		s := engine.Setting{Knob: k, Value: it.Value}
		var probe engine.Params
		if err := knob.Set(&probe, s.Value); err != nil {
			r.at(p, "knob %s=%s: %v", k, s.Value, err)
			r.badKnobs[k] = true
			continue
		}
		if paths != nil {
			paths[k] = p
		}
		delete(r.badKnobs, k)
		out = append(out, s)
	}
	return out
}

func (r *reader) expect(path string, m entries) []engine.Expectation {
	var out []engine.Expectation
	for _, it := range m {
		p := path + "." + it.Key
		if r.bad[p] {
			continue
		}
		e := engine.Expectation{Key: it.Key, Want: it.Value}
		if err := engine.CheckExpectationSyntax(e); err != nil {
			r.at(p, "%v", err)
			continue
		}
		if bad, ok := notANumber(e.Want); ok && !it.IsList {
			r.at(p, "expect %s: %q is not a number", e.Key, bad)
			continue
		}
		out = append(out, e)
	}
	return out
}

// notANumber finds a NaN or an infinity in an expected value: "NaN",
// "<=Inf", "0..+Inf". A figure is never one, and a comparison with NaN is
// always false, so such an expectation could never pass or fail honestly.
func notANumber(want string) (string, bool) {
	for _, part := range strings.FieldsFunc(want, func(r rune) bool { return strings.ContainsRune("<>= ", r) }) {
		for _, p := range strings.Split(part, "..") {
			f, err := strconv.ParseFloat(p, 64)
			if (err == nil || errors.Is(err, strconv.ErrRange)) && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return p, true
			}
		}
	}
	return "", false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Parse reads one incident file. name is used in error positions. Every
// problem is reported, in file order, the same on every run.
func Parse(name string, data []byte) (spec *engine.Spec, err error) {
	defer func() {
		// the YAML library is third-party code fed user input: a panic in
		// it must still come out as a positioned error, not a stack trace
		if p := recover(); p != nil {
			spec, err = nil, Problems{{name, 1, 1, fmt.Sprintf("cannot read this file: %v", p)}}
		}
	}()
	if len(data) > MaxFileBytes {
		return nil, Problems{{name, 0, 0, fmt.Sprintf("%d bytes; an incident file may be at most %d (%d MiB)", len(data), MaxFileBytes, MaxFileBytes>>20)}}
	}
	tokens, prob := scan(name, data)
	if prob != nil {
		return nil, Problems{*prob}
	}
	af, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, yamlProblem(name, err)
	}
	r := &reader{name: name, pos: map[string]*token.Position{}, bad: map[string]bool{}, badKnobs: map[string]bool{}, anchors: map[string]*ast.AnchorNode{}}
	var f file
	switch {
	case len(af.Docs) > 1:
		at := af.Docs[1].GetToken()
		if af.Docs[1].Start != nil {
			at = af.Docs[1].Start // the "---"
		}
		r.addAt(at.Position, "one incident per file: a second YAML document starts here")
		r.stopped = true
	case len(af.Docs) == 0 || af.Docs[0].Body == nil:
		r.addAt(nil, "empty file: an incident needs at least id, title and start")
		r.stopped = true
	default:
		r.collectAnchors(af.Docs[0].Body, 0)
		r.decode("$", af.Docs[0].Body, reflect.ValueOf(&f).Elem(), "", 0)
	}
	if !r.stopped {
		spec = r.build(&f)
		spec.FeaturedKnobs = r.featuredKnobs(spec, f.FeaturedKnobs)
		if len(r.probs) == 0 {
			r.bookmarkKeys(spec)
		}
		r.questions(spec, f.Exercises)
		spec.Properties = r.properties(f.Properties)
	}
	if len(r.probs) > 0 {
		sort.SliceStable(r.probs, func(i, j int) bool {
			a, b := r.probs[i], r.probs[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		return nil, r.probs
	}
	return spec, nil
}

// scan tokenizes data, refusing it, before anything is parsed, if it holds
// more tokens, aliases or nesting than an incident needs: the YAML
// parser's time and memory grow with the square of the nesting, and
// decoding an alias expands it. Every step here is linear in the input,
// which the token pre-count keeps small.
func scan(name string, data []byte) (token.Tokens, *Problem) {
	if i := invalidUTF8(data); i >= 0 {
		line, col := lineCol(data, i)
		return nil, &Problem{name, line, col, "not UTF-8 text (an incident file is UTF-8 YAML)"}
	}
	// The YAML scanner tokenizes the whole input in one call, so its
	// token count can only be checked after the fact. Bound it first by
	// counting, in one pass with no allocation, the characters a token can
	// start or end at: every token needs one, so the scanner then makes
	// at most about twice as many tokens as this counts.
	marks := 0
	for i, c := range data {
		switch c {
		case ',', '[', ']', '{', '}', ':', '-', '&', '*', '!', '#', '|', '>', '?', '\'', '"', '\n':
			if marks++; marks > MaxTokens {
				line, col := lineCol(data, i)
				return nil, &Problem{name, line, col, fmt.Sprintf("more than %d YAML tokens (lines, keys, list items, quotes); an incident needs far fewer", MaxTokens)}
			}
		}
	}
	var s scanner.Scanner
	s.Init(string(data))
	var toks token.Tokens
	flow, aliases := 0, 0
	var block []int // columns of the open block collections, increasing
	lastLine := 0
	refuse := func(tk *token.Token, format string, args ...any) (token.Tokens, *Problem) {
		line, col := 1, 1
		if tk.Position != nil {
			line, col = tk.Position.Line, tk.Position.Column
		}
		return nil, &Problem{name, line, col, fmt.Sprintf(format, args...)}
	}
	for {
		sub, err := s.Scan()
		if err == io.EOF {
			break
		}
		for _, tk := range sub {
			if len(toks) >= MaxTokens {
				return refuse(tk, "more than %d YAML tokens; an incident needs far fewer", MaxTokens)
			}
			switch tk.Type {
			case token.SequenceStartType, token.MappingStartType:
				flow++
			case token.SequenceEndType, token.MappingEndType:
				if flow > 0 {
					flow--
				}
			case token.AliasType:
				if aliases++; aliases > MaxAliases {
					return refuse(tk, "more than %d aliases (*name); an incident needs none", MaxAliases)
				}
			case token.TagType:
				return refuse(tk, "tag %q: incident files take no YAML tags", tk.Value)
			case token.MergeKeyType:
				return refuse(tk, "merge keys (<<) are not supported in incident files")
			}
			// block nesting: a collection is open at each column, left to
			// right, where a line's first token, a "- " or a "? " sits
			if flow == 0 && tk.Position != nil && tk.Type != token.CommentType &&
				(tk.Position.Line != lastLine || tk.Type == token.SequenceEntryType || tk.Type == token.MappingKeyType) {
				c := tk.Position.Column
				for len(block) > 0 && block[len(block)-1] > c {
					block = block[:len(block)-1]
				}
				if len(block) == 0 || block[len(block)-1] < c {
					block = append(block, c)
				}
			}
			if tk.Position != nil && tk.Type != token.CommentType {
				lastLine = tk.Position.Line
			}
			if flow+len(block) > MaxDepth {
				return refuse(tk, "nested more than %d levels deep; an incident needs far fewer", MaxDepth)
			}
			toks.Add(tk)
		}
		if err != nil && len(sub) == 0 {
			break // no progress: the parser reports the invalid token
		}
	}
	return toks, nil
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func lineCol(b []byte, off int) (int, int) {
	line := 1 + strings.Count(string(b[:off]), "\n")
	col := off - strings.LastIndexByte(string(b[:off]), '\n')
	return line, col
}

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
	switch v.Kind() {
	case reflect.String:
		if !isScalar(n) {
			fail("text")
			return
		}
		s := scalarText(n)
		multiline := textTag == "multiline"
		if c, bad := firstUnprintable(s, multiline); bad {
			what := "a control character"
			if c == '\n' {
				what = "a line break (only story, words, question, explain and description may have several lines)"
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
			if near := nearest(k, keysOf(t)); near != "" {
				r.addAt(pos, "unknown key %q%s; did you mean %q?", k, where, near)
			} else {
				r.addAt(pos, "unknown key %q%s (keys: %s)", k, where, strings.Join(keysOf(t), ", "))
			}
			continue
		}
		r.pos[p] = valuePos(kv, pos)
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

// nearest suggests the known key a misspelt one was meant to be: the one
// within two edits (one for a short key), if exactly one is.
func nearest(k string, known []string) string {
	limit := max(1, min(2, len(k)/3))
	best, n := "", 0
	for _, c := range known {
		if editDistance(k, c, limit) <= limit {
			best, n = c, n+1
		}
	}
	if n == 1 {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b, or more than max
// once it is sure to be (keys are short, but a key may be hostile).
func editDistance(a, b string, max int) int {
	if len(a) > 64 || len(b) > 64 || len(a)-len(b) > max || len(b)-len(a) > max {
		return max + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func fieldIndex(t reflect.Type, key string) int {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("yaml") == key {
			return i
		}
	}
	return -1
}

func keysOf(t reflect.Type) []string {
	var ks []string
	for i := 0; i < t.NumField(); i++ {
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

func yamlProblem(name string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line, col := 1, 1
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line, col = tk.Position.Line, tk.Position.Column
		}
		return Problems{{name, line, col, ye.GetMessage()}}
	}
	return Problems{{name, 1, 1, strings.SplitN(err.Error(), "\n", 2)[0]}}
}

// featuredKnobs checks the featured_knobs: names against the knobs the
// incident reads (an unknown or foreign name is an error, as in --set) and
// drops repeats.
func (r *reader) featuredKnobs(spec *engine.Spec, names []string) []string {
	var own []string
	for _, k := range engine.KnobsFor(spec) {
		own = append(own, k.Name)
	}
	var out []string
	for i, n := range names {
		p := fmt.Sprintf("$.featured_knobs[%d]", i)
		switch {
		case !contains(own, n):
			r.at(p, "featured knob %q is not one of this incident's knobs (%s)", short(n), strings.Join(own, ", "))
		case contains(out, n):
			r.at(p, "featured knob %q is named twice", short(n))
		default:
			out = append(out, n)
		}
	}
	return out
}

// bookmarkKeys refuses a bookmark whose event: names no event this
// incident's system has, or whose message: names no message its sources
// publish: either would land the bookmark silently on its clock's end.
func (r *reader) bookmarkKeys(spec *engine.Spec) {
	w, err := engine.NewWorld(spec, spec.Seed, nil)
	if err != nil {
		return // refused elsewhere
	}
	var kinds []string
	for k := range 256 {
		if n := w.KindName(engine.Kind(k)); n != "unknown" && !contains(kinds, n) {
			kinds = append(kinds, n)
		}
	}
	msgs := 0
	for i := range spec.Sources {
		msgs += spec.Sources[i].CountUnder(&spec.Params)
	}
	for i, b := range spec.Bookmarks {
		p := fmt.Sprintf("$.bookmarks[%d]", i)
		if b.Event != "" && !contains(kinds, b.Event) {
			hint := ""
			if n := nearest(b.Event, kinds); n != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", n)
			}
			r.at(p+".event", "bookmark event %q is not an event of this incident%s; its events: %s", short(b.Event), hint, strings.Join(kinds, ", "))
		}
		switch {
		case b.Msg < -1 || b.Msg == -1 && r.has(p+".message"):
			r.at(p+".message", "bookmark message %d: messages are numbered from 0", b.Msg)
		case msgs > 0 && int(b.Msg) >= msgs:
			r.at(p+".message", "bookmark message %d: this incident publishes messages 0 to %d", b.Msg, msgs-1)
		}
	}
}
