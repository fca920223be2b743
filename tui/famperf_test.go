package tui

import (
	"testing"

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

// BenchmarkFamilyStepFrame is a step and a frame on a family incident
// holding 200,000 messages: it should stay well within a frame.
//
//	go test ./tui -run '^$' -bench FamilyStepFrame
func BenchmarkFamilyStepFrame(b *testing.B) {
	m := newTest(b, Options{Spec: bigFamily(b)}, 200, 60)
	m = press(m, keysOf("/09:58:30")...)
	if n := m.x.World().Truth().HeldWithoutEffect(); n < 100_000 {
		b.Fatalf("only %d held", n)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m = press(m, "l")
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(frame), "frames/op")
}
