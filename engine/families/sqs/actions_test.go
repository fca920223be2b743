package sqs_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/sqs"
)

// runDo plays id with acts at the clock at and returns the summary, the
// world at its end and the fork's events (from its first on).
func runDo(t *testing.T, id, at string, acts ...string) (engine.Summary, *engine.World, engine.RunOptions) {
	t.Helper()
	spec := familytest.Incident(t, id)
	o := engine.RunOptions{Seed: spec.Seed, HasAt: true, At: familytest.Clock(t, at), AtDo: familytest.Acts(t, acts...)}
	sum, w, err := engine.Run(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	sum.Code = engine.RunCode(spec, o, w).String()
	return sum, w, o
}

// The new actions' figures and what they leave of the queue, the DLQ and
// the workers, each with the code that reproduces it.
func TestQueueActions(t *testing.T) {
	for _, tc := range []struct {
		id, at string
		acts   []string
		fork   string
		// effects, duplicates, dlq, lost, messages redriven
		effects, dupes, dlq, lost, redriven int64
		workers                             string // each worker's state at the end
	}{
		// PurgeQueue deletes the visible messages and those in flight: the
		// ordered queue's 153 behind its poison head and the one held
		{"christmas-friday", "17:00:00", []string{"purge"}, "purge 154 messages (1 in flight) @17:00:00", 720, 0, 6, 154, 0, "idle idle idle idle"},
		// thursday's queue is empty at 20:30: the two in flight go, their
		// workers' acks delete nothing, and their emails had left
		{"thursday", "20:30:00", []string{"purge"}, "purge 2 messages (2 in flight) @20:30:00", 322, 214, 106, 0, 0, "idle idle idle idle"},
		// the repair script at a moment of one's choosing: the three in
		// the drawer by 16:55 go through; the script never fires, the DLQ
		// never holding forty again, so the other 37 stay there
		{"christmas-friday", "16:55:00", []string{"repair"}, "repair and redrive 3 dead letters @16:55:00", 843, 0, 37, 0, 3, "idle idle idle idle"},
		// a plain redrive of the 39 before the script: unrepaired, each
		// fails three times more, and the script repairs them when the
		// drawer holds forty again
		{"christmas-friday", "17:50:00", []string{"redrive"}, "redrive 39 dead letters @17:50:00", 880, 0, 0, 0, 79, "idle idle idle idle"},
		// the incident without its script: the forty stay in the drawer
		{"christmas-friday", "16:45:00", []string{"no_script"}, "no repair script @16:45:00", 840, 0, 40, 0, 0, "idle idle idle idle"},
		// a wedged worker stays busy for good: no supervisor restarts a
		// process that is alive
		{"thursday", "19:52:00", []string{"wedge=B2"}, "wedge B2's next call @19:52:00", 324, 216, 108, 0, 0, "idle idle idle busy"},
		// idle workers stop at once, the newest first; a busy one after
		// its message
		{"thursday", "19:45:00", []string{"workers=-3"}, "stop 3 workers (B2, B1, A2 after its message) @19:45:00", 324, 216, 108, 0, 0, "idle stopped stopped stopped"},
		// stop, then add: new workers take new names
		{"thursday", "19:45:00", []string{"workers=-1", "workers=+1"}, "stop 1 worker (B2); add 1 worker @19:45:00", 324, 216, 108, 0, 0, "idle idle idle stopped idle"},
	} {
		sum, w, _ := runDo(t, tc.id, tc.at, tc.acts...)
		name := tc.id + " " + strings.Join(tc.acts, " ")
		if len(sum.Forks) != 1 || sum.Forks[0].Name != tc.fork {
			t.Errorf("%s: forks %+v, want %q", name, sum.Forks, tc.fork)
		}
		if sum.Effects != tc.effects || sum.DuplicateEffects != tc.dupes || sum.DLQ != tc.dlq || sum.Lost != tc.lost || w.Stats.Redriven != tc.redriven {
			t.Errorf("%s: effects %d, duplicates %d, dlq %d, lost %d, redriven %d; want %d, %d, %d, %d, %d",
				name, sum.Effects, sum.DuplicateEffects, sum.DLQ, sum.Lost, w.Stats.Redriven, tc.effects, tc.dupes, tc.dlq, tc.lost, tc.redriven)
		}
		var states []string
		for _, wk := range sqs.Of(w).Workers() {
			states = append(states, wk.State.String())
		}
		if got := strings.Join(states, " "); got != tc.workers {
			t.Errorf("%s: workers end %s, want %s", name, got, tc.workers)
		}
		// the code reproduces the run, its fork named the same
		c, err := engine.ParseCode(sum.Code)
		if err != nil {
			t.Fatalf("%s: code %s: %v", name, sum.Code, err)
		}
		again, _, err := engine.ReplayCode(familytest.Incident(t, tc.id), c, engine.ReplayOptions{})
		if err != nil {
			t.Fatalf("%s: code %s: %v", name, sum.Code, err)
		}
		if again.TraceSHA256 != sum.TraceSHA256 || len(again.Forks) != 1 || again.Forks[0].Name != tc.fork {
			t.Errorf("%s: code %s replays %s %+v, the run was %s", name, sum.Code, again.TraceSHA256, again.Forks, sum.TraceSHA256)
		}
	}
}

// The events an action leaves in the trace, read through the captions.
func TestQueueActionEvents(t *testing.T) {
	for _, tc := range []struct {
		id, at string
		acts   []string
		want   []string
	}{
		{"christmas-friday", "17:00:00", []string{"purge"}, []string{"an operator purges the queue: 154 messages deleted, 1 of them in flight"}},
		{"christmas-friday", "16:55:00", []string{"repair"}, []string{"an operator runs the repair script: it repairs the 3 dead letters",
			"the repair script gave it its missing field and an operator redrove it from the dead letter queue"}},
		// the next call, order 14's: it wedges when its answer was due,
		// 19:52:34, after the lease ran out and A2 took it
		{"thursday", "19:52:00", []string{"wedge=B2"}, []string{"an operator wedges worker B2's next call: it will never return",
			"a redelivery: a timer expired while B2 still worked on it, nothing failed",
			"an operator wedges worker B2's call for order 14: it never returns"}},
		{"thursday", "19:52:10", []string{"wedge=B2"}, []string{"an operator wedges worker B2's call for order 14: it never returns",
			"a redelivery: B2's call is wedged and its lease ran out"}},
		{"thursday", "19:45:00", []string{"workers=-3"}, []string{"an operator stops worker B2, idle", "an operator stops worker B1, idle",
			"an operator stops worker A2: it stops once its message is done",
			"worker A2's handler has ended: it stops, as an operator asked"}},
		{"thursday", "19:52:10", []string{"crash=B2"}, []string{"an operator kills worker B2 holding order 14",
			"a redelivery: an operator killed B2, which died holding it, and its lease ran out"}},
	} {
		spec := familytest.Incident(t, tc.id)
		clock, do := familytest.Clock(t, tc.at), familytest.Acts(t, tc.acts...)
		var captions []string
		w := familytest.World(t, spec)
		if err := w.ScheduleActions(clock, do); err != nil {
			t.Fatal(err)
		}
		sink := captionSink(func(s string) { captions = append(captions, s) })
		for w.Step(sink) {
		}
		all := strings.Join(captions, "\n")
		for _, want := range tc.want {
			if !strings.Contains(all, want) {
				t.Errorf("%s %v: no caption with %q", tc.id, tc.acts, want)
			}
		}
	}
}

type captionSink func(string)

func (f captionSink) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w.Caption(e, d)) }

