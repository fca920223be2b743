package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
)

// room is a presenter and followers sharing one stage, as serve makes
// them, at w×h.
func room(t *testing.T, followers, w, h int) (Model, []Model, *Stage) {
	t.Helper()
	st := NewStage()
	pres := newTest(t, Options{Stage: st, Presenter: true}, w, h)
	var fs []Model
	for range followers {
		fs = append(fs, newTest(t, Options{Stage: st, Follow: true}, w, h))
	}
	pres = synced(pres)
	for i := range fs {
		fs[i] = synced(fs[i])
	}
	return pres, fs, st
}

// synced delivers what the model's wait on the poll would: a session
// number on the first, then the poll as it is now (a follower saying it
// is in the room, as each of its waits does).
func synced(m Model) Model {
	p := m.stage.Poll()
	s := m.exercises.room.session
	if s == 0 {
		s = p.Session()
	}
	if !m.presenter {
		p.Here(s)
	}
	nm, _ := m.Update(pollMsg{session: s})
	return nm.(Model)
}

func line(v, sub string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestAskTheRoom: the presenter asks thursday's question 5; every
// follower sees it and answers with one key, its own choice marked; the
// presenter's screen counts the answers and those not yet given; enter
// reveals, plays on to the proof and shows the tally beside the truth;
// esc takes the question down.
func TestAskTheRoom(t *testing.T) {
	pres, fs, st := room(t, 5, 80, 24)
	pres = press(pres, "e")
	if !strings.Contains(pres.View(), "a: ask the room") {
		t.Fatalf("the presenter's list does not offer to ask the room:\n%s", pres.View())
	}
	pres = press(pres, "5")
	if !pres.exercises.q.room || !st.Poll().State().Open {
		t.Fatal("5 did not put the question to the room")
	}
	for i := range fs {
		fs[i] = synced(fs[i])
		if v := fs[i].View(); !strings.Contains(v, "The presenter asks") || !strings.Contains(v, "B2's call returns") {
			t.Fatalf("follower %d sees no question:\n%s", i, v)
		}
	}
	// followers 0–2 answer b, a, 2 (b); follower 3 changes its mind; 4 does not answer
	for i, keys := range [][]string{{"b"}, {"a"}, {"2"}, {"a", "c"}} {
		fs[i] = press(fs[i], keys...)
	}
	for i, want := range []string{"▶ [b]", "▶ [a]", "▶ [b]", "▶ [c]"} {
		if l := line(fs[i].View(), "▶"); !strings.Contains(l, want) {
			t.Errorf("follower %d marks %q; want %q", i, l, want)
		}
	}
	if strings.Contains(fs[4].View(), "▶") {
		t.Error("a follower who has not answered has a choice marked")
	}
	pres = synced(pres)
	v := pres.View()
	if !strings.Contains(v, "4 attendees answered · 1 not yet") {
		t.Fatalf("the presenter's tally:\n%s", v)
	}
	for _, c := range []struct{ choice, n string }{{"[a]", "   1 █"}, {"[b]", "   2 █"}, {"[c]", "   1 █"}} {
		if l := line(v, c.choice); !strings.Contains(l, c.n) {
			t.Errorf("tally line %q lacks %q", l, c.n)
		}
	}
	// keys other than the choices wait while the overlay is up: no
	// follower moves or detaches
	fs[4] = press(fs[4], "l", "f")
	if fs[4].state != stateMain || !fs[4].follower.on {
		t.Error("a key under the question overlay reached the explorer")
	}

	pres = press(pres, "enter")
	ex := pres.exercises.q.ex
	if !pres.exercises.q.arrived || pres.at != ex.Proof.At {
		t.Fatalf("reveal: arrived %v at %s", pres.exercises.q.arrived, pres.at.Clock())
	}
	if v := pres.View(); !strings.Contains(v, "The answer is b. 2 of 4 attendees answered it.") || !strings.Contains(v, "✓ [b]") {
		t.Fatalf("the presenter's revealed screen:\n%s", v)
	}
	for i, want := range []string{"Right: the answer is b.", "You answered a; the answer is b.", "Right", "You answered c", "You did not answer"} {
		fs[i] = synced(fs[i])
		if v := fs[i].View(); !strings.Contains(v, want) || !strings.Contains(line(v, "[b]"), "2 █") {
			t.Errorf("follower %d after the reveal lacks %q or the tally:\n%s", i, want, v)
		}
	}
	fs[0] = press(fs[0], "a")
	if st.Poll().State().Tally[0] != 1 {
		t.Error("an answer after the reveal counted")
	}
	// esc on one follower hides its overlay only; the presenter's esc
	// takes the question down for everyone
	fs[1] = press(fs[1], "esc")
	if strings.Contains(fs[1].View(), "The presenter asks") || !strings.Contains(fs[2].View(), "The presenter asks") {
		t.Error("esc hid the wrong overlays")
	}
	pres = press(pres, "esc")
	if pres.state != stateMain || st.Poll().State().Open {
		t.Fatal("the presenter's esc left the question up")
	}
	for i := range fs {
		fs[i] = synced(fs[i])
		if strings.Contains(fs[i].View(), "The presenter asks") {
			t.Errorf("follower %d still shows the question", i)
		}
	}
}

// TestRoomOfFifty: fifty followers answer; the presenter's tally counts
// fifty, none waiting.
func TestRoomOfFifty(t *testing.T) {
	pres, fs, st := room(t, 50, 80, 24)
	pres = press(pres, "e", "5")
	for i := range fs {
		fs[i] = press(synced(fs[i]), string(rune('a'+i%3)))
	}
	pres = synced(pres)
	if s := st.Poll().State(); s.Answered != 50 || s.Waiting != 0 || s.Tally[0]+s.Tally[1]+s.Tally[2] != 50 {
		t.Fatalf("poll: %+v", s)
	}
	if v := pres.View(); !strings.Contains(v, "50 attendees answered · 0 not yet") {
		t.Fatalf("the presenter's screen:\n%s", v)
	}
}

// TestRoomGoldens pins the presenter's tally and a follower's overlay,
// before and after the reveal: update with
// go test ./tui -run TestRoomGoldens -update
func TestRoomGoldens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		pres, fs, _ := room(t, 3, size[0], size[1])
		pres = press(pres, "e", "5")
		for i, k := range []string{"b", "a", "b"} {
			fs[i] = press(synced(fs[i]), k)
		}
		pres = synced(pres)
		name := fmt.Sprintf("%dx%d/", size[0], size[1])
		shots := []struct {
			name string
			m    *Model
		}{{"presenter-asking", &pres}, {"follower-answered", &fs[1]}}
		for _, s := range shots {
			t.Run(name+s.name, func(t *testing.T) { golden.RequireEqual(t, []byte(s.m.View())) })
		}
		pres = press(pres, "enter")
		fs[1] = synced(fs[1])
		for _, s := range []struct {
			name string
			m    *Model
		}{{"presenter-revealed", &pres}, {"follower-revealed", &fs[1]}} {
			t.Run(name+s.name, func(t *testing.T) { golden.RequireEqual(t, []byte(s.m.View())) })
		}
	}
}

