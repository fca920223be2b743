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
