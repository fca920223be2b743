// Package familytest is what the families' tests share: the incident from
// the catalogue (Incident), a headless run's summary (Summary), a sink
// written inline (SinkFunc), and a played run that accounts for every
// message it published (Play): at the end each one is in exactly one
// state — held (waiting or in flight), done (deleted with at least one
// effect), in the dead letter queue, or lost (gone with no effect).
//
// The world releases the records of messages it no longer holds, so the
// tally follows the trace: after each event it notes the state of the
// message the event names (a family's step emits at most one event, and
// its effects and dead letters are the named message's), and at the end
// it reads every record still kept. A record released in the very step
// that names it was deleted, or is a dead letter if it was one or the
// step moved one to the DLQ. A family that moves a message without
// naming it in that step's event, or that writes to a released record,
// shows up as a message in no state, or a record that is not one.
//
// It imports the catalogue, so a family's tests that use it are external
// (package <name>_test); what they need from inside the family an
// export_test.go opens.
package familytest

import (
	"fmt"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// Incident is the catalogue's incident id: its family at the file's
// params. Tests take it from the catalogue rather than build it, so they
// play what the explorer and `check` play.
func Incident(t testing.TB, id string) *engine.Spec {
	t.Helper()
	s, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Summary runs spec headless under seed and settings and returns its
// summary, failing the test on an error.
func Summary(t testing.TB, spec *engine.Spec, seed uint64, set ...engine.Setting) engine.Summary {
	t.Helper()
	s, _, err := engine.Run(spec, engine.RunOptions{Seed: seed, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// WorldAt builds spec's world under seed and settings and plays it to
// clock at (or to its end, if that comes first): the mid-run world a test
// reads panes from, clones or forks.
func WorldAt(t testing.TB, spec *engine.Spec, seed uint64, set []engine.Setting, at string) *engine.World {
	t.Helper()
	clock, err := engine.ParseClock(at)
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.NewWorld(spec, seed, set)
	if err != nil {
		t.Fatal(err)
	}
	for w.Now < clock && w.Step(nil) {
	}
	return w
}

// BenchHeadless measures spec's whole run headless under seed, failing
// the benchmark if ok refuses a run's summary; it reports events per run.
func BenchHeadless(b *testing.B, spec *engine.Spec, seed uint64, ok func(engine.Summary) bool) {
	for i := 0; i < b.N; i++ {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: seed})
		if err != nil || !ok(s) {
			b.Fatal(err, s.Figures)
		}
		b.ReportMetric(float64(s.Events), "events/op")
	}
}

// BenchClone measures one copy of the family's state at clock at: what a
// checkpoint or a fork costs.
func BenchClone(b *testing.B, spec *engine.Spec, seed uint64, at string) {
	f := WorldAt(b, spec, seed, nil, at).Family()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = f.Clone()
	}
}

// SinkFunc is a function that receives each event: the engine.Sink a test
// writes inline.
type SinkFunc func(w *engine.World, e *engine.Event, d *engine.Decision)

// Event calls f.
func (f SinkFunc) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// States counts the published messages by state.
type States struct {
	Held, Done, DLQ, Lost int64
	// DLQEffected and HeldEffected are the dead letters and held messages
	// that had an effect (a seat sold before or after it was moved aside).
	DLQEffected, HeldEffected int64
}

func (s States) String() string {
	return fmt.Sprintf("held %d done %d dlq %d lost %d", s.Held, s.Done, s.DLQ, s.Lost)
}

// Run is a played run.
type Run struct {
	Summary engine.Summary
	World   *engine.World
	States  States
}

// Fork is a fork's moment and settings.
type Fork struct {
	At  string // clock, "" for none
	Set []engine.Setting
}

type note struct {
	status  engine.MsgStatus
	effects uint16
	seen    bool
}

type sink struct {
	notes          []note
	effects, dlqed int64 // the world's counts at the last event
}

func (k *sink) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	effects, dlqed := w.Stats.Effects-k.effects, w.Stats.DLQTotal-k.dlqed
	k.effects, k.dlqed = w.Stats.Effects, w.Stats.DLQTotal
	if e.Msg < 0 {
		return
	}
	for int(e.Msg) >= len(k.notes) {
		k.notes = append(k.notes, note{})
	}
	nt := &k.notes[e.Msg]
	if m, ok := w.Msg(e.Msg); ok {
		*nt = note{m.Status, m.Effects, true}
		return
	}
	// released in this step: gone from the broker (a dead letter stays
	// one), with this step's effects
	nt.effects += uint16(effects)
	if dlqed > 0 || nt.status == engine.StDLQ {
		nt.status = engine.StDLQ
	} else {
		nt.status = engine.StDeleted
	}
	nt.seen = true
}

// Set builds settings from knob, value pairs.
func Set(kv ...string) []engine.Setting {
	var s []engine.Setting
	for i := 0; i+1 < len(kv); i += 2 {
		s = append(s, engine.Setting{Knob: kv[i], Value: kv[i+1]})
	}
	return s
}

// Play runs spec under seed and settings, with fork f (if At is set), to
// the end; it fails the test if the run has not settled after maxEvents
// events, or if any message ends in no state or more than one.
func Play(t testing.TB, spec *engine.Spec, seed uint64, set []engine.Setting, f Fork, maxEvents int64) Run {
	t.Helper()
	w, err := engine.NewWorld(spec, seed, set)
	if err != nil {
		t.Fatal(err)
	}
	if f.At != "" {
		at, err := engine.ParseClock(f.At)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.ScheduleKnobs(at, f.Set); err != nil {
			t.Fatal(err)
		}
	}
	k := &sink{}
	if !w.RunTo(k, maxEvents) {
		t.Fatalf("%s %v %+v: not settled after %d events (clock %s)", spec.ID, set, f, w.Pos, w.Now.Clock())
	}
	r := Run{Summary: w.Summarize(""), World: w}
	n := w.Published()
	for len(k.notes) < n {
		k.notes = append(k.notes, note{})
	}
	for id := 0; id < n; id++ {
		nt := k.notes[id]
		if m, ok := w.Msg(int32(id)); ok {
			nt = note{m.Status, m.Effects, true}
		}
		switch {
		case !nt.seen:
			t.Errorf("%s: message %d: released without an event naming it", spec.ID, id)
		case nt.status == engine.StVisible || nt.status == engine.StInFlight || nt.status == engine.StHeld:
			r.States.Held++
			if nt.effects > 0 {
				r.States.HeldEffected++
			}
		case nt.status == engine.StDLQ:
			r.States.DLQ++
			if nt.effects > 0 {
				r.States.DLQEffected++
			}
		case nt.status == engine.StDeleted && nt.effects > 0:
			r.States.Done++
		case nt.status == engine.StDeleted:
			r.States.Lost++
		default:
			t.Errorf("%s: message %d: its record says %s — written to after it was released", spec.ID, id, nt.status)
		}
	}
	st := r.States
	if got := st.Held + st.Done + st.DLQ + st.Lost; got != r.Summary.Messages {
		t.Errorf("%s: %v adds up to %d, not the %d messages", spec.ID, st, got, r.Summary.Messages)
	}
	if st.DLQ != r.Summary.DLQ {
		t.Errorf("%s: %d messages in the DLQ, the summary says %d", spec.ID, st.DLQ, r.Summary.DLQ)
	}
	if eff := st.Done + st.DLQEffected + st.HeldEffected; eff != w.Stats.Effected {
		t.Errorf("%s: %d messages with an effect by state, %d by the world's count", spec.ID, eff, w.Stats.Effected)
	}
	if waiting, taken := w.Family().Counts(w); st.Held == 0 && (waiting != 0 || taken != 0) {
		t.Errorf("%s: nothing held, yet the family counts %d waiting and %d taken", spec.ID, waiting, taken)
	}
	return r
}

// Case is one row of a table of played runs: its knob settings from the
// start (knob, value pairs), its fork, and the Line it must end with.
type Case struct {
	Name string
	Set  []string
	Fork Fork
	Want string
}

// Table plays each case on spec under seed as a subtest, to the end or
// maxEvents events, and compares the run's Line, with figures, to the
// case's Want.
func Table(t *testing.T, spec *engine.Spec, seed uint64, maxEvents int64, figures []string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r := Play(t, spec, seed, Set(c.Set...), c.Fork, maxEvents)
			if got := Line(r, figures...); got != c.Want {
				t.Errorf("\n got %s\nwant %s", got, c.Want)
			}
		})
	}
}

