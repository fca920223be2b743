package incidents

import (
	"errors"
	"fmt"
	"strings"

	"inflight/engine"
	"inflight/engine/families/sqs"
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

	// fam is the incident's family other than the queue; an incident
	// without a `family:` key (or an unknown one, reported) runs the queue
	var fam *engine.Descriptor
	queue := f.Family == "" || f.Family == sqs.Descriptor.Name
	if !queue {
		var ok bool
		if fam, ok = family(f.Family); !ok {
			r.at("$.family", "unknown family %q (families: %s)", f.Family, strings.Join(familyNames(), ", "))
		}
	}
	d := &sqs.Descriptor
	if fam != nil {
		d = fam
	}
	s.NewFamily = d.New
	s.Knobs = d.KnobNames()
	var err error
	if s.Params, err = d.Params(); err != nil {
		r.at("$", "%v", err) // a bug in the family's descriptor
	}
	if len(f.Sources) == 0 && queue {
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
		// the queue's `orders` knob is the count of the source named orders
		orders := src.Name == "orders"
		s.Sources = append(s.Sources, engine.Source{Name: src.Name, Start: start, Every: every, Count: src.Count, Poison: src.Poison, OrdersKnob: orders})
		if orders && fam == nil {
			engine.MutKnobs[sqs.Knobs](&s.Params).Orders = src.Count
		}
	}

	var set []engine.Setting
	where := map[string]string{} // knob → the path that set it
	if fam != nil {
		set = append(set, r.settings("$.params", f.Params, s.Knobs, where)...)
	} else if len(f.Params) > 0 {
		r.at("$.params", "params is for incidents with a family; the queue's knobs go under broker, handler and provider")
	}
	set = append(set, r.settings("$.broker", f.Broker, knobSections["broker"], where)...)
	set = append(set, r.settings("$.handler", f.Handler, knobSections["handler"], where)...)
	set = append(set, r.settings("$.provider", f.Provider, knobSections["provider"], where)...)

	if !queue && len(f.Workers.Boxes) == 0 {
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
	if f.Workers.RestartAfter != "" {
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

	for i, p := range f.Pins {
		path := fmt.Sprintf("$.pins[%d]", i)
		if r.bad[path] {
			continue // not a map: already reported
		}
		k, ok := engine.DecisionKindByName(p.Decision)
		if !ok || (k != engine.DecLatency && k != engine.DecWorker) {
			r.at(path+".decision", "pin decision %q: want latency or worker", p.Decision)
			continue
		}
		pin := engine.Pin{Kind: k, Message: p.Message, Delivery: p.Delivery, Box: p.Box}
		if k == engine.DecLatency {
			pin.Value = int64(r.dur(path+".value", p.Value, true))
		} else if !contains(f.Workers.Boxes, p.Box) {
			r.at(path+".box", "pin box %q is not one of the workers' boxes (%s)", p.Box, strings.Join(f.Workers.Boxes, ", "))
		}
		if p.Delivery < 1 {
			r.at(path+".delivery", "delivery counts from 1")
		}
		s.Pins = append(s.Pins, pin)
	}
	s.Alerts = r.alerts("$.alerts", f.Alerts)
	s.WouldHave = r.alerts("$.would_have", f.WouldHave)
	for i, o := range f.Operators {
		path := fmt.Sprintf("$.operators[%d]", i)
		if r.bad[path] {
			continue // not a map: already reported
		}
		actions, system := sqs.Descriptor.Actions, "the queue"
		if fam != nil {
			actions, system = fam.Actions, "family "+fam.Name
		}
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
