package incidents

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
)

func (r *reader) build(f *file) *engine.Spec {
	s := &engine.Spec{ID: f.ID, Title: f.Title, Story: strings.TrimSpace(f.Story), Label: f.Label, Seed: f.Seed, Featured: -1}
	if f.ID == "" && !r.has("$.id") {
		r.at("$", "missing id")
	} else if strings.ContainsAny(f.ID, " \t/|~") {
		r.at("$.id", "id %q: use letters, digits and dashes", f.ID)
	}
	if f.Title == "" && !r.has("$.title") {
		r.at("$", "missing title")
	} else if f.Title == "" && !r.bad["$.title"] {
		r.at("$.title", "title is empty")
	}
	if f.Featured != nil {
		s.Featured = *f.Featured
		if s.Featured < 0 {
			r.at("$.featured", "featured is a message number, 0 or more")
		}
	}
	s.Start = r.clock("$.start", f.Start, true)

	// d is the incident's family; an unknown one is reported and the
	// default stands in, without its requirements, so that the rest of
	// the file is still checked
	d, known := r.family(f.Family)
	s.NewFamily = d.New
	s.Knobs = d.KnobNames()
	var err error
	if s.Params, err = d.Params(); err != nil {
		r.at("$", "%v", err) // a bug in the family's descriptor
	}
	if len(f.Sources) == 0 && known && d.File.NeedsSources {
		r.at("$", "missing sources: at least one source of messages")
	}
	for i, src := range f.Sources {
		p := fmt.Sprintf("$.sources[%d]", i)
		if r.bad[p] {
			continue // not a map: already reported
		}
		if src.Name == "" {
			r.at(p, "source %d has no name", i)
		}
		if src.Count < 0 || src.Count > 50_000_000 {
			r.at(p+".count", "count %d is outside 0…50,000,000", src.Count)
		}
		every := r.dur(p+".every", src.Every, src.Count > 1)
		start := r.clock(p+".start", src.Start, true)
		if start < s.Start {
			r.at(p+".start", "source starts at %s, before the incident's start %s", start.Short(), s.Start.Short())
		}
		s.Sources = append(s.Sources, engine.Source{Name: src.Name, Start: start, Every: every, Count: src.Count, Poison: src.Poison, OrdersKnob: src.Name == "orders"})
	}
	r.sourceKnobs(s, d, known)

	var set []engine.Setting
	where := map[string]string{} // knob → the path that set it
	if len(d.File.Sections) == 0 {
		set = append(set, r.settings("$.params", f.Params, s.Knobs, where)...)
	} else if len(f.Params) > 0 {
		r.at("$.params", "params is for incidents with a family; %s's knobs go under %s", d.Called(), knobPlaces(d))
	}
	for _, sec := range d.File.Sections {
		set = append(set, r.settings("$."+sec.Name, f.Sections.get(sec.Name), sec.Knobs, where)...)
	}
	for _, sec := range f.Sections {
		if owner := sectionOwner(sec.Name); owner != d {
			r.at("$."+sec.Name, "%s is a section of %s's incidents; %s's knobs go under %s", sec.Name, owner.Called(), d.Called(), knobPlaces(d))
		}
	}

	if !(known && d.File.NeedsWorkers) && len(f.Workers.Boxes) == 0 {
		// a family brings its own consumers
	} else if r.bad["$.workers"] || r.bad["$.workers.boxes"] || r.bad["$.workers.per_box"] {
		// already reported
	} else if len(f.Workers.Boxes) == 0 || f.Workers.PerBox <= 0 {
		r.at("$.workers", "workers need boxes (a list) and per_box (at least 1)")
	} else if n := len(f.Workers.Boxes) * f.Workers.PerBox; n > 64 {
		r.at("$.workers", "%d workers; at most 64", n)
	}
	s.Workers = engine.WorkerSetup{Boxes: f.Workers.Boxes, PerBox: f.Workers.PerBox, Start: s.Start}
	if f.Workers.Start != "" {
		s.Workers.Start = r.clock("$.workers.start", f.Workers.Start, false)
	}
	if f.Workers.RestartAfter != "" && !contains(s.Knobs, "restart_after") {
		// the family reads no such knob: the value would be dropped
		r.at("$.workers.restart_after", "knob \"restart_after\" does not apply to this incident (its knobs: %s)", strings.Join(sorted(s.Knobs), ", "))
	} else if f.Workers.RestartAfter != "" {
		set = append(set, engine.Setting{Knob: "restart_after", Value: f.Workers.RestartAfter})
		where["restart_after"] = "$.workers.restart_after"
	}
	if err := s.Params.Apply(set); err != nil {
		// point at the line that set the knob the error is about
		// (latency_max below latency_min: the latency_max line)
		path := "$"
		var ke *engine.KnobError
		if errors.As(err, &ke) && (r.badKnobs[ke.Knob] || r.badKnobs[ke.Other]) {
			path = "" // already reported: the value it is about was refused
		} else if errors.As(err, &ke) && where[ke.Knob] != "" {
			path = where[ke.Knob]
		} else if errors.As(err, &ke) && where[ke.Other] != "" {
			path = where[ke.Other]
		}
		if path != "" {
			r.at(path, "%v", err)
		}
	}

	s.Pins = r.pins(f, d)
	if f.Publish != "" || r.has("$.publish") {
		if !d.Publish {
			r.at("$.publish", "publish is a schedule for a family with its own producer (cashback); %s publishes from sources", d.Called())
		} else {
			s.Publish = r.publish("$.publish", f.Publish)
		}
	}
	s.Alerts = r.alerts("$.alerts", f.Alerts)
	s.WouldHave = r.alerts("$.would_have", f.WouldHave)
	for i, o := range f.Operators {
		path := fmt.Sprintf("$.operators[%d]", i)
		if r.bad[path] {
			continue // not a map: already reported
		}
		actions, system := d.Actions, d.Called()
		action, ok := engine.OperatorActionByName(actions, o.Action)
		if !ok && len(actions) == 0 {
			r.at(path+".action", "operator action %q: %s has no operator actions", o.Action, system)
		} else if !ok {
			r.at(path+".action", "operator action %q: want %s", o.Action, orList(actions))
		}
		if o.WhenDLQ < 1 {
			r.at(path+".when_dlq", "when_dlq must be at least 1")
		}
		s.Operators = append(s.Operators, engine.OperatorSpec{Name: o.Name, Action: action, WhenDLQ: o.WhenDLQ, Description: o.Description})
	}
	for i, b := range f.Bookmarks {
		path := fmt.Sprintf("$.bookmarks[%d]", i)
		if r.bad[path] {
			continue // not a map: already reported
		}
		bm := engine.Bookmark{At: r.clock(path+".at", b.At, true), Title: b.Title, Words: strings.TrimSpace(b.Words), Event: b.Event, Msg: -1}
		r.notBeforeStart(path+".at", "bookmark", b.At, s.Start)
		if b.Message != nil {
			bm.Msg = *b.Message
			if b.Event == "" {
				r.at(path+".message", "message: narrows event: to one message; name the event too")
			}
		}
		s.Bookmarks = append(s.Bookmarks, bm)
	}
	s.Expect = r.expect("$.expect", f.Expect)
	for i, fk := range f.Forks {
		path := fmt.Sprintf("$.forks[%d]", i)
		if r.bad[path] {
			continue // not a map: already reported
		}
		if fk.Name == "" {
			r.at(path, "fork %d has no name", i)
		}
		spec := engine.ForkSpec{Name: fk.Name, Set: r.settings(path+".set", fk.Set, knobsOf(s), nil), Expect: r.expect(path+".expect", fk.Expect)}
		if fk.At != "" {
			spec.At, spec.HasAt = r.clock(path+".at", fk.At, false), true
			r.notBeforeStart(path+".at", "fork", fk.At, s.Start)
		}
		s.Forks = append(s.Forks, spec)
	}
	for i, ex := range f.Exercises {
		path := fmt.Sprintf("$.exercises[%d]", i)
		if r.bad[path] {
			continue // not a map: already reported
		}
		if ex.Key == "" || ex.Question == "" {
			r.at(path, "an exercise needs a key and a question")
		}
		if ex.From != "" && ex.From != "lesson" && ex.From != "incident" {
			r.at(path+".from", "from %q: want lesson (the lesson's own question) or incident (written for this incident, the default)", ex.From)
		}
		r.notBeforeStart(path+".at", "exercise", ex.At, s.Start)
		s.Exercises = append(s.Exercises, engine.Exercise{Key: ex.Key, Question: strings.TrimSpace(ex.Question),
			At: r.clock(path+".at", ex.At, true), Set: r.settings(path+".set", ex.Set, knobsOf(s), nil), Explain: strings.TrimSpace(ex.Explain),
			FromLesson: ex.From == "lesson"})
	}
	return s
}

