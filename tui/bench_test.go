package tui

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// bigSpec is thursday with an order every 10 ms, 20,000 orders and the same
// four slow workers: the queue grows by about a hundred a second.
func bigSpec(tb testing.TB) *engine.Spec {
	tb.Helper()
	base, err := incidents.Get("thursday")
	if err != nil {
		tb.Fatal(err)
	}
	s := *base
	s.Sources = append([]engine.Source(nil), base.Sources...)
	s.Sources[0].Every = 10 * engine.Millisecond
	s.Sources[0].Count = 20000
	if err := s.Params.Apply([]engine.Setting{{Knob: "orders", Value: "20000"}}); err != nil {
		tb.Fatal(err)
	}
	return &s
}

// bigModel is the explorer at 200×60 with about 10,000 messages queued.
func bigModel(tb testing.TB) Model {
	m := newTest(tb, Options{Spec: bigSpec(tb)}, 200, 60)
	for waiting, _ := m.x.World().Family().Counts(m.x.World()); waiting < 10_000; waiting, _ = m.x.World().Family().Counts(m.x.World()) {
		m.x.Step(1000)
		if m.x.AtEnd() {
			tb.Fatal("the big run ended before 10,000 were queued")
		}
	}
	m.at = m.x.World().Now
	m.refresh(true)
	return m
}

func BenchmarkView200x60Queue10k(b *testing.B) {
	m := bigModel(b)
	waiting, taken := m.x.World().Family().Counts(m.x.World())
	b.Logf("queue %d, in flight %d, pos %d", waiting, taken, m.x.Pos())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkPlayTickMax is one autoplay frame at full speed on the big run:
// the engine's slice plus the panes' refresh, all inside Update. It must
// stay well under the frame (50 ms) so that keys are answered between
// frames; "frames/op" is the share of a frame one costs. A benchmark, not a
// test: a busy machine's scheduler makes any wall-clock bound flaky.
//
//	go test ./tui -run '^$' -bench PlayTickMax -count 5
func BenchmarkPlayTickMax(b *testing.B) {
	m := bigModel(b)
	for m.play.speed < len(speeds)-1 {
		m = press(m, "+")
	}
	m = press(m, "space")
	from := m.x.Pos()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nm, _ := m.Update(playTickMsg{gen: m.play.gen})
		m = nm.(Model)
		if !m.play.on {
			b.StopTimer()
			m.x.Goto(from)
			m = press(m, "space")
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(frame), "frames/op")
}

// BenchmarkKeyWhilePlaying is a step key pressed during full-speed play.
func BenchmarkKeyWhilePlaying(b *testing.B) {
	m := bigModel(b)
	b.ResetTimer() // the big run's setup is not a key's
	for i := 0; i < b.N; i++ {
		m.play.on = true
		m.play.speed = len(speeds) - 1
		nm, _ := m.Update(keyMsg("l"))
		m = nm.(Model)
	}
}