// Refused arguments, each naming what is wrong.
func TestQueueActionsRefused(t *testing.T) {
	spec := familytest.Incident(t, "thursday")
	w := familytest.World(t, spec)
	for s, want := range map[string]string{
		"purge=all":    `action "purge=all": purge takes no argument`,
		"repair=x":     `action "repair=x": repair takes no argument`,
		"wedge":        "action wedge: give wedge=WORKER",
		"wedge=C1":     `action "wedge=C1": incident thursday has no worker "C1" (its workers are A1, A2, B1, B2)`,
		"workers=-4":   `action "workers=-4": 4 workers in service, and stopping 4 leaves none (at least one stays)`,
		"workers=-65":  `action "workers=-65": want +N or -N with N from 1 to 64`,
		"workers=4":    `action "workers=4": want +N to add workers or -N to stop them (like workers=+2, workers=-1)`,
		"workers=+61":  `action "workers=+61": 4 workers started and 61 more is more than 64`,
		"redrive=some": `action "redrive=some": redrive takes all the dead letters, or =unfinished for those whose work was never done`,
		"no_script":    `action "no_script": incident thursday's actions are redrive, repair, purge, crash, wedge, workers`,
	} {
		a, err := engine.ParseAction(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := w.CheckActions([]engine.Action{a}); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", s, err, want)
		}
	}
	// a worker stopped, or wedged, takes no second stop or wedge
	sum, end, _ := runDo(t, "thursday", "19:45:00", "workers=-1", "wedge=A1")
	_ = sum
	for s, want := range map[string]string{
		"wedge=B2":   `action "wedge=B2": worker B2 is not running at 21:16:19.835 (stopped at 19:45:00 by workers=-N)`,
		"crash=B2":   `action "crash=B2": worker B2 is not running at 21:16:19.835 (stopped at 19:45:00 by workers=-N)`,
		"wedge=A1":   `action "wedge=A1": worker A1's call is wedged already at 21:16:19.835`,
		"workers=-3": `action "workers=-3": 3 workers in service, and stopping 3 leaves none (at least one stays)`,
	} {
		a, _ := engine.ParseAction(s)
		if err := end.CheckActions([]engine.Action{a}); err == nil || err.Error() != want {
			t.Errorf("after workers=-1: %s: %v, want %s", s, err, want)
		}
	}
}

