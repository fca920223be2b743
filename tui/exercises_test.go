package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
)

// question5 is thursday's question about worker B2's late ack, asked at
// the 19:52:30 bookmark on the lesson's run.
func question5(t *testing.T, m Model) engine.Exercise {
	t.Helper()
	for _, ex := range m.x.Spec.Exercises {
		if ex.Key == "5" {
			return ex
		}
	}
	t.Fatal("thursday has no question 5")
	return engine.Exercise{}
}

// TestPredictThenReveal plays thursday's question 5 alone: its key goes
// to the question's bookmark, a choice key predicts, enter reveals and
// plays on to the proof moment, where the refused ack is the last event.
func TestPredictThenReveal(t *testing.T) {
	for _, tc := range []struct {
		pick, verdict string
	}{{"b", "Right: the answer is b."}, {"2", "Right: the answer is b."}, {"a", "You predicted a; the answer is b."}, {"3", "You predicted c; the answer is b."}} {
		t.Run(tc.pick, func(t *testing.T) {
			m := press(start(t), "e", "5")
			ex := question5(t, m)
			if m.state != stateExercises || !m.exercises.q.on || m.at != ex.Ask.At || m.x.Branch() != m.x.Branches()[0] {
				t.Fatalf("5: state %s, question %v, at %s on %s", m.state, m.exercises.q.on, m.at.Clock(), m.x.Branch().Name)
			}
			if v := m.View(); !strings.Contains(v, "B2's call returns") || strings.Contains(v, "Right") {
				t.Fatalf("question screen:\n%s", v)
			}
			m = press(m, "enter")
			if !strings.Contains(m.flash, "predict first") || m.exercises.q.revealed {
				t.Fatalf("enter before a prediction revealed it (flash %q)", m.flash)
			}
			m = press(m, tc.pick, "enter")
			q := m.exercises.q
			if !q.revealed || !q.arrived || m.at != ex.Proof.At {
				t.Fatalf("after enter: revealed %v arrived %v at %s", q.revealed, q.arrived, m.at.Clock())
			}
			if last := m.x.Events(m.x.Pos()-1, m.x.Pos()); len(last) != 1 || last[0].Event.Kind != engine.EvAckRefused || last[0].Event.Msg != 14 {
				t.Fatalf("the proof moment's last event: %+v", last)
			}
			v := m.View()
			if !strings.Contains(v, tc.verdict) || !strings.Contains(v, "It refuses it") {
				t.Fatalf("revealed screen lacks %q or the explanation:\n%s", tc.verdict, v)
			}
			m = press(m, "esc")
			if m.state != stateMain || m.exercises.q.on || !strings.Contains(m.View(), "refused") {
				t.Fatalf("esc: state %s", m.state)
			}
			m = press(m, "e")
			if !strings.Contains(m.View(), "Answer: It refuses it") {
				t.Error("the list does not show a revealed question's answer")
			}
		})
	}
}

// TestQuestionAtItsBookmark: e at a question's bookmark selects that
// question, and a asks it.
func TestQuestionAtItsBookmark(t *testing.T) {
	m := press(start(t), "]", "]", "e")
	if ex := m.exercises.exs[m.exercises.row]; ex.Key != "5" {
		t.Fatalf("e at 19:52:30 selects question %s", ex.Key)
	}
	m = press(m, "a")
	if !m.exercises.q.on || m.exercises.q.ex.Key != "5" {
		t.Fatal("a did not ask the selected question")
	}
}

// TestPredictOnAFork: a question that changes a knob is asked on its fork
// (thursday's question 1, late_ack=accept), and plays on there.
func TestPredictOnAFork(t *testing.T) {
	m := press(start(t), "e", "a")
	ex := m.x.Spec.Exercises[0]
	if !m.exercises.q.on || m.x.Branch().Name != ex.Branch() || m.exercise == nil {
		t.Fatalf("a on question 1: on %q, question %v", m.x.Branch().Name, m.exercises.q.on)
	}
	m = press(m, "b", "enter")
	if m.x.Branch().Name != ex.Branch() || m.at != ex.Proof.At {
		t.Fatalf("revealed on %q at %s", m.x.Branch().Name, m.at.Clock())
	}
	if msg, _ := m.x.World().Msg(14); msg.Effects != 2 || msg.Held() {
		t.Fatalf("order 14 at the proof: %d emails, %s", msg.Effects, msg.Status)
	}
	// asked again, the same fork is reused
	m = press(m, "esc", "e", "a")
	if n := len(m.x.Branches()); n != 2 {
		t.Fatalf("%d branches after asking twice; want main and the exercise's", n)
	}
}

// TestRevealIsACancellableJob: a reveal whose proof is far plays on as a
// job with a progress line; esc cancels it and enter plays on again.
func TestRevealIsACancellableJob(t *testing.T) {
	m := press(bigRun(t), "e", "5", "b")
	far, err := engine.ParseClock("1000:00:00")
	if err != nil {
		t.Fatal(err)
	}
	m.exercises.q.ex.Proof = &engine.Bookmark{At: far, Msg: -1}
	// the job's progress line is read from the screen, as a user reads it
	running := func(m Model) bool { return strings.Contains(m.View(), "esc cancels") }
	m, _ = send(t, m, "enter")
	if !running(m) || !strings.Contains(m.View(), "playing on to") {
		t.Fatalf("playing on to 1000:00 finished inside Update, or shows no progress line:\n%s", m.View())
	}
	m, _ = send(t, m, "esc")
	q := m.exercises.q
	if running(m) || !q.on || !q.revealed || q.arrived {
		t.Fatalf("esc: job running %v, question on %v revealed %v arrived %v", running(m), q.on, q.revealed, q.arrived)
	}
	if !strings.Contains(m.View(), "enter plays on again") {
		t.Fatalf("a cancelled reveal does not say enter plays on again:\n%s", m.View())
	}
	m, _ = send(t, m, "enter")
	if !running(m) {
		t.Fatal("enter did not play on again")
	}
	send(t, m, "esc")
}

// TestQuestionGoldens pins the question screens at 80×24 and 120×40:
// update with go test ./tui -run TestQuestionGoldens -update
func TestQuestionGoldens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, s := range []struct{ name, keys string }{
			{"asked", "e 5"},
			{"predicted", "e 5 b"},
			{"right", "e 5 b enter"},
			{"wrong", "e 5 a enter"},
			{"list", "] ] e"},
			{"top", "e"}, // the heading in view (TestNoCutWords reads it)
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], s.name), func(t *testing.T) {
				golden.RequireEqual(t, []byte(viewAfter(t, size[0], size[1], strings.Fields(s.keys)...)))
			})
		}
	}
}
