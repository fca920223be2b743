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
	spec, _ := incidents.Get("thursday")
	c, err := engine.ParseCode("thursday@1+orders=10000000#end.00000000")
	if err != nil {
		t.Skip("code form not accepted here:", err)
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
