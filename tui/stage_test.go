package tui

import (
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

func TestStageConcurrent(t *testing.T) {
	s := NewStage()
	if code, gen := s.Current(); code != "" || gen != 0 {
		t.Fatal("a new stage is not empty")
	}
	ch := s.Changed(0)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ch
			s.Current()
		}()
	}
	s.Publish("a")
	s.Publish("a") // no change, no new generation
	wg.Wait()
	if code, gen := s.Current(); code != "a" || gen != 1 {
		t.Fatalf("current %q %d", code, gen)
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
}

// run executes a command the way the program would, with a deadline,
// and returns the stage's message: a batch (the stage's wait beside a
// chart's redraw) is run whole.
func run(t *testing.T, cmd tea.Cmd) tea.Msg {
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
	deadline := time.After(5 * time.Second)
	for {
		select {
		case msg := <-done:
			if _, ok := msg.(stageMsg); ok {
				return msg
			}
		case <-deadline:
			t.Fatal("command did not return")
			return nil
		}
	}
}

func TestPresenterAndFollower(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	f := newTest(t, Options{Stage: s, Follow: true}, 120, 40)
	if !contains(p.viewHeader(), "PRESENTER") || !contains(f.viewHeader(), "FOLLOWING") {
		t.Fatal("no presenter/follower badge")
	}
	wait := f.Init()
	p = press(p, "]", "]", "]", "f", "right", "right", "enter", "l")
	msg := run(t, wait)
	nm, wait := f.Update(msg)
	f = nm.(Model)
	if f.x.Code().String() != p.x.Code().String() {
		t.Fatalf("follower at %s, presenter at %s", f.x.Code(), p.x.Code())
	}
	// a cursor move on the same branch only moves the follower's cursor
	x := f.x
	p = press(p, "l", "l")
	nm, wait = f.Update(run(t, wait))
	f = nm.(Model)
	if f.x != x || f.x.Pos() != p.x.Pos() {
		t.Fatal("follower did not track the presenter's clock")
	}
	// the presenter's clock between events reaches the follower too (L
	// moves the clock a second, perhaps past no event)
	p = press(p, "L")
	nm, wait = f.Update(run(t, wait))
	f = nm.(Model)
	if f.at != p.at || f.x.Pos() != p.x.Pos() {
		t.Fatalf("follower clock %s pos %d, presenter %s pos %d", f.at.Clock(), f.x.Pos(), p.at.Clock(), p.x.Pos())
	}
	// stepping detaches into the follower's own copy
	f = press(f, "l")
	if f.follower.on || !contains(f.viewHeader(), "F follows") || f.x.Pos() != p.x.Pos()+1 {
		t.Fatal("l did not detach the follower")
	}
	nm, _ = f.Update(stageMsg{tag: f.follower.tag - 1, code: "x", gen: 99})
	if nm.(Model).x.Pos() != f.x.Pos() {
		t.Fatal("a detached follower moved")
	}
	nm, wait = f.Update(keyMsg("F"))
	f = nm.(Model)
	nm, _ = f.Update(run(t, wait))
	f = nm.(Model)
	if !f.follower.on || f.x.Pos() != p.x.Pos() {
		t.Fatal("F did not follow again")
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || len(s) >= len(sub) && indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
