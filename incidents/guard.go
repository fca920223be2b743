package incidents

import (
	"inflight/engine"
	"inflight/internal/termtext"
)

// guard passes every text of spec that reaches a screen through the text
// guard. Parse has refused control and bidi characters already with a
// position; this is the second wall (it also drops zero-width format
// characters and caps lengths), so that a check missed in the parser
// cannot reach a terminal. Names that must match elsewhere (bookmark
// titles, knob names) are held to the same kind everywhere they are
// compared, and the bundled texts need no change at all.
func guard(s *engine.Spec) *engine.Spec {
	name := func(p *string) { *p = termtext.Clean(*p, termtext.Name) }
	line := func(p *string) { *p = termtext.Clean(*p, termtext.Line) }
	text := func(p *string) { *p = termtext.Clean(*p, termtext.Text) }
	settings := func(set []engine.Setting) {
		for i := range set {
			name(&set[i].Knob)
			name(&set[i].Value)
		}
	}
	expect := func(es []engine.Expectation) {
		for i := range es {
			name(&es[i].Key)
			name(&es[i].Want)
		}
	}
	bookmark := func(b *engine.Bookmark) {
		line(&b.Title)
		text(&b.Words)
		name(&b.Event)
	}
	name(&s.ID)
	expect(s.Expect)
	line(&s.Title)
	text(&s.Story)
	name(&s.Label)
	for i := range s.FeaturedKnobs {
		name(&s.FeaturedKnobs[i])
	}
	for i := range s.Sources {
		name(&s.Sources[i].Name)
	}
	for i := range s.Workers.Boxes {
		name(&s.Workers.Boxes[i])
	}
	for i := range s.Pins {
		name(&s.Pins[i].Box)
	}
	for _, as := range [][]engine.AlertSpec{s.Alerts, s.WouldHave} {
		for i := range as {
			name(&as[i].Name)
		}
	}
	for i := range s.Operators {
		name(&s.Operators[i].Name)
		text(&s.Operators[i].Description)
	}
	for i := range s.Bookmarks {
		bookmark(&s.Bookmarks[i])
	}
	for i := range s.Forks {
		name(&s.Forks[i].Name)
		settings(s.Forks[i].Set)
		expect(s.Forks[i].Expect)
	}
	for i := range s.Exercises {
		e := &s.Exercises[i]
		name(&e.Key)
		text(&e.Question)
		text(&e.Explain)
		settings(e.Set)
		for j := range e.Choices {
			e.Choices[j] = termtext.Clean(e.Choices[j], termtext.Choice)
		}
		for _, b := range []*engine.Bookmark{e.Ask, e.Proof} {
			if b != nil {
				bookmark(b)
			}
		}
	}
	for i := range s.Properties {
		name(&s.Properties[i].Name)
		text(&s.Properties[i].Words)
		expect(s.Properties[i].Checks)
		expect(s.Properties[i].Every)
	}
	return s
}
