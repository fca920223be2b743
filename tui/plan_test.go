package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/plan"
)

func docsPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.Load(filepath.Join("..", "docs", "workshop.plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// followUntil delivers the stage's frames to follower f until its view
// holds want (a frame may be drawn before its chart, or while a screen
// opens); every wait ends on the stage moving or its own bound.
func followUntil(t *testing.T, f Model, wait tea.Cmd, want string) (Model, tea.Cmd) {
	t.Helper()
	for range 50 {
		if v, ok := f.stageFrame(); ok && strings.Contains(v, want) {
			return f, wait
		}
		f, wait = sync1(t, f, wait)
	}
	v, _ := f.stageFrame()
	t.Fatalf("the follower never saw %q:\n%s", want, v)
	return f, wait
}

func clockOf(t *testing.T, s string) engine.Time {
	t.Helper()
	c, err := engine.ParseClock(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPlanBeats: the presenter's > and < move the stage from beat to
// beat of the docs' plan: to a bookmark, to a question put to the room
// (dropped on leaving it), and to another incident; the stage carries
// the beat's number and title, the presenter's screen its notes, and a
// follower's frame the title and never the notes.
func TestPlanBeats(t *testing.T) {
	pl := docsPlan(t)
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true, Plan: pl}, 120, 40)
	if v := p.View(); !strings.Contains(v, "> next beat") || !strings.Contains(v, "plan: "+pl.Title) {
		t.Fatalf("the presenter's screen does not offer the plan:\n%s", v)
	}
	p = press(p, "<")
	if !strings.Contains(p.flash, "the plan has not started") {
		t.Errorf("< before the first beat: %q", p.flash)
	}
	f := newTest(t, Options{Stage: s, Follow: true}, 80, 24)
	f, wait := sync1(t, f, f.Init())

	p = press(p, ">", ">") // beat 2: thursday's first bookmark
	st, _ := s.State()
	if st.Beat == nil || st.Beat.N != 2 || st.Beat.Of != len(pl.Beats) || st.Beat.Title != pl.Beats[1].Title {
		t.Fatalf("beat on stage: %+v", st.Beat)
	}
	if p.at != clockOf(t, "19:52:00") {
		t.Errorf("beat 2 at %s", p.at.Short())
	}
	notes := "Open the message's life story" // beat 2's notes
	if v := p.View(); !strings.Contains(v, notes) || !strings.Contains(v, "beat 2/20 · "+pl.Beats[1].Title) {
		t.Errorf("the presenter does not see beat 2's notes:\n%s", v)
	}
	title := "beat 2/20 · " + pl.Beats[1].Title
	f, wait = followUntil(t, f, wait, title)
	if v, _ := f.stageFrame(); strings.Contains(v, notes) || !strings.Contains(v, "19:52:00") {
		t.Errorf("the follower's frame:\n%s", v)
	}

	p = press(p, ">") // beat 3: question 5, put to the room at 19:52:30
	if p.state != stateExercises || !p.exercises.q.on || !p.exercises.q.room || p.exercises.q.ex.Key != "5" {
		t.Fatalf("beat 3 did not ask question 5: state %d, %+v", p.state, p.exercises.q)
	}
	if rs := s.Poll().State(); !rs.Open || rs.Question.Key != "5" || rs.Question.Incident != "thursday" {
		t.Fatalf("the room was not asked: %+v", rs)
	}
	if p.at != clockOf(t, "19:52:30") {
		t.Errorf("question 5 at %s", p.at.Short())
	}
	if v := p.View(); !strings.Contains(v, "> next beat") {
		t.Errorf("the question's footer lacks the beat keys:\n%s", v)
	}
	p = press(p, "<") // back to beat 2: the question is dropped
	if rs := s.Poll().State(); rs.Open {
		t.Errorf("the question stayed up after leaving its beat: %+v", rs)
	}
	if st, _ := s.State(); st.Beat.N != 2 || p.state != stateMain {
		t.Errorf("< went to beat %d, state %d", st.Beat.N, p.state)
	}

	for range 5 { // beat 7: thursday-fixed's first bookmark
		p = press(p, ">")
	}
	st, _ = s.State()
	if c, err := engine.ParseCode(st.Code); err != nil || c.Incident != "thursday-fixed" || st.Beat.N != 7 {
		t.Fatalf("beat 7's stage: %q %+v %v", st.Code, st.Beat, err)
	}
	if _, ok := p.kept["thursday"]; !ok {
		t.Error("thursday was not kept")
	}
	f, _ = followUntil(t, f, wait, "beat 7/20 · "+pl.Beats[6].Title)
	if v, _ := f.stageFrame(); !strings.Contains(v, "the week after") || strings.Contains(v, "lesson 019's sent_at") {
		t.Errorf("the follower is not on thursday-fixed, or sees notes:\n%s", v)
	}
	p = press(p, ">", ">", ">", ">") // beat 11: back to thursday, question 3 to fork
	if p.x.Spec.ID != "thursday" || p.state != stateExercises || p.exercises.row != 2 || p.exercises.q.on {
		t.Errorf("beat 11: on %s, state %d, row %d", p.x.Spec.ID, p.state, p.exercises.row)
	}
	if p.at != clockOf(t, "19:40:20") {
		t.Errorf("beat 11 at %s", p.at.Short())
	}
	for range len(pl.Beats) {
		p = press(p, ">")
	}
	if st, _ := s.State(); st.Beat.N != len(pl.Beats) || !strings.Contains(p.flash, "last beat") {
		t.Errorf("past the end: beat %d, %q", st.Beat.N, p.flash)
	}
}

// TestPlanKeysPresenterOnly: without a plan, and for anyone but the
// presenter, > and < are not beat keys, and nothing goes on stage.
func TestPlanKeysPresenterOnly(t *testing.T) {
	pl := docsPlan(t)
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, ">")
	if st, _ := s.State(); st.Beat != nil || strings.Contains(p.View(), "next beat") {
		t.Errorf("a presenter without a plan: %+v", st.Beat)
	}
	a := newTest(t, Options{Stage: s, Plan: pl}, 120, 40) // an attendee on its own copy
	a = press(a, ">")
	if a.plan.p != nil || a.at != a.x.Spec.Start || strings.Contains(a.View(), "next beat") {
		t.Errorf("an attendee took the plan: at %s", a.at.Short())
	}
	// the jump prompt keeps > for itself
	p = newTest(t, Options{Stage: s, Presenter: true, Plan: pl}, 120, 40)
	p = press(p, "/", ">")
	if p.state != stateJump || p.plan.cur != -1 {
		t.Errorf("> in the jump prompt moved the plan: state %d, beat %d", p.state, p.plan.cur)
	}
}

// TestPlanResume: a presenter who reconnects finds the plan at the beat
// the stage is at.
func TestPlanResume(t *testing.T) {
	pl := docsPlan(t)
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true, Plan: pl}, 120, 40)
	p = press(p, ">", ">")
	p.Release()
	s.Leave()
	again := newTest(t, Options{Stage: s, Presenter: true, Plan: pl}, 120, 40)
	if again.plan.cur != 1 {
		t.Errorf("back at beat %d", again.plan.cur+1)
	}
	again = press(again, ">")
	if st, _ := s.State(); st.Beat.N != 3 {
		t.Errorf("> after coming back went to beat %d", st.Beat.N)
	}
}
