package engine_test

import (
	"errors"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

func thursdayX(t *testing.T) *engine.Explorer {
	t.Helper()
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

var workshop = engine.Limits{Events: 20_000_000, Bytes: 1 << 30, EventsFlag: "--max-events", BytesFlag: "--max-memory-mb"}

// The largest fork an attendee can type is refused up front, in one line
// naming the budget and the flag, before any of it is played.
func TestForkRefusedOverBudget(t *testing.T) {
	x := thursdayX(t)
	x.Limit(workshop, nil)
	x.End()
	x.Goto(x.Pos() / 2)
	_, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "orders", Value: "50000000"}}})
	var be *engine.BudgetError
	if !errors.As(err, &be) || be.What != "events" {
		t.Fatalf("fork of 50M orders: %v, want an events budget refusal", err)
	}
	want := "refused: this branch needs ~650M events, over the explorer's budget of 20M (raise with --max-events)"
	if err.Error() != want {
		t.Errorf("refusal line:\n got %s\nwant %s", err, want)
	}
	if len(x.Branches()) != 1 {
		t.Errorf("a refused fork left %d branches", len(x.Branches()))
	}
	// a fork within the budget is made
	if _, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "orders", Value: "1000"}}}); err != nil {
		t.Fatal(err)
	}
}

// Memory is estimated too: the leaf tables of a checkpoint every Every
// events grow with the messages, so a big branch costs far more than its
// events suggest.
func TestForkRefusedOverMemory(t *testing.T) {
	x := thursdayX(t)
	x.Limit(engine.Limits{Events: 1 << 40, Bytes: 64 << 20, BytesFlag: "--max-memory-mb"}, nil)
	_, err := x.Fork(engine.ForkOptions{Pos: 0, At: x.World().Now, Set: []engine.Setting{{Knob: "orders", Value: "5000000"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "refused: this branch needs ~") || !strings.Contains(err.Error(), "of memory, over the explorer's budget of 64 MB (raise with --max-memory-mb)") {
		t.Fatalf("got %v", err)
	}
}

// A branch that slips past the estimate is stopped while playing, at the
// budget, with the same kind of line.
func TestBudgetEnforcedWhilePlaying(t *testing.T) {
	x := thursdayX(t)
	x.Limit(engine.Limits{Events: 500, EventsFlag: "--max-events"}, nil)
	err := x.Run(nil, x.End)
	if err == nil || err.Error() != "stopped: this branch passed the explorer's budget of 500 events (raise with --max-events)" {
		t.Fatalf("got %v", err)
	}
	if x.Branch().Len() > 500 {
		t.Errorf("played to event %d, past the budget of 500", x.Branch().Len())
	}
	// outside Run nothing is enforced: headless callers are unchanged
	x.End()
	if !x.AtEnd() {
		t.Error("End outside Run did not reach the end")
	}
}

// Work on a clone leaves the original as it was, and a cancelled Run
// returns ErrCancelled at once.
func TestCloneIndependentAndCancel(t *testing.T) {
	x := thursdayX(t)
	x.Goto(100)
	c := x.Clone()
	c.End()
	if x.Pos() != 100 || c.Pos() == 100 {
		t.Fatalf("original at %d, clone at %d", x.Pos(), c.Pos())
	}
	if _, err := c.Fork(engine.ForkOptions{Pos: c.Pos() - 10, At: 0}); err != nil {
		t.Fatal(err)
	}
	if len(x.Branches()) != 1 || len(c.Branches()) != 2 {
		t.Fatalf("branches: original %d, clone %d", len(x.Branches()), len(c.Branches()))
	}
	// the original still plays the same run as a fresh explorer
	x.End()
	want := thursdayX(t)
	want.End()
	if x.Pos() != want.Pos() || x.Code().String() != want.Code().String() {
		t.Errorf("original after the clone's work: %s, want %s", x.Code(), want.Code())
	}

	big := thursdayX(t)
	if _, err := big.Fork(engine.ForkOptions{Pos: 0, Set: []engine.Setting{{Knob: "orders", Value: "1000000"}}}); err != nil {
		t.Fatal(err)
	}
	m := engine.NewMeter()
	m.Cancel()
	if err := big.Run(m, big.End); !errors.Is(err, engine.ErrCancelled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if m.Done() > 1024 {
		t.Errorf("a cancelled run played %d events", m.Done())
	}
}

// A share code is held to the budget too, before it is played.
func TestCodeRefusedOverBudget(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.ParseCode("thursday@1+orders=10000000#end.00000000")
	if err != nil {
		t.Fatalf("the code does not parse: %v", err)
	}
	_, err = engine.OpenCodeWithin(c, spec, workshop, nil, engine.NewMeter())
	var be *engine.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a budget refusal", err)
	}
}

// A pool shared by explorers refuses what would take it past its bytes.
func TestPoolRefuses(t *testing.T) {
	p := &engine.Pool{Bytes: 8 << 20, Flag: "--server-memory-mb"}
	x := thursdayX(t)
	x.Limit(workshop, p)
	_, err := x.Fork(engine.ForkOptions{Pos: 0, Set: []engine.Setting{{Knob: "orders", Value: "1000000"}}})
	var be *engine.BudgetError
	if !errors.As(err, &be) || be.What != "server memory" {
		t.Fatalf("got %v", err)
	}
}

// A memory budget looks at the world between slices of events: the run
// is the same, byte for byte, as one without it.
func TestMemoryBudgetSameTrace(t *testing.T) {
	for _, id := range []string{"thursday", "cashback", "christmas-friday"} {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		set := []engine.Setting{}
		if id == "thursday" {
			set = append(set, engine.Setting{Knob: "orders", Value: "20000"}) // many slices
		}
		free, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set})
		if err != nil {
			t.Fatal(err)
		}
		held, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set, Budget: engine.Budget{Bytes: 1 << 30}})
		if err != nil {
			t.Fatal(err)
		}
		if free.TraceSHA256 != held.TraceSHA256 || free.Events != held.Events {
			t.Errorf("%s: %s (%d events) under a memory budget, %s (%d) without", id, held.TraceSHA256, held.Events, free.TraceSHA256, free.Events)
		}
	}
}