func (r *reader) alerts(path string, as []alert) []engine.AlertSpec {
	var out []engine.AlertSpec
	for i, a := range as {
		p := fmt.Sprintf("%s[%d]", path, i)
		if r.bad[p] {
			continue // not a map: already reported
		}
		spec := engine.AlertSpec{Name: a.Name}
		if k, ok := engine.AlertKindByName(a.Kind); !ok {
			r.at(p+".kind", "alert kind %q: want %s", a.Kind, orList(engine.AlertKinds()))
		} else {
			spec.Kind = k
			if k == engine.AlertOldestAge {
				spec.Threshold = r.dur(p+".threshold", a.Threshold, true)
			}
		}
		if a.Name == "" {
			r.at(p, "alert %d has no name", i)
		}
		out = append(out, spec)
	}
	return out
}

// familyPin is the family's own pin decision named name.
func familyPin(d *engine.Descriptor, name string) (engine.DecisionKind, bool) {
	for _, p := range d.Pins {
		if p.Name == name {
			return p.Kind, true
		}
	}
	return 0, false
}

// pinNames lists the decisions an incident of d may pin, for an error.
func pinNames(d *engine.Descriptor) string {
	names := []string{"latency", "worker", "crash"}
	for _, p := range d.Pins {
		names = append(names, p.Name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// orList names the choices for an error: "a", "a or b", "a, b or c".
func orList[T fmt.Stringer](choices []T) string {
	var names []string
	for _, c := range choices {
		names = append(names, c.String())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func knobsOf(s *engine.Spec) []string { return s.Knobs }

// family is the descriptor the file's family: names, the default without
// one; an unknown name is reported and answers the default, not known.
func (r *reader) family(name string) (d *engine.Descriptor, known bool) {
	if name == "" {
		return defaultFamily(), true
	}
	if d, ok := family(name); ok {
		return d, true
	}
	r.at("$.family", "unknown family %q (families: %s)", name, strings.Join(familyNames(), ", "))
	return defaultFamily(), false
}

// sourceKnobs gives each Given knob of the family the count of the source
// named after it (the queue's orders). Without that source the knob
// changes nothing, so no fork may set it.
func (r *reader) sourceKnobs(s *engine.Spec, d *engine.Descriptor, known bool) {
	for _, k := range d.Knobs.List {
		if _, given := k.Default(); !given {
			continue
		}
		found := false
		for _, src := range s.Sources {
			if src.Name == k.Name {
				found = true
				// a count out of range is reported with its source
				_ = k.Set(&s.Params, strconv.Itoa(src.Count))
			}
		}
		if !found && known {
			s.Knobs = without(s.Knobs, k.Name)
		}
	}
}

// knobPlaces says where a family's knobs are written: "params", or its
// sections ("broker, handler and provider").
func knobPlaces(d *engine.Descriptor) string {
	if len(d.File.Sections) == 0 {
		return "params"
	}
	var names []string
	for _, sec := range d.File.Sections {
		names = append(names, sec.Name)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func without(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// notBeforeStart refuses a moment before the incident's start: nothing
// happens there, and `run --at` refuses the same clock. written is the
// clock as the file has it ("" or unreadable: reported by clock).
func (r *reader) notBeforeStart(path, what, written string, start engine.Time) {
	at, err := engine.ParseClock(written)
	if written == "" || err != nil || r.bad[path] || at >= start {
		return
	}
	r.at(path, "%s at %s is before the incident starts (%s)", what, at.Short(), start.Short())
}

// pins are the file's pins: its pins: list and its pin_table rows, in
// file order (a key pinned twice is tried in that order), each checked by
// pin.
func (r *reader) pins(f *file, d *engine.Descriptor) []engine.Pin {
	out := make([]engine.Pin, 0, len(f.Pins)+len(f.PinTable))
	before := len(r.probs)
	check := func(path string, p pin) bool {
		if len(r.probs)-before >= maxPinProblems {
			r.at(path, "more problems with pins after these %d; fix these first", maxPinProblems)
			return false
		}
		if p, ok := r.pin(path, p, f.Workers.Boxes, d); ok {
			out = append(out, p)
		}
		return true
	}
	list := func() bool {
		for i, p := range f.Pins {
			if !check(fmt.Sprintf("$.pins[%d]", i), p) {
				return false
			}
		}
		return true
	}
	table := func() bool {
		for i, p := range f.PinTable {
			if !check("$.pin_table["+strconv.Itoa(i)+"]", p) {
				return false
			}
		}
		return true
	}
	if l, t := r.pos["$.pins"], r.pos["$.pin_table"]; l != nil && t != nil && t.Line < l.Line {
		_ = table() && list()
	} else {
		_ = list() && table()
	}
	return out
}

// pin checks one pin at path, written in pins: or as a row of pin_table:
// one check for both, so that the two give the same pins.
func (r *reader) pin(path string, p pin, boxes []string, d *engine.Descriptor) (engine.Pin, bool) {
	if r.bad[path] {
		return engine.Pin{}, false // not a map: already reported
	}
	k, ok := engine.DecisionKindByName(p.Decision)
	own, isOwn := familyPin(d, p.Decision)
	if isOwn {
		k, ok = own, true
	}
	if !ok || (k != engine.DecLatency && k != engine.DecWorker && k != engine.DecCrash && !isOwn) {
		r.at(path+".decision", "pin decision %q: want %s", p.Decision, pinNames(d))
		return engine.Pin{}, false
	}
	pin := engine.Pin{Kind: k, Message: p.Message, Delivery: p.Delivery, Box: p.Box}
	switch {
	case isOwn:
		// a family's own pin is a duration (cashback's handler time)
		pin.Value = int64(r.dur(path+".value", p.Value, true))
	case k == engine.DecLatency:
		pin.Value = int64(r.dur(path+".value", p.Value, true))
	case k == engine.DecCrash:
		// whether the worker died at this delivery: what an import saw
		switch p.Value {
		case "0", "1":
			pin.Value = int64(p.Value[0] - '0')
		default:
			r.at(path+".value", "crash pin value %q: want 1 (died) or 0 (did not)", p.Value)
		}
	case !contains(boxes, p.Box):
		r.at(path+".box", "pin box %q is not one of the workers' boxes (%s)", p.Box, strings.Join(boxes, ", "))
	}
	if p.Message < 0 {
		r.at(path+".message", "message counts from 0")
	}
	if p.Delivery < 1 {
		r.at(path+".delivery", "delivery counts from 1")
	}
	return pin, true
}
