package tui

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/stage"
)

// testClock is a stage's clock in a test: it moves only when the test
// moves it, so no test waits for real time to pass or reads it.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// clockedStage is an empty stage on a clock of the test's.
func clockedStage() (*Stage, *testClock) {
	c := &testClock{t: time.UnixMilli(1_700_000_000_000)}
	return &Stage{Stage: stage.NewWithClock(c.Now)}, c
}

// run executes a command the way the program would, with a deadline,
// and returns the stage's message: a batch (the stage's wait beside a
// chart's redraw) is run whole.
func run(t *testing.T, cmd tea.Cmd) stageMsg {
	t.Helper()
	done := make(chan tea.Msg, 8)
	var start func(c tea.Cmd)
	start = func(c tea.Cmd) {
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					if c != nil {
						start(c)
					}
				}
				return
			}
			done <- msg
		}()
	}
	start(cmd)
	deadline := time.After(time.Minute) // only a command that hangs gets here
	for {
		select {
		case msg := <-done:
			if s, ok := msg.(stageMsg); ok && !s.timeout {
				return s
			}
		case <-deadline:
			t.Fatal("command did not return")
			return stageMsg{}
		}
	}
}

// sync delivers the stage's next frame to the follower.
func sync1(t *testing.T, f Model, wait tea.Cmd) (Model, tea.Cmd) {
	t.Helper()
	nm, wait := f.Update(run(t, wait))
	return nm.(Model), wait
}

// asFollower is the presenter's screen at a follower's size.
func asFollower(p Model, w, h int) Model {
	p = resize(p, w, h)
	p.presenter = false
	p.follower.on = true
	p.stage = nil // as the stage's mirror, which has none
	return p
}

// body is a frame without its header, which says FOLLOWING or PRESENTER.
func body(v string) string {
	_, b, _ := strings.Cut(v, "\n")
	return b
}

func TestStageStateSerialises(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "]", "]", "f", "right", "right")
	st, _ := s.State()
	if st.Screen.Kind != "fork" || st.Screen.Fork == nil || len(st.Branches) != 1 {
		t.Fatalf("state %+v", st)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back stage.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, st) {
		t.Fatalf("JSON round trip changed the state:\n%+v\n%+v", st, back)
	}
}

