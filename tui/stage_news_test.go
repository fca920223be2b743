package tui

import (
	"strings"
	"testing"
)

// words is a view's text with its runs of spaces and line breaks as one
// space: a sentence wrapped over lines reads whole.
func words(v string) string { return strings.Join(strings.Fields(v), " ") }

// Each process's followers are told what they see while the hall's link
// is down and once it is back, at 80×24 too: on a process without the
// presenter the stage stopped at a moment, then caught up; on the
// presenter's own, it plays on live and the room is split.
func TestLinkNewsPerProcess(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		// another process: the presenter is elsewhere
		s := NewStage()
		p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
		p = press(p, "]")
		f := newTest(t, Options{Stage: s, Follow: true}, w, h)
		f, wait := sync1(t, f, f.Init())
		s.SetOnline(false)
		f, wait = sync1(t, f, wait)
		v := words(followerView(f))
		if !strings.Contains(v, "stage link down: the stage stopped reaching this server at 19:52:00 (since ") ||
			!strings.Contains(v, ") and goes on when the link is back") || !strings.Contains(header(followerView(f)), "19:52:00") {
			t.Fatalf("%d×%d: a stopped stage does not say where it stopped:\n%s", w, h, followerView(f))
		}
		p = press(p, "L") // caught up while the link comes back
		s.SetOnline(true)
		f, wait = sync1(t, f, wait)
		if v := words(followerView(f)); !strings.Contains(v, "stage link back: caught up from 19:52:00 to 19:52:01") || strings.Contains(v, "link down") {
			t.Fatalf("%d×%d: back, the follower is not told what it caught up:\n%s", w, h, followerView(f))
		}
		p = press(p, "L") // said once: the next move is the normal stage
		f, _ = sync1(t, f, wait)
		if v := words(followerView(f)); strings.Contains(v, "stage link") || !strings.Contains(header(followerView(f)), "19:52:02") {
			t.Fatalf("%d×%d: the news outlived the next move:\n%s", w, h, followerView(f))
		}
		f.Release()
		p.Release()

		// the presenter's own process: live, and split from the others
		s = NewStage()
		p = newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
		s.Arrive()
		p = press(p, "]")
		f = newTest(t, Options{Stage: s, Follow: true}, w, h)
		f, wait = sync1(t, f, f.Init())
		s.SetOnline(false)
		f, wait = sync1(t, f, wait)
		p = press(p, "L")
		f, wait = sync1(t, f, wait)
		v = words(followerView(f))
		if !strings.Contains(v, "following live · stage link down since ") ||
			!strings.Contains(v, ": the hall's other servers cannot hear the presenter (the room is split)") ||
			!strings.Contains(header(followerView(f)), "19:52:01") {
			t.Fatalf("%d×%d: a follower on the presenter's process is not told it is live and the room split:\n%s", w, h, followerView(f))
		}
		s.SetOnline(true)
		f, _ = sync1(t, f, wait)
		if v := words(followerView(f)); !strings.Contains(v, "stage link back: the hall's other servers follow the presenter again") {
			t.Fatalf("%d×%d: back, the presenter's process's follower is not told:\n%s", w, h, followerView(f))
		}
		s.Leave()
		f.Release()
		p.Release()
	}
}
