package incidents

import (
	"errors"
	"strings"
	"testing"
)

// quiz is minimal with two bookmarks and one question tied to the first.
const quiz = minimal + `bookmarks:
  - {at: "10:00:01", title: First}
  - {at: "10:00:02", title: Second}
exercises:
  - key: "1"
    question: What happens next?
    at: "10:00:00"
    bookmark: First
    choices: [one, two, three]
    answer: 2
    proof: "10:00:02"
`

func TestQuestionParses(t *testing.T) {
	s, err := Parse("quiz.yaml", []byte(quiz))
	if err != nil {
		t.Fatal(err)
	}
	ex := s.Exercises[0]
	if len(ex.Choices) != 3 || ex.Answer != 1 || ex.Ask == nil || ex.Ask.Title != "First" || ex.Proof == nil || ex.Proof.Title != "Second" {
		t.Fatalf("question read as %+v", ex)
	}
	// a bookmark by its clock, a proof at a clock no bookmark has
	s, err = Parse("quiz.yaml", []byte(strings.NewReplacer("bookmark: First", `bookmark: "10:00:01"`, `proof: "10:00:02"`, `proof: "10:00:01.5"`).Replace(quiz)))
	if err != nil {
		t.Fatal(err)
	}
	if ex := s.Exercises[0]; ex.Ask.Title != "First" || ex.Proof.Title != "" || ex.Proof.At.Clock() != "10:00:01.500" || ex.Proof.Msg != -1 {
		t.Fatalf("question read as %+v, proof %+v", ex, ex.Proof)
	}
}

// TestQuestionErrors: each mistake is refused at its line and column.
func TestQuestionErrors(t *testing.T) {
	cases := []struct {
		name, from, to, wantPos, wantMsg string
	}{
		{"one choice", "choices: [one, two, three]", "choices: [one]", "tiny.yaml:16:14", "1 choices: a question has 2 to 5"},
		{"six choices", "choices: [one, two, three]", "choices: [a, b, c, d, e, f]", "tiny.yaml:16:14", "6 choices"},
		{"empty choice", "choices: [one, two, three]", `choices: [one, " ", three]`, "tiny.yaml:16:20", "choice 2 is empty"},
		{"long choice", "choices: [one, two, three]", "choices: [one, " + strings.Repeat("x", 161) + "]", "tiny.yaml:16:20", "at most 160"},
		{"control character", "choices: [one, two, three]", `choices: [one, "t\x1b[2Jwo", three]`, "tiny.yaml:16:20", "control character"},
		{"a list in a choice", "choices: [one, two, three]", "choices: [one, [two], three]", "tiny.yaml:16:20", "want text"},
		{"answer out of range", "answer: 2", "answer: 4", "tiny.yaml:17:13", "answer 4: want a choice's number, 1 to 3"},
		{"answer zero", "answer: 2", "answer: 0", "tiny.yaml:17:13", "1 to 3"},
		{"answer a letter", "answer: 2", "answer: b", "tiny.yaml:17:13", "whole number"},
		{"no answer", "    answer: 2\n", "", "tiny.yaml:12:", "missing answer"},
		{"no proof", "    proof: \"10:00:02\"\n", "", "tiny.yaml:12:", "missing proof"},
		{"unknown bookmark", "bookmark: First", "bookmark: Third", "tiny.yaml:15:15", `bookmark "Third" is neither a bookmark's title nor a clock`},
		{"no bookmark at the clock", "bookmark: First", `bookmark: "10:00:03"`, "tiny.yaml:15:15", "no bookmark at 10:00:03"},
		{"bookmark before the fork", `at: "10:00:00"`, `at: "10:00:01.5"` + "\n    set: {late_ack: accept}", "tiny.yaml:16:15", "before the exercise's moment"},
		{"proof not after the question", `proof: "10:00:02"`, "proof: First", "tiny.yaml:18:12", "proof at 10:00:01 is not after the question's moment (10:00:01)"},
		{"proof before the question", `proof: "10:00:02"`, `proof: "09:59:00"`, "tiny.yaml:18:12", "not after"},
		{"proof not a moment", `proof: "10:00:02"`, "proof: later", "tiny.yaml:18:12", "neither a bookmark's title nor a clock"},
		{"answer without choices", "    choices: [one, two, three]\n", "", "tiny.yaml:15:15", "bookmark without choices"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(quiz, tc.from, tc.to, 1)
			if src == quiz {
				t.Fatalf("%q is not in the file", tc.from)
			}
			_, err := Parse("tiny.yaml", []byte(src))
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %v is not a positioned Problems", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantPos) || !strings.Contains(ps[0].Msg, tc.wantMsg) {
				t.Errorf("error %q: want %s … %q", err, tc.wantPos, tc.wantMsg)
			}
		})
	}
}

