package tui

import (
	"slices"
	"testing"
	"time"

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
	s.Params.Orders = 20000
	return &s
}

// bigModel is the explorer at 200×60 with about 10,000 messages queued.
func bigModel(tb testing.TB) Model {
	m := newTest(tb, Options{Spec: bigSpec(tb)}, 200, 60)
	for m.x.World().QueueLen() < 10_000 {
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
	b.Logf("queue %d, in flight %d, pos %d", m.x.World().QueueLen(), len(m.x.World().Leased()), m.x.Pos())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkPlayTickMax is one autoplay frame at full speed on the big run:
// the engine's slice plus the panes' refresh, all inside Update.
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
}

// BenchmarkKeyWhilePlaying is a step key pressed during full-speed play.
func BenchmarkKeyWhilePlaying(b *testing.B) {
	m := bigModel(b)
	for i := 0; i < b.N; i++ {
		m.play.on = true
		m.play.speed = len(speeds) - 1
		nm, _ := m.Update(keyMsg("l"))
		m = nm.(Model)
	}
}

// TestTickWithinFrame: full-speed frames on the big run return within one
// frame, so keys are answered between frames. The median is checked; the
// worst is logged, since a shared machine's scheduler adds noise.
func TestTickWithinFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-order run")
	}
	m := bigModel(t)
	m.play.speed = len(speeds) - 1
	m = press(m, "space")
	var took []time.Duration
	for i := 0; i < 20 && m.play.on; i++ {
		t0 := time.Now()
		nm, _ := m.Update(playTickMsg{gen: m.play.gen})
		took = append(took, time.Since(t0))
		m = nm.(Model)
	}
	slices.Sort(took)
	med, worst := took[len(took)/2], took[len(took)-1]
	t.Logf("%d full-speed frames: median %s, slowest %s", len(took), med, worst)
	if med > frame {
		t.Fatalf("median full-speed frame took %s, over the %s frame", med, frame)
	}
}
