package stage

import (
	"sync"
	"testing"
	"time"

	"inflight/engine"
)

func TestStageConcurrent(t *testing.T) {
	s := New()
	if st, gen := s.State(); st.Code != "" || gen != 0 {
		t.Fatal("a new stage is not empty")
	}
	ch := s.Changed(0)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ch
			s.State()
		}()
	}
	s.Publish(State{Code: "a"})
	s.Publish(State{Code: "a"}) // no change, no new generation
	wg.Wait()
	if st, gen := s.State(); st.Code != "a" || gen != 1 {
		t.Fatalf("current %q %d", st.Code, gen)
	}
	select {
	case <-s.Changed(0):
	default:
		t.Fatal("Changed(old gen) is not closed")
	}
	select {
	case <-s.Changed(1):
		t.Fatal("Changed(current gen) is closed")
	default:
	}
	// the last presenter leaving says so; coming back clears it
	s.Arrive()
	s.Leave()
	if st, gen := s.State(); !st.Away || gen != 2 {
		t.Fatalf("away %v gen %d after the presenter left", st.Away, gen)
	}
	s.Arrive()
	if st, _ := s.State(); st.Away {
		t.Fatal("still away after the presenter came back")
	}
}

// The stage's clock is the clock it was given plus the offset the link
// measured, and a stage that stops stops at that clock's now.
func TestStageClockIsInjected(t *testing.T) {
	c := newClock()
	s := NewWithClock(c.Now)
	s.SetClockOffset(-4 * time.Second)
	if got, want := s.Now(), c.Now().Add(-4*time.Second); !got.Equal(want) {
		t.Fatalf("the stage's clock reads %v, want %v", got, want)
	}
	s.Publish(State{Code: codeA, Playing: true, Speed: 10, Clock: &Anchor{Wall: c.ms() - 4000}})
	s.Arrive()
	c.Add(90 * time.Second)
	s.Leave()
	st, _ := s.State()
	if want := c.ms() - 4000; st.Clock == nil || st.Clock.Until != want || !st.Away {
		t.Fatalf("the presenter left: clock %+v, want stopped at %d", st.Clock, want)
	}
	// a clock stopped stays where it stopped, however far the clock runs on
	c.Add(time.Hour)
	if at, ok := st.ClockTime(c.ms()); !ok || at != st.Clock.Until {
		t.Fatalf("a stopped stage shows stage time %d, want %d", at, st.Clock.Until)
	}
}

// Play anchored on the stage's clock shows the code's moment plus speed
// × the stage time since the anchor, never before the anchor.
func TestClockMoment(t *testing.T) {
	for _, tc := range []struct {
		speed    float64
		wall, t  int64
		at, want int64
	}{
		{1, 1000, 1000, 5, 5},
		{10, 1000, 1100, 5, 1005},
		{300, 1000, 2000, 0, 300_000},
		{2, 1000, 500, 7, 7}, // a clock behind the anchor's
	} {
		if got := ClockMoment(engine.Time(tc.at), tc.speed, tc.wall, tc.t); got != engine.Time(tc.want) {
			t.Errorf("%g× from %d at %d: %d, want %d", tc.speed, tc.wall, tc.t, got, tc.want)
		}
	}
}
