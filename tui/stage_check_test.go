package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"inflight/stage"
)

// hostileText is the payload: a clipboard write, a window title,
// a screen clear and 50,000 right-to-left overrides.
var hostileText = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("\u202e", 50_000)

// realQuestion is thursday's first question with choices, as a presenter
// puts it to the room.
func realQuestion(t *testing.T) stage.PollShared {
	t.Helper()
	spec, err := bundledSpec("thursday")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range spec.Exercises {
		if len(ex.Choices) > 0 {
			return stage.PollShared{Seq: 1, Open: true, Question: stage.PollQuestion{Incident: spec.ID, Key: ex.Key, Text: ex.Question, Choices: ex.Choices, Answer: ex.Answer}}
		}
	}
	t.Fatal("thursday asks no question")
	return stage.PollShared{}
}

// TestStageStateCheck: the states a presenter publishes pass, through
// JSON as the link carries them (package stage's TestStateCheck refuses
// forged ones).
func TestStageStateCheck(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	var states []stage.State
	for _, keys := range [][]string{{"]"}, {"f", "right"}, {"enter", "b"}, {"esc", "]", "c"}, {"esc", "+", "space"}, {"space", "/"}, {"esc", "e"}, {"esc", "?"}} {
		p = press(p, keys...)
		st, _ := s.State()
		states = append(states, st)
	}
	for _, st := range states {
		b, _ := json.Marshal(st)
		var back stage.State
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if err := back.Check(); err != nil {
			t.Errorf("the presenter's own state (screen %q) refused: %v", st.Screen.Kind, err)
		}
	}
}

// TestForgedQuestionNeitherShownNorTakesKeys: a question the poll refuses
// opens no overlay on a follower's screen, and the follower's keys answer
// nothing; the real question, received the same way, is shown and
// answered.
func TestForgedQuestionNeitherShownNorTakesKeys(t *testing.T) {
	_, fs, st := room(t, 1, 100, 30)
	f := fs[0]
	forged := realQuestion(t)
	forged.Question.Text = hostileText
	forged.Question.Choices = make([]string, 20_000)
	for i := range forged.Question.Choices {
		forged.Question.Choices[i] = "\x1b[2J"
	}
	if err := st.Poll().Receive(forged); err == nil {
		t.Fatal("the forged question was received")
	}
	f = synced(f)
	if v := f.View(); strings.Contains(v, "The presenter asks") || strings.Contains(v, "\x1b") || strings.Contains(v, "\u202e") {
		t.Fatalf("the follower shows the forged question:\n%s", v)
	}
	f = press(f, "1")
	if ps := st.Poll().State(); ps.Open || ps.Answered != 0 || ps.Seq != 0 {
		t.Fatalf("the forged question is up or took a key: %+v", ps)
	}
	if err := st.Poll().Receive(realQuestion(t)); err != nil {
		t.Fatal(err)
	}
	f = synced(f)
	if !strings.Contains(f.View(), "The presenter asks") {
		t.Fatalf("the real question is not shown:\n%s", f.View())
	}
	f = press(f, "1")
	if ps := st.Poll().State(); ps.Answered != 1 {
		t.Fatalf("the real question's answer was not taken: %+v", ps)
	}
}
