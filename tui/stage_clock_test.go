package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"inflight/engine"
	"inflight/stage"
)

// onStage is a presenter on s at the second bookmark, at speed index sp,
// playing (the state on stage anchored) unless sp is max.
func onStage(t *testing.T, s *Stage, sp int) Model {
	t.Helper()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "]", "]")
	for p.play.speed < sp {
		p = press(p, "+")
	}
	for p.play.speed > sp {
		p = press(p, "-")
	}
	p = press(p, "space")
	if !p.play.on || p.play.speed != sp {
		t.Fatalf("not playing at %g×", speeds[sp])
	}
	return p
}

// tick delivers one autoplay frame to the presenter.
func tick(p Model) Model {
	nm, _ := p.Update(playTickMsg{gen: p.play.gen})
	return nm.(Model)
}

// clocked is the state on stage, which must be anchored, and its code.
func clocked(t *testing.T, s *Stage) (stage.State, engine.Code, uint64) {
	t.Helper()
	st, gen := s.State()
	if st.Clock == nil || st.Clock.Wall == 0 {
		t.Fatalf("the stage plays at %g× without a clock: %+v", st.Speed, st)
	}
	c, err := engine.ParseCode(st.Code)
	if err != nil || !c.HasAt {
		t.Fatalf("the anchor's code %q does not give its clock (%v)", st.Code, err)
	}
	return st, c, gen
}

var ascii = colours{profile: termenv.Ascii}

// seen is the moment a follower of s sees at stage time now: the copy it
// takes when it detaches there, and the clock that copy shows.
func seen(t *testing.T, s *Stage, now int64) (*engine.Explorer, engine.Time) {
	t.Helper()
	x, st := s.copyExplorer(ascii, NewShared(DefaultBudget(), nil, 0), now)
	if x == nil {
		t.Fatal("nothing on stage to copy")
	}
	c, err := engine.ParseCode(st.Code)
	if err != nil {
		t.Fatal(err)
	}
	if x.Pos() != c.Cursor {
		t.Fatalf("the copy is at event %d, its code at %d", x.Pos(), c.Cursor)
	}
	at := x.World().Now
	if c.HasAt {
		at = c.At
	}
	return x, at
}

// playedTo checks that x stands where play to clock at leaves a cursor:
// every event at or before at stepped, none after.
func playedTo(t *testing.T, x *engine.Explorer, at engine.Time) {
	t.Helper()
	if now := x.World().Now; now > at {
		t.Fatalf("the cursor's event is at %s, after the moment %s", now.Clock(), at.Clock())
	}
	if next, ok := peek(x); ok && next <= at {
		t.Fatalf("the event at %s is not stepped at the moment %s", next.Clock(), at.Clock())
	}
}

// last is the frame a stage drew last.
func last(s *Stage) string {
	for _, d := range s.frames.byKey {
		return d.v
	}
	return ""
}

// endOf is the time of the last event of x's branch.
func endOf(x *engine.Explorer) engine.Time {
	c := x.Clone()
	c.End()
	return c.World().Now
}