func TestPresenterAndFollower(t *testing.T) {
	s := NewStage()
	f := newTest(t, Options{Stage: s, Follow: true}, 100, 30)
	if !contains(followerView(f), "nothing to follow yet") || !contains(f.viewHeader(), "FOLLOWING") {
		t.Fatal("a follower before any presenter does not say there is nothing to follow")
	}
	wait := f.Init()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	if !contains(p.viewHeader(), "PRESENTER") {
		t.Fatal("no presenter badge")
	}
	p = press(p, "]", "]", "]", "f")
	p = typeText(p, "45s")
	f, wait = sync1(t, f, wait)
	for f.follower.opening != nil { // the mirror's form opens by a job: its end wakes the wait
		f, wait = sync1(t, f, wait)
	}
	// the fork form as it is filled in
	if !contains(followerView(f), "45s") || body(followerView(f)) != body(asFollower(p, 100, 30).View()) {
		t.Fatalf("the follower does not see the fork form:\n%s", followerView(f))
	}
	p = press(p, "enter", "l", "+", "+", "space")
	f, wait = sync1(t, f, wait)
	// at 100 columns the header's play state is compact ("▶ 60×"), so the
	// title beside the branch and badge stays readable
	if v := header(followerView(f)); !contains(v, "▶") || !contains(v, "60×") {
		st, _ := s.State()
		t.Fatalf("the follower does not show the presenter playing (%+v):\n%s", st, followerView(f))
	}
	p = press(p, "space")
	f, wait = sync1(t, f, wait)
	if !contains(header(followerView(f)), "⏸") {
		t.Fatalf("the follower does not show the presenter paused:\n%s", followerView(f))
	}
	// the presenter's frame at the follower's size is the follower's
	pv := asFollower(p, 100, 30)
	if body(followerView(f)) != body(pv.View()) || !contains(followerView(f), branchPath(p.x.Branch())) {
		t.Fatalf("follower:\n%s\npresenter:\n%s", followerView(f), pv.View())
	}
	// b shows a list and does not detach
	f = press(f, "b")
	if !f.follower.on {
		t.Fatal("b detached the follower")
	}
	f = press(f, "esc", "?")
	if !f.follower.on || body(followerView(f)) != body(pv.View()) {
		t.Fatal("? took a follower off the stage's frame")
	}
	// stepping detaches into the follower's own copy of the moment (at
	// 100 columns the own-copy badge gives way to the branch's path)
	f = press(f, "l")
	if f.follower.on || contains(f.viewHeader(), "FOLLOWING") || f.x.Pos() != p.x.Pos()+1 || f.x.Branch().Name != p.x.Branch().Name {
		t.Fatalf("l did not detach the follower at the presenter's moment (pos %d, presenter %d)", f.x.Pos(), p.x.Pos())
	}
	// the wheel does nothing to a follower; a click takes the moment
	g := newTest(t, Options{Stage: s, Follow: true}, 100, 30)
	g, _ = sync1(t, g, g.Init())
	nm, _ := g.Update(tea.MouseMsg{X: 10, Y: 5, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if g = nm.(Model); !g.follower.on {
		t.Fatal("the wheel detached a follower")
	}
	nm, _ = g.Update(tea.MouseMsg{X: 10, Y: 5, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if g = nm.(Model); g.follower.on || g.x.Pos() != p.x.Pos() {
		t.Fatalf("a click left the follower following %v, or at event %d, not the presenter's %d", g.follower.on, g.x.Pos(), p.x.Pos())
	}
	g.Release()
	// its own fork survives F and comes back when it detaches again
	f = press(f, "f", "enter")
	own := branchPath(f.x.Branch())
	n := len(f.x.Branches())
	nm, wait = f.Update(keyMsg("F"))
	f = nm.(Model)
	f, wait = sync1(t, f, wait)
	if !f.follower.on || f.flash != "" {
		t.Fatal("F did not follow again, or left news that stays")
	}
	p = press(p, "l")
	f, _ = sync1(t, f, wait)
	f = press(f, "l")
	if len(f.x.Branches()) != n {
		t.Fatalf("%d branches after detaching again, %d before", len(f.x.Branches()), n)
	}
	found := false
	for _, b := range f.x.Branches() {
		found = found || branchPath(b) == own
	}
	if !found || f.x.Pos() != p.x.Pos()+1 {
		t.Fatalf("the follower's own branch %q did not come back (pos %d, presenter %d)", own, f.x.Pos(), p.x.Pos())
	}
}

// A presenter who comes back finds the stage where it was: the branches,
// the moment, the open screen, the play state.
func TestPresenterResumes(t *testing.T) {
	s, clk := clockedStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "]", "]", "f", "enter", "l", "l", "+", "+", "space")
	for range 5 {
		clk.Add(frame)
		nm, _ := p.Update(playTickMsg{gen: p.play.gen})
		p = nm.(Model)
	}
	p = press(p, "?")
	before, _ := s.State()
	p.Release()
	clk.Add(time.Second)
	q := newTest(t, Options{Stage: s, Presenter: true}, 80, 24)
	after, _ := s.State()
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the new presenter session changed the stage:\n%+v\n%+v", before, after)
	}
	// the stage plays on its clock meanwhile: the moment it gives now
	c, _ := engine.ParseCode(after.Code)
	now := stage.ClockMoment(c.At, after.Speed, after.Clock.Wall, stageMs(s.Now()))
	if lineOf(q.shareCode()) != lineOf(p.shareCode()) || q.at <= p.at || q.at != now || len(q.x.Branches()) != 2 || !q.play.on || !q.help.ShowAll {
		t.Fatalf("resumed at %s (playing %v, help %v), left at %s, the clock at %s", q.shareCode(), q.play.on, q.help.ShowAll, p.shareCode(), now.Clock())
	}
	if q.Init() == nil {
		t.Fatal("a resumed stage that plays does not tick")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// followerView is what a follower's session draws (NewSession).
// header is a frame's first line.
func header(v string) string { h, _, _ := strings.Cut(v, "\n"); return h }

func followerView(f Model) string {
	if v, ok := f.stageFrame(); ok {
		return v
	}
	return f.View()
}

// A follower's copy is worked on beside the stage's own explorer, which
// goes on drawing the presenter's moves: under -race, they share nothing
// they write.
func TestDetachedCopyBesideTheStage(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "]", "]", "f", "enter")
	f := newTest(t, Options{Stage: s, Follow: true}, 100, 30)
	f, _ = sync1(t, f, f.Init())
	f = press(f, "l")
	if f.follower.on {
		t.Fatal("not detached")
	}
	done := make(chan struct{})
	c, sh := f.follower.colours, f.shared
	go func() {
		defer close(done)
		for range 40 {
			p = press(p, "l", "L")
			s.frame(100, 30, c, sh, stageMs(s.Now()))
		}
	}()
	for range 40 {
		f = press(f, "l", "L", "h")
	}
	f = press(f, "f", "enter", "G")
	<-done
	if f.x.Branch() == p.x.Branch() {
		t.Fatal("the copy shares a branch with the presenter")
	}
}
