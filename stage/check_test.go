package stage

import (
	"strings"
	"testing"

	"inflight/incidents"
)

// realQuestion is thursday's first question with choices, as a presenter
// puts it to the room.
func realQuestion(t *testing.T) PollShared {
	t.Helper()
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range spec.Exercises {
		if len(ex.Choices) > 0 {
			return PollShared{Seq: 1, Open: true, Question: PollQuestion{Incident: spec.ID, Key: ex.Key, Text: ex.Question, Choices: ex.Choices, Answer: ex.Answer}}
		}
	}
	t.Fatal("thursday asks no question")
	return PollShared{}
}

// TestQuestionCheck: every question of every bundled incident passes;
// the forged ones of the issue and their neighbours do not.
func TestQuestionCheck(t *testing.T) {
	for _, spec := range incidents.All() {
		for _, ex := range spec.Exercises {
			if len(ex.Choices) == 0 {
				continue
			}
			q := PollShared{Seq: 3, Open: true, Revealed: true, Question: PollQuestion{Incident: spec.ID, Key: ex.Key, Text: ex.Question, Choices: ex.Choices, Answer: ex.Answer}}
			if err := q.Check(); err != nil {
				t.Errorf("%s question %s: %v", spec.ID, ex.Key, err)
			}
		}
	}
	dropped := PollShared{Seq: 0}
	if err := dropped.Check(); err != nil {
		t.Errorf("no question yet: %v", err)
	}
	many := make([]string, 20_000)
	for i := range many {
		many[i] = "x"
	}
	for name, edit := range map[string]func(*PollShared){
		"escapes and overrides in the text": func(q *PollShared) { q.Question.Text = hostileText },
		"an escape in a choice":             func(q *PollShared) { q.Question.Choices[0] = "\x1b[2J" },
		"a line break in a choice":          func(q *PollShared) { q.Question.Choices[1] = "a\nb" },
		"a zero-width key":                  func(q *PollShared) { q.Question.Key = "5\u200b" },
		"20,000 choices":                    func(q *PollShared) { q.Question.Choices = many },
		"one choice":                        func(q *PollShared) { q.Question.Choices = q.Question.Choices[:1]; q.Question.Answer = 0 },
		"six choices":                       func(q *PollShared) { q.Question.Choices = []string{"a", "b", "c", "d", "e", "f"} },
		"an empty choice":                   func(q *PollShared) { q.Question.Choices[0] = " " },
		"a choice too long":                 func(q *PollShared) { q.Question.Choices[0] = strings.Repeat("x", 161) },
		"a text too long":                   func(q *PollShared) { q.Question.Text = strings.Repeat("x", 4001) },
		"the answer past the choices":       func(q *PollShared) { q.Question.Answer = len(q.Question.Choices) },
		"a negative answer":                 func(q *PollShared) { q.Question.Answer = -1 },
		"open without a number":             func(q *PollShared) { q.Seq = 0 },
		"open without choices":              func(q *PollShared) { q.Question.Choices = nil; q.Question.Answer = 0 },
	} {
		q := realQuestion(t)
		q.Question.Choices = append([]string(nil), q.Question.Choices...)
		edit(&q)
		if err := q.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestStateCheck: a state a presenter could send passes; forged codes and
// numbers do not, and Receive leaves the stage as it was.
func TestStateCheck(t *testing.T) {
	line := "thursday@1/p1@19:40:00#1.00000000~2;n1=mine"
	base := State{Code: line, Branches: []string{"thursday@1#end.00000000", line}, Speed: 10, Screen: Screen{Kind: "branches", Row: 1}}
	if err := base.Check(); err != nil {
		t.Fatalf("a presenter's state refused: %v", err)
	}
	s := New()
	if err := s.Receive(base); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*State){
		"a code with an escaped ESC in a name": func(st *State) {
			st.Code = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;n1=%1b%5d52%3bc%3bZXZpbA%3d%3d%07"
		},
		"a code that is not one":        func(st *State) { st.Code = "\x1b[2J" },
		"an incident not bundled":       func(st *State) { st.Code = "nowhere@1#1.00000000" },
		"a branch that is not a code":   func(st *State) { st.Branches = append(st.Branches, "evil") },
		"a branch of another incident":  func(st *State) { st.Branches = append(st.Branches, "cashback@1#end.00000000") },
		"a speed the stage lacks":       func(st *State) { st.Speed = 3 },
		"an unknown screen":             func(st *State) { st.Screen.Kind = "shell" },
		"a negative row":                func(st *State) { st.Screen.Row = -1 },
		"a huge scroll":                 func(st *State) { st.Screen.Off = 1 << 40 },
		"a compare past the branches":   func(st *State) { st.Screen.Kind, st.Screen.B = "compare", len(st.Branches) },
		"a fork form on the main view":  func(st *State) { st.Screen.Kind, st.Screen.Fork = "", &Fork{} },
		"a fork pick out of range":      func(st *State) { st.Screen.Kind, st.Screen.Fork = "fork", &Fork{Pick: -3} },
		"a clock before 1970":           func(st *State) { st.Clock = &Anchor{Wall: -5} },
		"a question slot with controls": func(st *State) { st.Question = "\x1b]0;x\x07" },
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