// Line is a run's figures on one line, for a table's want column: the
// summary's counts, its end, the states, then the family's figures named.
func Line(r Run, figures ...string) string {
	s := r.Summary
	out := fmt.Sprintf("messages %d deliveries %d effects %d duplicates %d end %s | %v |",
		s.Messages, s.Deliveries, s.Effects, s.DuplicateEffects, s.End, r.States)
	for _, f := range figures {
		out += fmt.Sprintf(" %s %v", f, s.Figures[f])
	}
	return out
}

// CloneMidRun plays spec to clock mid, clones the world there, and plays
// the original and the clone to their ends, each alone: both must end as
// a straight run does (same events, same fingerprint, same figures). It is
// how a checkpoint of a run at extreme knobs is shown to hold the family's
// whole state.
func CloneMidRun(t testing.TB, spec *engine.Spec, seed uint64, set []engine.Setting, mid string, figures ...string) {
	t.Helper()
	straight := Play(t, spec, seed, set, Fork{}, -1)
	w := WorldAt(t, spec, seed, set, mid)
	c := w.Clone()
	for _, x := range []*engine.World{c, w} {
		x.RunTo(nil, -1)
		s := x.Summarize("")
		if x.Pos != straight.World.Pos || x.Fingerprint() != straight.World.Fingerprint() || !sameFigures(s, straight.Summary, figures) {
			t.Errorf("%s %v cloned at %s: %d events (straight %d), figures %v vs %v", spec.ID, set, mid, x.Pos, straight.World.Pos, s.Figures, straight.Summary.Figures)
		}
	}
}

func sameFigures(a, b engine.Summary, names []string) bool {
	for _, n := range names {
		if fmt.Sprint(a.Figures[n]) != fmt.Sprint(b.Figures[n]) {
			return false
		}
	}
	return a.Messages == b.Messages && a.Effects == b.Effects && a.DLQ == b.DLQ && a.End == b.End
}