// A crash or a wedge of a worker that is not running is refused, one line
// naming the worker, what it is and the moment, wherever the moment is
// given: run --at CLOCK (whose actions wait at the start for their clock)
// with and without a trace, run --at mid-clock, the explorer's fork, a
// share code's fork at a clock. christmas-friday's A1 dies of a KeyError
// at 16:50:00 (event 43) and is back at 16:50:02; B1 runs on.
func TestCrashNotRunning(t *testing.T) {
	spec := familytest.Incident(t, "christmas-friday")
	dead := `worker A1 is not running at 16:50:01 (crashed at 16:50:00, down until 16:50:02)`
	for _, do := range []string{"crash=A1", "wedge=A1"} {
		want := `action "` + do + `": ` + dead
		var trace bytes.Buffer
		for _, o := range []engine.RunOptions{
			{Seed: spec.Seed, HasAt: true, At: familytest.Clock(t, "16:50:01"), AtDo: familytest.Acts(t, do)},
			{Seed: spec.Seed, HasAt: true, At: familytest.Clock(t, "16:50:01"), AtDo: familytest.Acts(t, do), Trace: &trace},
			{Seed: spec.Seed, HasAt: true, At: familytest.Clock(t, "16:50:00"), AtMid: true, AtPos: 44, AtDo: familytest.Acts(t, do)},
		} {
			_, _, err := engine.Run(spec, o)
			var me *engine.MomentError
			w := strings.Replace(want, "16:50:01", o.At.Short(), 1)
			if !errors.As(err, &me) || err.Error() != w {
				t.Errorf("run --at %s #%d --do %s: %v, want %s", o.At.Short(), o.AtPos, do, err, w)
			}
		}
		if trace.Len() > 0 {
			t.Errorf("--do %s: a refused run wrote %d bytes of trace", do, trace.Len())
		}
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		at := familytest.Clock(t, "16:50:01")
		pos := x.PosAtTime(x.Branch(), at)
		x.Goto(pos)
		if _, err := x.Fork(engine.ForkOptions{Pos: pos, At: at, Actions: familytest.Acts(t, do)}); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("explorer fork at 16:50:01 --do %s: %v, want %s", do, err, want)
		}
		if _, err := x.Fork(engine.ForkOptions{Pos: pos, At: at, Actions: familytest.Acts(t, strings.Replace(do, "A1", "B1", 1))}); err != nil {
			t.Errorf("explorer fork at 16:50:01 --do %s on B1: %v", do, err)
		}
		c, err := engine.ParseCode("christmas-friday@1/@16:50:01;do=" + do + "#end.00000000")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{}); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("code fork at 16:50:01 --do %s: %v, want %s", do, err, want)
		}
	}
	// a fork that lengthens restart_after while A1 is down moves later
	// restarts, not the one its crash scheduled
	slow := engine.RunOptions{Seed: spec.Seed, HasAt: true, At: familytest.Clock(t, "16:50:01"), AtSet: familytest.Set("restart_after", "10s"), AtDo: familytest.Acts(t, "crash=A1")}
	if _, _, err := engine.Run(spec, slow); err == nil || !strings.HasSuffix(err.Error(), dead) {
		t.Errorf("crash=A1 with restart_after=10s at 16:50:01: %v, want %s", err, dead)
	}
	// the explorer's fork at the first moment, before any event: refused
	// now, as run --at is, not skipped when the action comes due
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := `action "crash=A1": worker A1 is not running at 16:50:00 (not started yet, it starts at 16:50:00: a fork's actions there go before its start)`
	if _, err := x.Fork(engine.ForkOptions{Pos: 0, At: familytest.Clock(t, "16:50:00"), Actions: familytest.Acts(t, "crash=A1")}); err == nil || !strings.HasSuffix(err.Error(), start) {
		t.Errorf("explorer fork at event 0 --do crash=A1: %v, want %s", err, start)
	}
	// before the workers start, at their start's clock (the action goes
	// first) and once the supervisor has it back
	for at, want := range map[string]string{
		"16:50:00": `action "crash=A1": worker A1 is not running at 16:50:00 (not started yet, it starts at 16:50:00: a fork's actions there go before its start)`,
		"16:50:02": `action "crash=A1": worker A1 is not running at 16:50:02 (crashed at 16:50:00, down until 16:50:02: a fork's actions there go before its restart)`,
		"16:50:03": "",
	} {
		_, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: familytest.Clock(t, at), AtDo: familytest.Acts(t, "crash=A1")})
		if got := ""; err != nil {
			got = err.Error()
			if got != want {
				t.Errorf("crash=A1 at %s: %q, want %q", at, got, want)
			}
		} else if want != "" {
			t.Errorf("crash=A1 at %s taken, want %q", at, want)
		}
	}
}

// Any action on christmas-friday as its workers start (16:50:00, A1's
// crash among the events after): refused in one line naming it, or taken
// and played with its captions.
func FuzzQueueAction(f *testing.F) {
	familytest.FuzzActionArg(f, familytest.Incident(f, "christmas-friday"), familytest.FuzzArg{Until: 16*engine.Hour + 50*engine.Minute, Steps: 200},
		"crash=A1", "wedge=A1", "crash=B1", "wedge=B2", "workers=-2", "workers=+1", "redrive", "purge", "crash=Z9")
}