// A run whose world outgrows its memory budget stops at the same event
// every time, with the budget's line; the summary so far is consistent.
func TestMemoryBudgetStopsRun(t *testing.T) {
	// every order at once under a lease of a millisecond: the world
	// holds every message
	spec := everyOrderAtOnce(t)
	var set []engine.Setting
	var at []int64
	for range 2 {
		sum, w, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set, Budget: engine.Budget{Bytes: 16 << 20, BytesFlag: "--max-memory-mb"}})
		var be *engine.BudgetError
		if !errors.As(err, &be) || err.Error() != "stopped: the run passed its memory budget of 16 MB (raise with --max-memory-mb)" {
			t.Fatalf("err %v, want the run's memory stop", err)
		}
		if w.Footprint() <= 16<<20 || sum.Events != w.Pos {
			t.Errorf("stopped at a footprint of %d, %d events (summary %d)", w.Footprint(), w.Pos, sum.Events)
		}
		at = append(at, w.Pos)
	}
	if at[0] != at[1] {
		t.Errorf("stopped at events %v", at)
	}
}

// The chart's pass plays a world of its own: its meter's account stops
// it, in the account's line, when the world outgrows it.
func TestChartPassMemory(t *testing.T) {
	spec := everyOrderAtOnce(t)
	w, err := engine.NewWorld(spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := engine.NewMeter()
	m.Memory = engine.NewAccount(engine.Limits{Bytes: 16 << 20, BytesFlag: "--session-max-memory-mb"}, nil)
	m.Memory.Of = "the chart's pass"
	_, _, err = engine.ChartRun(w, 0, m, nil)
	if err == nil || err.Error() != "stopped: the chart's pass passed its memory budget of 16 MB (raise with --session-max-memory-mb)" {
		t.Fatalf("err %v, want the chart's memory stop", err)
	}
}

// everyOrderAtOnce is two million orders at one moment under a lease of a
// millisecond: a world that holds every message and outgrows any small
// memory budget.
func everyOrderAtOnce(t *testing.T) *engine.Spec {
	t.Helper()
	spec, err := incidents.Parse("big.yaml", []byte(`id: big
title: "Two million at once"
story: every order at the same moment, a lease of a millisecond
label: order
start: "19:40:20"
sources:
  - {name: orders, start: "19:40:20", every: 0s, count: 2000000}
broker: {mode: standard, visibility_timeout: 1ms, max_receives: 1000, late_ack: refuse}
workers: {boxes: [A], per_box: 64, restart_after: 2s}
handler: {ack: after}
provider: {latency_min: 31s, latency_max: 40s}
`))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
