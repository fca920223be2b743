package incidents

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"inflight/engine"
)

// Bounds on a question's choices: one key each (1–5 or a–e), one line
// each on an 80-column screen's question overlay.
const (
	minChoices     = 2
	maxChoices     = 5
	maxChoiceRunes = 160
)

// questions reads the choices, answer, bookmark and proof of each
// exercise built into spec (build skips the exercises that are not maps,
// and so does this, to stay in step with it).
func (r *reader) questions(spec *engine.Spec, exs []exercise) {
	j := 0
	for i, ex := range exs {
		path := fmt.Sprintf("$.exercises[%d]", i)
		if r.bad[path] {
			continue
		}
		if j >= len(spec.Exercises) {
			return
		}
		r.question(path, spec, &spec.Exercises[j], ex)
		j++
	}
}

func (r *reader) question(path string, spec *engine.Spec, e *engine.Exercise, ex exercise) {
	if len(ex.Choices) == 0 {
		for _, k := range []string{"answer", "bookmark", "proof"} {
			if r.has(path + "." + k) {
				r.at(path+"."+k, "%s without choices: a question needs %d to %d choices", k, minChoices, maxChoices)
			}
		}
		return
	}
	if n := len(ex.Choices); n < minChoices || n > maxChoices {
		r.at(path+".choices", "%d choices: a question has %d to %d (one key each, 1–5 or a–e)", n, minChoices, maxChoices)
	}
	for i, c := range ex.Choices {
		p := fmt.Sprintf("%s.choices[%d]", path, i)
		switch {
		case r.bad[p]:
		case strings.TrimSpace(c) == "":
			r.at(p, "choice %d is empty", i+1)
		case utf8.RuneCountInString(c) > maxChoiceRunes:
			r.at(p, "choice %d is %d characters; a choice is one line of at most %d", i+1, utf8.RuneCountInString(c), maxChoiceRunes)
		}
	}
	e.Choices = append([]string(nil), ex.Choices...)
	switch {
	case ex.Answer == nil:
		r.at(path+".answer", "missing answer (the right choice's number, 1 for the first)")
	case *ex.Answer < 1 || *ex.Answer > len(ex.Choices):
		r.at(path+".answer", "answer %d: want a choice's number, 1 to %d", *ex.Answer, len(ex.Choices))
	default:
		e.Answer = *ex.Answer - 1
	}
	ask := e.At
	if ex.Bookmark != "" {
		if bm, ok := r.mark(path+".bookmark", spec, ex.Bookmark, false); ok {
			if bm.At < e.At {
				r.at(path+".bookmark", "bookmark at %s is before the exercise's moment (%s): the question is asked on its branch", bm.At.Short(), e.At.Short())
			}
			e.Ask, ask = &bm, bm.At
		}
	}
	if ex.Proof == "" {
		r.at(path+".proof", "missing proof (a bookmark, or a clock, that shows the answer)")
		return
	}
	if bm, ok := r.mark(path+".proof", spec, ex.Proof, true); ok {
		if bm.At <= ask {
			r.at(path+".proof", "proof at %s is not after the question's moment (%s)", bm.At.Short(), ask.Short())
			return
		}
		e.Proof = &bm
	}
}

// mark finds the bookmark s names, by its title or its clock; with
// clockOK, a clock no bookmark has is a moment of its own.
func (r *reader) mark(path string, spec *engine.Spec, s string, clockOK bool) (engine.Bookmark, bool) {
	for _, b := range spec.Bookmarks {
		if b.Title == s {
			return b, true
		}
	}
	t, err := engine.ParseClock(s)
	if err != nil {
		r.at(path, "%s %q is neither a bookmark's title nor a clock", lastKey(path), short(s))
		return engine.Bookmark{}, false
	}
	var found []engine.Bookmark
	for _, b := range spec.Bookmarks {
		if b.At == t {
			found = append(found, b)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], true
	case len(found) > 1:
		r.at(path, "%d bookmarks at %s: name one by its title", len(found), t.Short())
	case clockOK:
		return engine.Bookmark{At: t, Msg: -1}, true
	default:
		r.at(path, "no bookmark at %s (bookmarks: %s)", t.Short(), markList(spec))
	}
	return engine.Bookmark{}, false
}

func markList(spec *engine.Spec) string {
	if len(spec.Bookmarks) == 0 {
		return "none"
	}
	var out []string
	for _, b := range spec.Bookmarks {
		out = append(out, b.At.Short())
	}
	return strings.Join(out, ", ")
}