// A follower's moment at stage time t is the code's clock plus speed ×
// (t − wall), whatever the speed, the stage clock's offset from this
// process's, or how far from the anchor; capped at the branch's end, and
// held where the clock stopped.
func TestStageClockMoment(t *testing.T) {
	for _, tc := range []struct {
		speed  int // index into speeds
		offset time.Duration
	}{{0, 0}, {2, 3 * time.Second}, {3, -90 * time.Minute}, {5, 250 * time.Millisecond}, {7, 48 * time.Hour}} {
		t.Run(fmt.Sprintf("%g×%+v", speeds[tc.speed], tc.offset), func(t *testing.T) {
			s, clk := clockedStage()
			s.SetClockOffset(tc.offset)
			s.Arrive()
			p := onStage(t, s, tc.speed)
			st, c, _ := clocked(t, s)
			if want := stageMs(clk.Now().Add(tc.offset)); st.Clock.Wall != want {
				t.Fatalf("the anchor is at %d, the stage's clock at %d", st.Clock.Wall, want)
			}
			x0, _ := seen(t, s, st.Clock.Wall)
			end := endOf(x0)
			for _, dt := range []int64{0, 1, 99, 100, 1234, 5000, 60_000, 3_600_000} {
				want := c.At + engine.Time(speeds[tc.speed]*float64(dt))
				x, at := seen(t, s, st.Clock.Wall+dt)
				if want >= end { // the clock has passed the branch's end
					if at != max(end, c.At) || !x.AtEnd() {
						t.Fatalf("%d ms on: at %s (end %v), want the branch's end %s", dt, at.Clock(), x.AtEnd(), end.Clock())
					}
					continue
				}
				if at != want {
					t.Fatalf("%d ms on: the follower shows %s, want %s + %g × %d ms = %s", dt, at.Clock(), c.At.Clock(), speeds[tc.speed], dt, want.Clock())
				}
				playedTo(t, x, at)
			}
			// a stage clock behind the anchor's shows the anchor's moment
			if _, at := seen(t, s, st.Clock.Wall-500); at != c.At {
				t.Fatalf("before the anchor: %s, want %s", at.Clock(), c.At.Clock())
			}
			// the presenter leaves: the clock stops, and so does the moment
			clk.Add(1234 * time.Millisecond)
			p.Release()
			s.Leave()
			st, _ = s.State()
			if st.Clock == nil || st.Clock.Until != st.Clock.Wall+1234 || !st.Away {
				t.Fatalf("leaving did not stop the clock: %+v", st.Clock)
			}
			_, stopped := seen(t, s, st.Clock.Until)
			for _, dt := range []int64{1, 100, 60_000} {
				if _, at := seen(t, s, st.Clock.Until+dt); at != stopped {
					t.Fatalf("%d ms after the clock stopped the follower shows %s, not %s", dt, at.Clock(), stopped.Clock())
				}
			}
			if want := min(max(end, c.At), c.At+engine.Time(speeds[tc.speed]*float64(st.Clock.Until-st.Clock.Wall))); stopped != want {
				t.Fatalf("stopped at %s, want %s", stopped.Clock(), want.Clock())
			}
		})
	}
}

// Two processes' stages, fed the same state, draw the same frame for the
// same beat of the stage's clock, however their own clocks differ from
// it; and each beat's frame shows that beat's moment.
func TestStageClockTwoProcesses(t *testing.T) {
	s, clk := clockedStage()
	p := onStage(t, s, 3)
	defer p.Release()
	st, c, _ := clocked(t, s)
	a, b := &Stage{Stage: stage.NewWithClock(clk.Now)}, &Stage{Stage: stage.NewWithClock(clk.Now)}
	defer a.Close()
	defer b.Close()
	a.SetClockOffset(2500 * time.Millisecond)
	b.SetClockOffset(-4 * time.Second)
	a.Receive(st)
	b.Receive(st)
	sh := NewShared(DefaultBudget(), nil, 0)
	first := beatOf(st.Clock.Wall)
	// The whole-run chart is shared by both processes' mirrors, and the
	// status line's widths follow its maxima: let its pass finish first,
	// so that neither frame is a draft drawn while it filled in.
	a.frame(100, 30, ascii, sh, first)
	if cur := a.frames.mirrors[ascii].m.charts.cur; cur != nil {
		<-cur.ready
	}
	a.frames.byKey = nil // the draft drawn before the chart was whole
	var firstFrame string
	for i := range int64(6) {
		beat := first + i*stageBeat.Milliseconds()
		fa, ga, ba, _, _ := a.frame(100, 30, ascii, sh, beat)
		fb, gb, bb, _, _ := b.frame(100, 30, ascii, sh, beat)
		if fa == "" || fa != fb || ga != gb || ba != beat || bb != beat {
			t.Fatalf("beat %d: the two processes drew different frames (beats %d, %d):\n%s\n%s", i, ba, bb, fa, fb)
		}
		want := stage.ClockMoment(c.At, st.Speed, st.Clock.Wall, beat)
		for _, sg := range []*Stage{a, b} {
			if at := sg.frames.mirrors[ascii].m.at; at != want {
				t.Fatalf("beat %d: the frame shows %s, want %s", i, at.Clock(), want.Clock())
			}
		}
		if i == 0 {
			firstFrame = fa
		}
	}
	if _, _, _, _, _ = a.frame(100, 30, ascii, sh, first+5*stageBeat.Milliseconds()); firstFrame == last(a) {
		t.Fatal("five beats of play at 10× drew the same frame")
	}
	// a follower late for its beat takes the newer frame: no going back
	_, _, late, _, _ := a.frame(100, 30, ascii, sh, first)
	if late != first+5*stageBeat.Milliseconds() {
		t.Fatalf("a late follower got the beat %d", late-first)
	}

	// a follower on each, their stage clocks agreeing, wakes on the
	// clock's beats with nothing new received, and a beat's frame is the
	// same on both
	b.SetClockOffset(2500 * time.Millisecond)
	fa := newTest(t, Options{Stage: a, Follow: true}, 100, 30)
	fb := newTest(t, Options{Stage: b, Follow: true}, 100, 30)
	defer fa.Release()
	defer fb.Release()
	fa, wa := sync1(t, fa, fa.Init())
	fb, wb := sync1(t, fb, fb.Init())
	compared := 0
	for range 3 {
		clk.Add(stageBeat) // the next beat is due: the waits end on it
		ba, bb := fa.follower.beat, fb.follower.beat
		fa, wa = sync1(t, fa, wa)
		fb, wb = sync1(t, fb, wb)
		if fa.follower.beat <= ba || fb.follower.beat <= bb || fa.follower.gen != fb.follower.gen {
			t.Fatalf("the followers did not move on the beat: %d→%d, %d→%d", ba, fa.follower.beat, bb, fb.follower.beat)
		}
		for _, f := range []Model{fa, fb} {
			other, _, _, _, _ := a.frame(100, 30, f.follower.colours, sh, f.follower.beat)
			if f.follower.beat != a.frames.at { // a is on a later beat already
				continue
			}
			if compared++; body(followerView(f)) != body(other) {
				t.Fatalf("beat %d: the two processes' followers differ", f.follower.beat)
			}
		}
	}
	if compared < 3 {
		t.Fatalf("only %d beats compared", compared)
	}
}

