package incidents

import (
	"fmt"
	"strings"

	"inflight/engine"
	"inflight/internal/near"
)

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
			if n := near.Misspelt(b.Event, kinds); n != "" {
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
