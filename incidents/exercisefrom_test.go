package incidents

import (
	"sort"
	"strings"
	"testing"
)

// lessonQuestions are the bundled exercises that are the lesson's own
// "Check your understanding" questions (the first lesson's six; the second
// lesson has none): every other exercise was written for its incident and
// must not be labelled from the lesson.
var lessonQuestions = map[string]bool{
	"thursday/1":      true, // a broker that accepts a late acknowledgement
	"cashback/1":      true, // the ack moved above a Postgres write
	"fifo-window/3":   true, // a queue that promises exactly-once delivery
	"kafka-restart/4": true, // Kafka transactions and a card processor
	"galewatch/5":     true, // Galewatch's window and Stagefront's
	"stagefront/5":    true,
	"stagefront/6":    true, // a dead letter queue and a replay script
	"cashback/3":      true,
}

func TestExercisesLabelledHonestly(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All() {
		for _, ex := range s.Exercises {
			k := s.ID + "/" + ex.Key
			seen[k] = true
			if ex.FromLesson != lessonQuestions[k] {
				t.Errorf("%s: from the lesson %v, want %v", k, ex.FromLesson, lessonQuestions[k])
			}
		}
	}
	var missing []string
	for k := range lessonQuestions {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no such exercises: %v", missing)
	}
}

func TestExerciseFromRefused(t *testing.T) {
	good := strings.Replace(quiz, `  - key: "1"`+"\n", `  - key: "1"`+"\n    from: lesson\n", 1)
	s, err := Parse("quiz.yaml", []byte(good))
	if err != nil || !s.Exercises[0].FromLesson {
		t.Fatalf("from: lesson: %v, %+v", err, s)
	}
	_, err = Parse("quiz.yaml", []byte(strings.Replace(good, "from: lesson", "from: book", 1)))
	if err == nil || !strings.Contains(err.Error(), `from "book": want lesson`) || !strings.Contains(err.Error(), "quiz.yaml:") {
		t.Fatalf("from: book gave %v", err)
	}
}
