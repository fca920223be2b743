package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"inflight/stage"
)

// Share codes a presenter could have on stage: the stage refuses a
// received state whose code does not parse.
const (
	codeA = "thursday@1#1.00000000"
	codeB = "thursday@1#2.00000000"
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
// JSON as the link carries them; forged codes and numbers do not.
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
	base := states[2] // two branches, on the branch list
	for name, edit := range map[string]func(*stage.State){
		"a code with an escaped ESC in a name": func(st *stage.State) {
			st.Code = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;n1=%1b%5d52%3bc%3bZXZpbA%3d%3d%07"
		},
		"a code that is not one":        func(st *stage.State) { st.Code = "\x1b[2J" },
		"an incident not bundled":       func(st *stage.State) { st.Code = "nowhere@1#1.00000000" },
		"a branch that is not a code":   func(st *stage.State) { st.Branches = append(st.Branches, "evil") },
		"a branch of another incident":  func(st *stage.State) { st.Branches = append(st.Branches, "cashback@1#end.00000000") },
		"a speed the stage lacks":       func(st *stage.State) { st.Speed = 3 },
		"an unknown screen":             func(st *stage.State) { st.Screen.Kind = "shell" },
		"a negative row":                func(st *stage.State) { st.Screen.Row = -1 },
		"a huge scroll":                 func(st *stage.State) { st.Screen.Off = 1 << 40 },
		"a compare past the branches":   func(st *stage.State) { st.Screen.Kind, st.Screen.B = "compare", len(st.Branches) },
		"a fork form on the main view":  func(st *stage.State) { st.Screen.Kind, st.Screen.Fork = "", &stage.Fork{} },
		"a fork pick out of range":      func(st *stage.State) { st.Screen.Kind, st.Screen.Fork = "fork", &stage.Fork{Pick: -3} },
		"a clock before 1970":           func(st *stage.State) { st.Clock = &stage.Anchor{Wall: -5} },
		"a question slot with controls": func(st *stage.State) { st.Question = "\x1b]0;x\x07" },
	} {
		st := base
		st.Branches = append([]string(nil), base.Branches...)
		edit(&st)
		if err := st.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
		before, gen := s.State()
		if err := s.Receive(st); err == nil {
			t.Errorf("%s: received", name)
		}
		if after, g := s.State(); g != gen || after.Code != before.Code {
			t.Errorf("%s: the refused state moved the stage", name)
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
