package incidents

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Doc is a YAML file other than an incident (a workshop plan) read as
// strictly as an incident file: the same bounds on size, tokens, nesting
// and aliases before it is parsed, no tags or merge keys, an unknown or
// mistyped key refused with its line and column, control and bidi
// characters refused in every text (line breaks only in fields tagged
// text:"multiline"). The checks that follow the decoding report through
// it, at the position of the path they name ("$.beats[2].question").
type Doc struct {
	r *reader
}

// DecodeStrict reads data into v, a pointer to a struct whose fields have
// yaml tags (strings, whole numbers, bools, pointers, slices and structs
// of them); multiline names the fields that may hold line breaks, for
// the message that refuses one elsewhere. It returns the Doc whatever it found, and ok false when the
// file could not be read far enough for further checks to mean anything.
func DecodeStrict(name string, data []byte, v any, what, multiline string) (d *Doc, ok bool) {
	d = &Doc{r: &reader{name: name, pos: map[string]*token.Position{}, keys: map[string]*token.Position{}, bad: map[string]bool{}, badKnobs: map[string]bool{}, anchors: map[string]*ast.AnchorNode{}, multiline: multiline}}
	defer func() {
		// third-party code fed user input: a panic still comes out as a
		// positioned problem
		if p := recover(); p != nil {
			d.r.probs = append(d.r.probs, Problem{name, 1, 1, fmt.Sprintf("cannot read this file: %v", p)})
			ok = false
		}
	}()
	if len(data) > MaxFileBytes {
		d.r.probs = Problems{{name, 0, 0, fmt.Sprintf("%d bytes; %s may be at most %d (%d MiB)", len(data), what, MaxFileBytes, MaxFileBytes>>20)}}
		return d, false
	}
	tokens, prob := scan(name, data)
	if prob != nil {
		d.r.probs = Problems{*prob}
		return d, false
	}
	af, err := parser.Parse(tokens, 0)
	if err != nil {
		d.r.probs = yamlProblem(name, err).(Problems)
		return d, false
	}
	switch {
	case len(af.Docs) > 1:
		at := af.Docs[1].GetToken()
		if af.Docs[1].Start != nil {
			at = af.Docs[1].Start
		}
		d.r.addAt(at.Position, "one %s per file: a second YAML document starts here", what)
		return d, false
	case len(af.Docs) == 0 || af.Docs[0].Body == nil:
		d.r.addAt(nil, "empty file: want %s", what)
		return d, false
	}
	d.r.collectAnchors(af.Docs[0].Body, 0)
	d.r.decode("$", af.Docs[0].Body, reflect.ValueOf(v).Elem(), "", 0)
	return d, !d.r.stopped
}

// Add reports a problem at path (or the nearest enclosing path the file
// wrote); one the decoder already reported for that path is not repeated.
func (d *Doc) Add(path, format string, args ...any) { d.r.at(path, format, args...) }

// Has reports whether the file wrote path.
func (d *Doc) Has(path string) bool { return d.r.has(path) }

// Bad reports whether the decoder refused the value at path.
func (d *Doc) Bad(path string) bool { return d.r.bad[path] }

// Line is the line path was written on, 0 if the file did not write it.
func (d *Doc) Line(path string) int {
	if p, ok := d.r.pos[path]; ok && p != nil {
		return p.Line
	}
	return 0
}

// Err is every problem found, in file order, or nil.
func (d *Doc) Err() error {
	if len(d.r.probs) == 0 {
		return nil
	}
	ps := append(Problems(nil), d.r.probs...)
	sort.SliceStable(ps, func(i, j int) bool {
		return ps[i].Line < ps[j].Line || ps[i].Line == ps[j].Line && ps[i].Col < ps[j].Col
	})
	return ps
}

// ReadCapped reads the file at path as Load reads an incident file: a
// regular file of at most MaxFileBytes, never waiting on a FIFO. An error
// that is not Problems wraps the file system's.
func ReadCapped(path string) ([]byte, error) { return readCapped(path) }
