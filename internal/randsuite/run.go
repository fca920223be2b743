package randsuite

import (
	"fmt"
	"strconv"

	"inflight/engine"
)

// Budget is the most events a case may take before the suite calls it a
// run that never ends: sixteen times the incident's own run and a million
// more, times the receive limit's share above 3 (every message may be
// delivered that many times). Runs that end by their own rule stay well
// inside it: galewatch re-sending every write until its 10-minute
// deadline takes 4.5 million events (12 times its own 372,000);
// christmas-friday's 880 messages each received a thousand times, 3.6
// million.
func (g *Gen) Budget(c Case) int64 {
	mult := int64(1)
	for _, s := range c.Settings() {
		if n, err := strconv.ParseInt(s.Value, 10, 64); s.Knob == "max_receives" && err == nil && n > 3 {
			mult = max(mult, n/3+1)
		}
	}
	return 16*g.Events*mult + 1_000_000
}

// bigRun: an incident whose own run is longer than this many events has
// no knob to shrink it (galewatch, stagefront): its random runs are few
// and check less.
const bigRun = 300_000

// Result is a checked run.
type Result struct {
	Case   Case
	Sum    engine.Summary
	World  *engine.World
	Counts Counts
	Errs   []string
	// Refused: the CLI would refuse the case (--at after the run's end).
	Refused bool
}

// Check runs the case through a Checker and returns what it found. With
// hash, the summary is the headless run's own, trace hash and all (as
// `inflight run` prints it), and the stepped run must match it event for
// event; without, it is the stepped world's, with no hash.
func (g *Gen) Check(c Case, hash bool) Result { return g.check(c, hash, nil) }

// tee hands each event to the checker and then to another sink.
type tee struct{ a, b engine.Sink }

func (t tee) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	t.a.Event(w, e, d)
	t.b.Event(w, e, d)
}

func (g *Gen) check(c Case, hash bool, also engine.Sink) Result {
	o := c.Options()
	o.MaxSteps = g.Budget(c)
	ck := NewChecker(c.Spec)
	// galewatch's and stagefront's runs are 370,000 to 800,000 events
	// each, every case: the broker's rules (about half again their
	// checking time) go with one case in eight of them
	ck.NoRules = g.Events > bigRun && c.Seed%8 != 0
	r := Result{Case: c}
	w, err := engine.NewWorld(c.Spec, o.Seed, o.Set)
	if err == nil && o.HasAt {
		err = w.ScheduleKnobs(o.At, o.AtSet)
	}
	if err != nil {
		r.Errs = []string{"invalid case: " + err.Error()}
		return r
	}
	// one event at a time, so the checker sees the world as each event
	// left it
	var sink engine.Sink = ck
	if also != nil {
		sink = tee{ck, also}
	}
	// the event budget alone stops a run: a wall-clock limit would make
	// the verdict depend on the machine's load
	for w.Pos < o.MaxSteps && w.Step(sink) {
	}
	r.World, r.Sum = w, w.Summarize("")
	if c.HasAt && c.At > w.Stats.LastEvent {
		// `inflight run` refuses a moment after the run's end (the change
		// would act on nothing): not a case
		r.Refused = true
		return r
	}
	if hash && w.Settled() {
		sum, rw, err := engine.Run(c.Spec, o)
		switch {
		case err != nil:
			ck.fail(nil, "the headless run: %v", err)
		case rw.Pos != w.Pos || rw.Fingerprint() != w.Fingerprint():
			ck.fail(nil, "stepped and headless runs differ: %d events (%x) vs %d (%x)", w.Pos, w.Fingerprint(), rw.Pos, rw.Fingerprint())
		default:
			r.Sum = sum
		}
	}
	r.Counts = ck.Finish(w, r.Sum)
	r.Errs = ck.Errs()
	return r
}

// CheckCode checks that the run's share code reproduces it: the same
// trace hash, opened through the explorer as `run --code` does.
func CheckCode(r Result) error {
	if r.Sum.TraceSHA256 == "" {
		return fmt.Errorf("no trace hash to compare (the run did not settle, or was checked without one)")
	}
	o := r.Case.Options()
	code := engine.RunCode(r.Case.Spec, o, r.World).String()
	parsed, err := engine.ParseCode(code)
	if err != nil {
		return fmt.Errorf("code %s does not parse: %v", code, err)
	}
	x, err := engine.OpenCode(parsed, r.Case.Spec)
	if err != nil {
		return fmt.Errorf("code %s does not open: %v", code, err)
	}
	if got := x.Summary(x.Branch()); got.TraceSHA256 != r.Sum.TraceSHA256 {
		return fmt.Errorf("code %s gives trace %s, the run %s", code, got.TraceSHA256[:12], r.Sum.TraceSHA256[:12])
	}
	return nil
}
