package stagelink

import (
	"io"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"inflight/stage"
)

// A presenter's process is given silentFor: heard from within it the
// stage stays as it is, silent past it the stage is lost, away and
// stopped. The link reads the silence off its clock, here the test's.
func TestPresenterSilence(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	s := stage.NewWithClock(func() time.Time { return now })
	l := &Link{stage: s, poll: s.Poll(), log: log.New(io.Discard), beats: map[string]beat{}, now: func() time.Time { return now }}
	code := "thursday@1/p1@19:40:00#1.00000000~2;n1=c"
	if err := s.Receive(stage.State{Code: code, Playing: true, Speed: 2, Clock: &stage.Anchor{Wall: now.UnixMilli()}}); err != nil {
		t.Fatal(err)
	}
	l.presenter, l.heardAt = "a", now
	for _, d := range []time.Duration{time.Millisecond, silentFor / 2, silentFor} {
		now = l.heardAt.Add(d)
		l.watch()
		if st, _ := s.State(); st.Away {
			t.Fatalf("silent for %s of the %s a presenter's process is given: the stage is away", d, silentFor)
		}
	}
	now = l.heardAt.Add(silentFor + time.Millisecond)
	l.watch()
	st, _ := s.State()
	if !st.Away || st.Clock == nil || st.Clock.Until != now.UnixMilli() || l.presenter != "" {
		t.Fatalf("silent past %s: away %v, clock %+v, presenter %q; want away, stopped now", silentFor, st.Away, st.Clock, l.presenter)
	}
}