// TestLeavingEndsTheWait: a session that ends (Release) ends its wait on
// the poll at once rather than at the wait's bound, and leaves the count
// of those who have not answered.
func TestLeavingEndsTheWait(t *testing.T) {
	pres, fs, st := room(t, 2, 80, 24)
	pres = press(pres, "e", "5")
	if w := st.Poll().State().Waiting; w != 2 {
		t.Fatalf("%d waiting; want 2", w)
	}
	f := synced(fs[0]) // it has read the question: its next wait blocks
	releaseEnds(t, f, f.watchPoll(), "the poll")
	if w := st.Poll().State().Waiting; w != 1 {
		t.Fatalf("%d waiting after one follower left; want 1", w)
	}
}

// TestRoomFrame: over a frame drawn elsewhere (the stage's, for a
// follower), the question keeps the frame's header and takes the rest.
func TestRoomFrame(t *testing.T) {
	pres, fs, _ := room(t, 1, 80, 24)
	f := fs[0]
	frame := strings.Repeat("the stage's header\n", 24)
	if _, ok := f.roomFrame(frame); ok {
		t.Fatal("an overlay before any question")
	}
	press(pres, "e", "5")
	f = synced(f)
	v, ok := f.roomFrame(frame)
	lines := strings.Split(v, "\n")
	if !ok || len(lines) != 24 || !strings.HasPrefix(lines[0], "the stage's header") || !strings.Contains(v, "The presenter asks") || strings.Count(v, "the stage's header") != 1 {
		t.Fatalf("overlay over the frame (%v):\n%s", ok, v)
	}
	for i, l := range lines {
		if w := len([]rune(l)); w != 80 {
			t.Fatalf("line %d is %d wide", i, w)
		}
	}
}

// TestLeavingEndsTheStageWait: a follower's wait on the stage (up to
// stageWait when nothing moves) ends when its session does, as its wait
// on the poll does.
func TestLeavingEndsTheStageWait(t *testing.T) {
	_, fs, st := room(t, 1, 80, 24)
	f := fs[0]
	if _, gen := st.State(); gen == 0 {
		t.Fatal("nothing on stage: the wait would not block")
	}
	_, f.follower.gen = st.State() // shown: the next wait blocks
	releaseEnds(t, f, f.wait(), "the stage")
}

