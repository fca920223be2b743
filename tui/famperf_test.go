package tui

import (
	"testing"
	"time"

	"inflight/engine"
	"inflight/incidents"
)

// bigFamily is db-down with 200,000 events a millisecond apart: the
// consumer (20 a second) falls so far behind that nearly all of them are
// held at once — the worst case for the running lost figure's scan.
func bigFamily(tb testing.TB) *engine.Spec {
	tb.Helper()
	base, err := incidents.Get("db-down")
	if err != nil {
		tb.Fatal(err)
	}
	s := *base
	s.Sources = append([]engine.Source(nil), base.Sources...)
	s.Sources[0].Every = engine.Millisecond
	s.Sources[0].Count = 200_000
	return &s
}

// TestFamilyKeyLatency checks that a key stays well within a frame on
// a family incident holding 200,000 messages.
func TestFamilyKeyLatency(t *testing.T) {
	m := newTest(t, Options{Spec: bigFamily(t)}, 200, 60)
	m = press(m, keysOf("/09:58:30")...)
	if n := m.x.World().HeldWithoutEffect(); n < 100_000 {
		t.Fatalf("only %d held", n)
	}
	start := time.Now()
	const n = 20
	for i := 0; i < n; i++ {
		m = press(m, "l")
		_ = m.View()
	}
	if per := time.Since(start) / n; per > 200*time.Millisecond {
		t.Fatalf("a step and a frame take %v with 200,000 held", per)
	} else {
		t.Logf("a step and a frame take %v with 200,000 held", per)
	}
}