// While the presenter plays at a set speed nothing is published: the
// generation stays, followers wake on the stage clock's beats; a new
// speed, a selection or a step re-anchors, once; "max" publishes frames.
func TestStageClockPublishes(t *testing.T) {
	s, clk := clockedStage()
	p := onStage(t, s, 2)
	defer p.Release()
	_, c0, gen := clocked(t, s)
	at := p.at
	for range 12 {
		clk.Add(15 * time.Millisecond)
		p = tick(p)
	}
	if p.at <= at {
		t.Fatal("play did not move")
	}
	if _, g := s.State(); g != gen {
		t.Fatalf("playing moved the generation %d times", g-gen)
	}
	// followers still move, on the stage clock's beats
	f := newTest(t, Options{Stage: s, Follow: true}, 100, 30)
	defer f.Release()
	f, wait := sync1(t, f, f.Init())
	b1, g1 := f.follower.beat, f.follower.gen
	_, at1 := seen(t, s, b1)
	f, _ = sync1(t, f, wait)
	_, at2 := seen(t, s, f.follower.beat)
	if f.follower.gen != g1 || f.follower.beat < b1+stageBeat.Milliseconds() || at2 <= at1 {
		t.Fatalf("the follower's second frame: gen %d→%d, beat +%d ms, moment %s→%s", g1, f.follower.gen, f.follower.beat-b1, at1.Clock(), at2.Clock())
	}
	// a follower who detaches takes the moment of its last frame
	x, want := seen(t, s, f.follower.beat)
	f = press(f, "y")
	if f.follower.on || f.at != want || f.x.Pos() != x.Pos() {
		t.Fatalf("detached at %s (event %d), the frame showed %s (event %d)", f.at.Clock(), f.x.Pos(), want.Clock(), x.Pos())
	}

	// each of these re-anchors once, and ticks after it publish nothing
	for _, k := range []string{"+", "down", "-"} {
		p = press(p, k)
		st, c, g := clocked(t, s)
		if g != gen+1 || c.At != p.at || st.Speed != speeds[p.play.speed] || c.Cursor != p.x.Pos() {
			t.Fatalf("%s: generation +%d, anchored at %s (%d) not the presenter's %s (%d)", k, g-gen, c.At.Clock(), c.Cursor, p.at.Clock(), p.x.Pos())
		}
		if c.At < c0.At {
			t.Fatalf("%s: the anchor went back", k)
		}
		gen = g
		for range 4 {
			clk.Add(10 * time.Millisecond)
			p = tick(p)
		}
		if _, g := s.State(); g != gen {
			t.Fatalf("after %s playing moved the generation", k)
		}
	}
	// a step pauses: published as it is, unclocked
	p = press(p, "l")
	if st, g := s.State(); g != gen+1 || st.Playing || st.Clock != nil {
		t.Fatalf("a step: playing %v, clock %v", st.Playing, st.Clock)
	}
	// at max play is published frame by frame, as before
	for p.play.speed < len(speeds)-1 {
		p = press(p, "+")
	}
	p = press(p, "space")
	_, gen = s.State()
	moved := 0
	for range 3 {
		pos := p.x.Pos()
		if p = tick(p); p.x.Pos() != pos {
			moved++
		}
	}
	if st, g := s.State(); moved == 0 || g != gen+uint64(moved) || st.Clock != nil {
		t.Fatalf("at max: %d publishes in %d frames that moved, clock %v", g-gen, moved, st.Clock)
	}
}