// releaseEnds checks that a session's wait on "on", once it blocks,
// ends with nothing when the session is released: not at the wait's
// bound, which would bring a message.
func releaseEnds(t *testing.T, f Model, wait tea.Cmd, on string) {
	t.Helper()
	done := make(chan tea.Msg, 1)
	go func() { done <- wait() }()
	blockedIn(t, "tui.releaseEnds", on)
	f.Release()
	if msg := <-done; msg != nil {
		t.Errorf("the ended session's wait on %s returned %#v", on, msg)
	}
}

// blockedIn waits until a goroutine started by fn is blocked in a select:
// the wait under test waits. A goroutine's stack is the only observable
// of its blocking (nothing signals it), so this reads the stacks again,
// paced so as not to spin; the deadline only fails a test that hangs.
func blockedIn(t *testing.T, fn, on string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "created by inflight/"+fn) {
				return
			}
		}
	}
	t.Fatalf("the wait on %s never blocked", on)
}

// TestHiddenQuestionComesBack: while a follower's question is up its help
// bar shows the question's keys; esc hides it, the help bar then offers A,
// which shows it again; and the reveal shows it to a follower who hid it,
// once (hidden after the reveal, it stays hidden).
func TestHiddenQuestionComesBack(t *testing.T) {
	pres, fs, _ := room(t, 1, 80, 24)
	pres = synced(press(pres, "e", "5"))
	f := synced(fs[0])
	last := func(v string) string { return v[strings.LastIndexByte(v, '\n')+1:] }
	frame := strings.Repeat("the stage's line\n", 23) + "the stage's keys"
	if l := last(f.View()); !strings.Contains(l, "1–3/a–c answer") || !strings.Contains(l, "esc hide") || strings.Contains(l, "play/pause") {
		t.Errorf("help bar under the question: %q", l)
	}
	if v, _ := f.roomFrame(frame); !strings.Contains(last(v), "1–3/a–c answer") {
		t.Errorf("help bar of the question over the stage's frame: %q", last(v))
	}
	f = press(f, "esc")
	if f.exercises.room.asked() {
		t.Fatal("esc did not hide the question")
	}
	if l := last(f.View()); !strings.Contains(l, "A the question") {
		t.Errorf("help bar with the question hidden: %q", l)
	}
	if v, ok := f.hiddenFrame(frame); !ok || !strings.Contains(last(v), "A the question") || strings.Count(v, "the stage's line") != 23 {
		t.Errorf("the stage's frame with the question hidden (%v): help bar %q", ok, last(v))
	}
	f = press(f, "A")
	if !f.exercises.room.asked() {
		t.Fatal("A did not show the question again")
	}
	f = press(f, "esc")
	pres = press(pres, "enter") // reveal
	f = synced(f)
	if !f.exercises.room.asked() || !strings.Contains(f.View(), "answer is b") {
		t.Fatalf("the reveal did not reach the follower who hid the question:\n%s", f.View())
	}
	f = synced(press(f, "esc"))
	if f.exercises.room.asked() {
		t.Error("a revealed question hidden again came back")
	}
	if _, ok := f.hiddenFrame(frame); !ok {
		t.Error("no way back to the revealed question")
	}
}

// TestPresenterComesBackToTheQuestion: a presenter who reconnects while a
// question is open finds it on screen with its live tally, and can reveal
// it — or, another time, drop it.
func TestPresenterComesBackToTheQuestion(t *testing.T) {
	for _, reveal := range []bool{true, false} {
		pres, fs, st := room(t, 2, 80, 24)
		pres = press(pres, "e", "5")
		seq := st.Poll().State().Seq
		fs[0] = press(synced(fs[0]), "b")
		pres.Release() // the presenter's session ends
		back := synced(newTest(t, Options{Stage: st, Presenter: true}, 80, 24))
		q := back.exercises.q
		if !q.on || !q.room || q.seq != seq || back.state != stateExercises {
			t.Fatalf("the presenter came back to %+v (state %v)", q, back.state)
		}
		v := back.View()
		if !strings.Contains(v, "Asking the room") || !strings.Contains(v, "1 attendee answered · 1 not yet") {
			t.Fatalf("the question as the presenter finds it:\n%s", v)
		}
		if reveal {
			back = press(back, "enter")
			if rs := st.Poll().State(); !rs.Revealed || rs.Seq != seq {
				t.Fatalf("enter did not reveal: %+v", rs)
			}
		} else {
			back = press(back, "esc")
			if rs := st.Poll().State(); rs.Open {
				t.Fatalf("esc did not drop the question: %+v", rs)
			}
		}
		back.Release()
	}
}
