package incidents

import (
	"strings"
	"testing"

	"inflight/engine"
)

// proofCheck says what a question's proof moment must show, and what its
// asking moment must not yet: ask and proof get the explorer at each, on
// the question's branch, and the events between them.
type proofCheck struct {
	ask   func(t *testing.T, w *engine.World)
	proof func(t *testing.T, x *engine.Explorer, between []engine.Entry)
}

func msgOf(t *testing.T, w *engine.World, id int32) engine.Msg {
	t.Helper()
	m, ok := w.Msg(id)
	if !ok {
		t.Fatalf("no message %d at %s", id, w.Now.Clock())
	}
	return m
}

func has(w *engine.World, es []engine.Entry, kind string, msg int32) bool {
	for _, e := range es {
		if w.KindName(e.Event.Kind) == kind && e.Event.Msg == msg {
			return true
		}
	}
	return false
}

// proofs lists every question of every bundled incident, by incident and
// key: a question added without one fails TestQuestionsProveTheirAnswer.
var proofs = map[string]map[string]proofCheck{
	"thursday": {
		"1": { // late_ack=accept: two emails
			ask: func(t *testing.T, w *engine.World) {
				if m := msgOf(t, w, 14); !m.Held() || m.Effects != 2 {
					t.Errorf("asked with order 14 %s after %d emails; want held after 2", m.Status, m.Effects)
				}
			},
			proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
				w := x.World()
				if m := msgOf(t, w, 14); m.Held() || m.Status == engine.StDLQ || m.Effects != 2 || m.Receives != 2 {
					t.Errorf("order 14 %s after %d emails and %d deliveries; want deleted after 2 and 2", m.Status, m.Effects, m.Receives)
				}
				if !has(w, between, "ack", 14) {
					t.Error("no ack deleted order 14 between the question and the proof")
				}
			},
		},
		"5": { // the lesson's run: B's late ack is refused
			ask: func(t *testing.T, w *engine.World) {
				if m := msgOf(t, w, 14); !m.Held() || m.Effects != 2 {
					t.Errorf("asked with order 14 %s after %d emails; want held after 2", m.Status, m.Effects)
				}
			},
			proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
				w := x.World()
				refused := false
				for _, e := range between {
					if w.KindName(e.Event.Kind) == "ack_refused" && e.Event.Msg == 14 {
						refused = strings.Contains(e.Caption, "worker B")
					}
				}
				if !refused {
					t.Error("no ack of order 14 from box B refused between the question and the proof")
				}
				if m := msgOf(t, w, 14); !m.Held() || m.Effects != 2 {
					t.Errorf("order 14 %s after %d emails; want still held after 2", m.Status, m.Effects)
				}
			},
		},
	},
	"christmas-friday": {
		"1": { // ack=before: the forty acked and dropped
			ask: func(t *testing.T, w *engine.World) {
				if s := w.States(); s.Lost != 0 || s.Held != 40 {
					t.Errorf("asked with %+v; want the forty held, none lost", s)
				}
			},
			proof: func(t *testing.T, x *engine.Explorer, _ []engine.Entry) {
				w := x.World()
				if s := w.States(); s.Lost != 40 || s.DLQ != 0 || w.Stats.DLQTotal != 0 {
					t.Errorf("proof shows %+v, %d ever in the DLQ; want 40 lost, none in the drawer", s, w.Stats.DLQTotal)
				}
				for id := int32(0); id < 40; id++ {
					if m := msgOf(t, w, id); !m.Poison || m.Held() || m.Effects != 0 {
						t.Errorf("old message %d: %s, %d effects; want gone with none", id, m.Status, m.Effects)
					}
				}
				// and the moment is the one that shows it: just before it the
				// last of the forty was still held
				x.SeekTime(w.Now)
				if s := x.World().States(); s.Lost == 40 {
					t.Errorf("the forty were already lost before the proof's moment %s", w.Now.Clock())
				}
			},
		},
	},
	"cashback": {
		"2": { // dedupe=separate: a loss, not a duplicate
			ask: func(t *testing.T, w *engine.World) {
				if s := w.States(); s.Lost != 0 {
					t.Errorf("asked with %d lost", s.Lost)
				}
			},
			proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
				w := x.World()
				if m := msgOf(t, w, 133); m.Held() || m.Effects != 0 || !has(w, between, "deliver", 133) {
					t.Errorf("event 133: %s after %d credits; want redelivered, then acked with none", m.Status, m.Effects)
				}
				if s := w.States(); s.Lost != 1 || w.Stats.Duplicates != 0 {
					t.Errorf("proof shows %d lost, %d duplicates; want 1 and 0", s.Lost, w.Stats.Duplicates)
				}
				if !has(w, between, "crash", 133) || !has(w, between, "skip", 133) {
					t.Error("no crash and skip of event 133 between the question and the proof")
				}
			},
		},
		"3": { // dedupe=true: the replay is skipped
			ask: func(t *testing.T, w *engine.World) {
				if m := msgOf(t, w, 133); !m.Held() || m.Effects != 1 {
					t.Errorf("asked with event 133 %s after %d credits; want pending after 1", m.Status, m.Effects)
				}
			},
			proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
				w := x.World()
				if m := msgOf(t, w, 133); m.Held() || m.Effects != 1 || !has(w, between, "deliver", 133) {
					t.Errorf("event 133: %s after %d credits; want redelivered, then acked after 1", m.Status, m.Effects)
				}
				if !has(w, between, "skip", 133) || w.Stats.Duplicates != 0 {
					t.Errorf("no skip of the replayed event 133 (%d duplicates)", w.Stats.Duplicates)
				}
			},
		},
	},
}

// TestQuestionsProveTheirAnswer runs every bundled question as the
// explorer does, to its asking moment and on to its proof moment, and
// checks that the proof shows the answer and the asking moment does not
// yet.
func TestQuestionsProveTheirAnswer(t *testing.T) {
	n := 0
	for _, spec := range All() {
		for _, ex := range spec.Exercises {
			if len(ex.Choices) == 0 {
				continue
			}
			n++
			t.Run(spec.ID+"/"+ex.Key, func(t *testing.T) {
				check, ok := proofs[spec.ID][ex.Key]
				if !ok {
					t.Fatal("no proof check for this question: add one to proofs")
				}
				x, err := engine.NewExplorer(spec, spec.Seed, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := ex.SeekAsk(x); err != nil {
					t.Fatal(err)
				}
				if x.World().Now > ex.AskAt() {
					t.Errorf("asked at %s, after the question's moment %s", x.World().Now.Clock(), ex.AskAt().Clock())
				}
				check.ask(t, x.World())
				from := x.Pos()
				ex.SeekProof(x)
				if x.Pos() <= from || x.World().Now > ex.Proof.At {
					t.Errorf("the proof's moment %s: the cursor went from event %d to %d, at %s", ex.Proof.At.Clock(), from, x.Pos(), x.World().Now.Clock())
				}
				check.proof(t, x, x.Events(from, x.Pos()))
			})
		}
	}
	if n < 5 {
		t.Errorf("%d questions with choices in the bundled incidents; want thursday's, christmas-friday's and cashback's", n)
	}
}
