package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
)

// gatedShared is a Shared whose Models' jobs (a session's, a stage
// mirror's) are held at their start until release is called.
func gatedShared() (sh *Shared, release func()) {
	sh = NewShared(DefaultBudget(), nil, 0)
	sh.gate = make(chan struct{})
	return sh, func() { close(sh.gate) }
}

// returns runs f, which must not wait on a held job, and fails the test
// if it does not return: the deadline only fails one that hangs.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s waited for a held job", what)
	}
}

// mirrorJob is the job running on the stage's mirror in colours c, nil
// none.
func mirrorJob(s *Stage, c colours) *job {
	s.frames.mu.Lock()
	defer s.frames.mu.Unlock()
	if mr := s.frames.mirrors[c]; mr != nil {
		return mr.m.jobs.cur
	}
	return nil
}

// A presenter opens a life story: the stage's frame for a follower is
// drawn, and a follower's key that takes the stage's moment is answered,
// while the mirror's story job is held at its start. Until it ends the
// follower sees nothing new, never a progress bar; once it has, the next
// frame shows the story.
func TestFollowerScreenOpensWithoutWaiting(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "]", "]", "]", "]", "]")
	sh, release := gatedShared()
	defer func() {
		if sh.gate != nil {
			release()
		}
	}()
	f := newTest(t, Options{Stage: s, Follow: true, Shared: sh}, 100, 30)
	f, wait := sync1(t, f, f.Init())
	before := followerView(f)

	p = press(p, "enter")
	if st, _ := s.State(); st.Screen.Kind != "story" {
		t.Fatalf("the presenter's story is not on stage: %+v", st.Screen)
	}
	returns(t, "the follower's frame", func() { f, wait = sync1(t, f, wait) })
	j := mirrorJob(s, f.follower.colours)
	if j == nil || f.follower.opening == nil {
		t.Fatalf("no story job held on the mirror (%v), or the follower does not wait for it", j)
	}
	if v := followerView(f); v != before || strings.Contains(v, "esc cancels") {
		t.Fatalf("while the story is read the follower sees something new:\n%s\nnot\n%s", v, before)
	}

	// a follower new to the stage, at another size, is drawn the moment
	// without the story
	g := newTest(t, Options{Stage: s, Follow: true, Shared: sh}, 80, 24)
	returns(t, "a second follower's frame", func() { g, _ = sync1(t, g, g.Init()) })
	if v := followerView(g); strings.Contains(v, "esc cancels") || strings.Contains(v, "Life story") {
		t.Fatalf("a follower new to the stage sees a progress line or the story before it is read:\n%s", v)
	}
	g.Release()
	// one in colours no frame was drawn in takes the moment: its Update
	// brings a mirror of its own to the stage, which starts the story's
	// job and does not wait for it
	h := newTest(t, Options{Stage: s, Follow: true, Shared: sh}, 100, 30)
	h.follower.colours, h.follower.coloured = colours{profile: termenv.ANSI256, dark: true}, true
	returns(t, "a follower's key that takes the moment", func() {
		nm, _ := h.Update(keyMsg("l"))
		h = nm.(Model)
	})
	if h.follower.on || h.x.Pos() != p.x.Pos()+1 {
		t.Fatalf("l did not detach the follower at the presenter's moment (following %v, pos %d)", h.follower.on, h.x.Pos())
	}
	if mirrorJob(s, h.follower.colours) == nil {
		t.Fatal("no story job held on the new mirror")
	}
	h.Release()

	release()
	sh.gate = nil
	<-j.done
	f, _ = sync1(t, f, wait) // the job's end wakes the follower's wait
	v := followerView(f)
	if !strings.Contains(v, "Life story of") || body(v) != body(asFollower(p, 100, 30).View()) {
		t.Fatalf("the follower does not see the presenter's story:\n%s", v)
	}
}

// A presenter who comes back to a stage with a comparison open gets the
// session at once, with the comparison's job held: the stage keeps the
// comparison meanwhile, and the screen opens when the job's end is
// delivered.
func TestPresenterResumesOpeningScreen(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "e", "1", "c")
	if p.state != stateCompare {
		t.Fatalf("no comparison: state %s (%q)", p.state, p.flash)
	}
	before, _ := s.State()
	want := p.compare.View() // the news line below is not the stage's (the exercise's)
	p.Release()

	sh, release := gatedShared()
	defer func() {
		if sh.gate != nil {
			release()
		}
	}()
	var q Model
	returns(t, "New", func() {
		var err error
		if q, err = New(Options{Stage: s, Presenter: true, Shared: sh, Renderer: asciiRenderer()}); err != nil {
			t.Error(err)
		}
	})
	var init tea.Cmd
	returns(t, "Init and Update", func() {
		init = q.Init()
		q = resize(q, 120, 40)
	})
	j := q.jobs.cur
	if j == nil || init == nil || q.state != stateMain {
		t.Fatalf("resumed: job %v, Init %v, state %s", j, init != nil, q.state)
	}
	if after, _ := s.State(); !reflect.DeepEqual(before, after) {
		t.Fatalf("the comparison left the stage while it opened:\n%+v\n%+v", before, after)
	}
	release()
	sh.gate = nil
	<-j.done
	nm, _ := q.Update(jobDoneMsg{id: j.id})
	q = nm.(Model)
	waitChart(q)
	if q.state != stateCompare || q.compare.View() != want {
		t.Fatalf("resumed as %s:\n%s\nnot\n%s", q.state, q.compare.View(), want)
	}
	if after, _ := s.State(); !reflect.DeepEqual(before, after) {
		t.Fatalf("the resumed comparison changed the stage:\n%+v\n%+v", before, after)
	}
	q.Release()
}
