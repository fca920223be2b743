package engine

import "io"

type sinkFunc func(*World, *Event, *Decision)

func (f sinkFunc) Event(w *World, e *Event, d *Decision) { f(w, e, d) }

// Entry is an event with its caption and decision, for timelines.
type Entry struct {
	Event    Event
	Decision *Decision
	Caption  string
	DecText  string
}

func entryOf(w *World, e *Event, d *Decision) Entry {
	en := Entry{Event: *e, Caption: w.Caption(e, d)}
	if d != nil {
		dc := *d
		en.Decision = &dc
		en.DecText = w.DecisionText(d)
	}
	return en
}

// Events regenerates events [from, to) on the current branch.
func (x *Explorer) Events(from, to int64) []Entry { return x.EventsOn(x.cur, from, to) }

// EventsOn regenerates events [from, to) on branch b.
func (x *Explorer) EventsOn(b *Branch, from, to int64) []Entry {
	if from < 0 {
		from = 0
	}
	if to <= from {
		return nil
	}
	k := x.read
	if k == nil || k.path[len(k.path)-1] != b || k.w.Pos != from {
		k = x.walkerAt(b, from)
	}
	var out []Entry
	sink := sinkFunc(func(w *World, e *Event, d *Decision) { out = append(out, entryOf(w, e, d)) })
	for k.w.Pos < to && k.step(sink) {
	}
	x.read = k
	return out
}

// Last returns up to n events before the cursor that satisfy keep (nil:
// all), oldest first, searching back a checkpoint span at a time.
func (x *Explorer) Last(n int, keep func(*Entry) bool) []Entry {
	var out []Entry
	to := x.w.Pos
	for to > 0 && len(out) < n {
		from := max(0, to-x.Every)
		chunk := x.Events(from, to)
		var kept []Entry
		for i := range chunk {
			if keep == nil || keep(&chunk[i]) {
				kept = append(kept, chunk[i])
			}
		}
		out = append(kept, out...)
		to = from
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// Next returns up to n events after the cursor without moving it.
func (x *Explorer) Next(n int) []Entry { return x.Events(x.w.Pos, x.w.Pos+int64(n)) }

// NextWhere moves the cursor just past the next event satisfying keep and
// returns it; false (cursor unmoved) when there is none before the end.
func (x *Explorer) NextWhere(keep func(*Entry) bool) (Entry, bool) {
	k := x.walkerAt(x.cur, x.w.Pos)
	var hit *Entry
	sink := sinkFunc(func(w *World, e *Event, d *Decision) {
		if en := entryOf(w, e, d); keep(&en) {
			hit = &en
		}
	})
	for hit == nil {
		x.extend(k.path[k.seg], k.w.Pos+1)
		if !k.step(sink) {
			return Entry{}, false
		}
	}
	x.k, x.w = k, k.w
	return *hit, true
}

// PrevWhere moves the cursor just past the last event satisfying keep that
// lies before the cursor's latest event.
func (x *Explorer) PrevWhere(keep func(*Entry) bool) (Entry, bool) {
	to := x.w.Pos - 1
	for to > 0 {
		from := max(0, to-x.Every)
		chunk := x.Events(from, to)
		for i := len(chunk) - 1; i >= 0; i-- {
			if keep(&chunk[i]) {
				x.Goto(chunk[i].Event.Pos + 1)
				return chunk[i], true
			}
		}
		to = from
	}
	return Entry{}, false
}

// IsDecision keeps events that carry a decision.
func IsDecision(e *Entry) bool { return e.Decision != nil }

// NextDecision moves just past the next decision.
func (x *Explorer) NextDecision() (Entry, bool) { return x.NextWhere(IsDecision) }

// PrevDecision moves just past the previous decision.
func (x *Explorer) PrevDecision() (Entry, bool) { return x.PrevWhere(IsDecision) }

// WriteTrace writes branch b's whole trace as JSON lines, as `run --trace`
// does, replaying it from the start.
func (x *Explorer) WriteTrace(b *Branch, out io.Writer) error {
	tr := newTraceOut(out)
	k := x.walkerAt(b, 0)
	for k.step(tr.sink) && tr.sink.err == nil {
	}
	return tr.flush()
}