// TestQuestionErrorsInFileOrder: several mistakes in two questions come
// out in the order of the file, each once.
func TestQuestionErrorsInFileOrder(t *testing.T) {
	src := strings.NewReplacer("answer: 2", "answer: 9", `proof: "10:00:02"`, "proof: nowhere").Replace(quiz) +
		"  - key: \"2\"\n    question: Again?\n    at: \"10:00:00\"\n    choices: [only]\n    answer: 1\n    bookmark: Nope\n    proof: \"10:00:02\"\n"
	_, err := Parse("tiny.yaml", []byte(src))
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v", err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Error())
	}
	want := []string{
		"tiny.yaml:17:13: answer 9",
		"tiny.yaml:18:12: proof \"nowhere\"",
		"tiny.yaml:22:14: 1 choices",
		"tiny.yaml:24:15: bookmark \"Nope\"",
	}
	if len(got) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want %q…", i, got[i], want[i])
		}
	}
}

// FuzzQuestion mutates files with questions: whatever is accepted is a
// question the explorer can ask (two to five printable one-line choices,
// the answer among them, a proof after the question's moment), and every
// refusal has a position.
func FuzzQuestion(f *testing.F) {
	f.Add([]byte(quiz))
	for _, name := range []string{"thursday.yaml", "christmas-friday.yaml", "cashback.yaml"} {
		data, _ := bundled.ReadFile(name)
		f.Add(data)
	}
	f.Add([]byte(strings.Replace(quiz, "choices: [one, two, three]", "choices: [\"o\\u202ene\", two]", 1)))
	f.Add([]byte(strings.Replace(quiz, "answer: 2", "answer: 99999999999999999999", 1)))
	f.Add([]byte(strings.Replace(quiz, "bookmark: First", "bookmark: &b First\n    proof: *b", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := Parse("fuzz.yaml", data)
		if err != nil {
			mustPlace(t, err)
			return
		}
		for _, ex := range spec.Exercises {
			if len(ex.Choices) == 0 {
				if ex.Ask != nil || ex.Proof != nil {
					t.Fatalf("exercise %q: a bookmark or proof without choices", ex.Key)
				}
				continue
			}
			if n := len(ex.Choices); n < minChoices || n > maxChoices || ex.Answer < 0 || ex.Answer >= n {
				t.Fatalf("exercise %q: %d choices, answer %d", ex.Key, n, ex.Answer)
			}
			for _, c := range ex.Choices {
				if !printable(c, false) || strings.TrimSpace(c) == "" || len([]rune(c)) > maxChoiceRunes {
					t.Fatalf("exercise %q: choice %q", ex.Key, c)
				}
			}
			if ex.Proof == nil || ex.Proof.At <= ex.AskAt() || (ex.Ask != nil && ex.Ask.At < ex.At) {
				t.Fatalf("exercise %q: asked at %v, proof %+v", ex.Key, ex.AskAt(), ex.Proof)
			}
		}
	})
}