// The presenter's own play and a follower's screen agree: at the stage
// time the presenter ticks, its moment is the one a follower shows then,
// however late the tick.
func TestStageClockPresenterAgrees(t *testing.T) {
	for _, sp := range []int{0, 3} {
		t.Run(fmt.Sprintf("%g×", speeds[sp]), func(t *testing.T) {
			s, clk := clockedStage()
			p := onStage(t, s, sp)
			defer p.Release()
			for i, late := range []time.Duration{0, 20, 50, 170, 5, 260} {
				clk.Add(frame + late*time.Millisecond)
				now := stageMs(s.Now())
				p = tick(p)
				x, f := seen(t, s, now)
				if p.at != f {
					t.Fatalf("tick %d (%v late): the presenter shows %s, a follower %s", i, late, p.at.Clock(), f.Clock())
				}
				if x.Pos() > p.x.Pos() {
					t.Fatalf("tick %d: a follower is ahead at event %d, the presenter at %d", i, x.Pos(), p.x.Pos())
				}
			}
		})
	}
}

// A presenter who comes back to a stage whose clock stopped takes it up
// where it stopped and plays on from there, on a fresh anchor.
func TestStageClockResumes(t *testing.T) {
	s, clk := clockedStage()
	s.Arrive()
	p := onStage(t, s, 4)
	for range 5 {
		clk.Add(10 * time.Millisecond)
		p = tick(p)
	}
	p.Release()
	s.Leave()
	stopped, _ := s.State()
	_, want := seen(t, s, stopped.Clock.Until)
	clk.Add(150 * time.Millisecond) // a clock still running would be 4.5 s further on
	s.Arrive()
	q := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	defer q.Release()
	if !q.play.on || q.at != want || q.x.Branch().Name != p.x.Branch().Name {
		t.Fatalf("resumed at %s (playing %v), the clock stopped at %s", q.at.Clock(), q.play.on, want.Clock())
	}
	st, c, _ := clocked(t, s)
	if st.Clock.Until != 0 || st.Away || c.At != want || st.Clock.Wall != stopped.Clock.Until+150 {
		t.Fatalf("the resumed stage: %+v at %s", *st.Clock, c.At.Clock())
	}
	clk.Add(20 * time.Millisecond)
	q = tick(q)
	if q.at <= want {
		t.Fatal("the resumed presenter does not play on")
	}
}

// Play that reaches the branch's end pauses there and says so on stage,
// unclocked, however far past the end the stage's clock has run.
func TestStageClockEnd(t *testing.T) {
	s, clk := clockedStage()
	p := onStage(t, s, 7)
	defer p.Release()
	_, _, gen := clocked(t, s)
	clk.Add(24 * time.Hour) // a day on: past any end
	for n := 0; p.play.on; n++ {
		if n == 10_000 {
			t.Fatal("play never reached the end")
		}
		p = tick(p)
	}
	st, g := s.State()
	if !p.x.AtEnd() || st.Playing || st.Clock != nil || g != gen+1 || st.Code != p.shareCode() {
		t.Fatalf("at the end (%v): playing %v, clock %v, %d publishes, %s not %s", p.x.AtEnd(), st.Playing, st.Clock, g-gen, st.Code, p.shareCode())
	}
}
