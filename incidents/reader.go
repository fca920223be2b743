package incidents

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"inflight/engine"
	"inflight/internal/near"
)

// reader carries the positions of what was read so that every check can
// point at the line and column of what it complains about.
type reader struct {
	name string
	pos  map[string]*token.Position // path ("$.sources[0].count") → its key's position
	// keys is where an entry's key is written (pos has its value's
	// position when on the same line): a problem with the key itself
	// points there
	keys map[string]*token.Position
	bad  map[string]bool // paths already reported by the decoder
	// knobs whose value in the file was refused: their default stands in,
	// so a check of how knobs sit together would only add noise
	badKnobs map[string]bool
	probs    Problems

	// table places the pin_table's rows, whose positions are not in pos
	table *tablePlace

	anchors map[string]*ast.AnchorNode
	// blocks are the block scalars read (publish: |), by path, and src
	// the file, for a problem's column inside one
	blocks  map[string]*ast.LiteralNode
	src     []byte
	values  int // values decoded, each alias's expansion counted again
	stopped bool
	// multiline names the fields that may hold line breaks, for a file
	// other than an incident (DecodeStrict); "": an incident's
	multiline string
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
	if pos, ok := r.table.at(path); ok {
		r.addAt(pos, format, args...)
		return
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

// atKey reports a problem with the key of the entry at path, at the key.
func (r *reader) atKey(path string, format string, args ...any) {
	if p, ok := r.keys[path]; ok {
		r.addAt(p, format, args...)
		return
	}
	r.at(path, format, args...)
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

// meant is "; did you mean …?" for the names k was likely meant to be
// (near.Meant), or nothing.
func meant(k string, known []string) string {
	if m := near.Meant(k, known); len(m) > 0 {
		return "; did you mean " + strings.Join(m, " or ") + "?"
	}
	return ""
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
			if _, known := engine.LookupKnob(k); known && lastKey(path) == "set" {
				// as --set words it: another family's knob, or the queue's
				// orders without a source named orders
				r.at(p, "knob %q does not apply to this incident (its knobs: %s)", k, strings.Join(sorted(allowed), ", "))
			} else {
				r.at(p, "unknown key %q in %s%s (allowed: %s)", k, lastKey(path), meant(k, allowed), strings.Join(allowed, ", "))
			}
			continue
		}
		knob, ok := engine.LookupKnob(k)
		if !ok {
			r.at(p, "unknown knob %q%s (knobs: %s)", k, meant(k, engine.KnobNames()), strings.Join(engine.KnobNames(), ", "))
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

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
