package incidents

import (
	"strings"
	"testing"

	"inflight/engine"
)

// The exercises whose action is the lesson's point in db-down, ordering
// and cashback: their proofs' figures, read from the runs.
func init() {
	if proofs["db-down"] == nil {
		proofs["db-down"] = map[string]proofCheck{}
	}
	proofs["db-down"]["3"] = proofCheck{ // pause=10m at 10:00: no dead letters
		ask: func(t *testing.T, w *engine.World) {
			if w.DLQLen() != 0 || w.Stats.Effects != 600 {
				t.Errorf("asked with %d dead letters, %d written; want 0 and 600", w.DLQLen(), w.Stats.Effects)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			w := x.World()
			if s := w.States(); s.DLQ != 0 || w.Stats.DLQTotal != 0 || s.Done != 3000 || w.Stats.Effects != 3000 {
				t.Errorf("proof shows %+v, %d ever dead-lettered, %d written; want all 3000 written, none in the drawer", s, w.Stats.DLQTotal, w.Stats.Effects)
			}
			if got := alertAt(t, x, "consumer_lag"); got != "10:05:00.000" {
				t.Errorf("consumer_lag fired at %q, want 10:05:00", got)
			}
			if age := w.Stats.MaxOldestAge; age < 10*engine.Minute || age > 10*engine.Minute+engine.Second {
				t.Errorf("the oldest event waited %vs at most, want ten minutes", age.Seconds())
			}
			// the backlog drains by 10:11: one or two waiting, as before the outage
			drained, from := "", x.Pos()-int64(len(between))
			for i, e := range between {
				if e.Event.T >= 10*engine.Hour+10*engine.Minute && drained == "" {
					x.Goto(from + int64(i) + 1)
					if x.World().States().Held <= 2 {
						drained = e.Event.T.Clock()
					}
				}
			}
			if drained < "10:11:00" || drained >= "10:11:10" {
				t.Errorf("the backlog drained at %q, want a little after 10:11", drained)
			}
		},
	}
}

// alertAt is the clock the named alert first fired on x's branch by its
// cursor, "" never.
func alertAt(t *testing.T, x *engine.Explorer, name string) string {
	t.Helper()
	for i, a := range x.World().Spec().Alerts {
		if a.Name == name {
			if at := x.World().AlertAt[i]; at >= 0 {
				return at.Clock()
			}
			return ""
		}
	}
	t.Fatalf("no alert %s", name)
	return ""
}

// forkRun is the end of a fork of the lesson's run at moment m taking
// the actions, as `inflight run ID --at M --do A` plays it.
func forkRun(t *testing.T, id, moment string, set []engine.Setting, acts ...string) *engine.World {
	t.Helper()
	spec, err := Get(id)
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if moment != "" {
		m, err := engine.ParseForkMoment(moment)
		if err != nil {
			t.Fatal(err)
		}
		var as []engine.Action
		for _, s := range acts {
			a, err := engine.ParseAction(s)
			if err != nil {
				t.Fatal(err)
			}
			as = append(as, a)
		}
		x.Goto(x.PosOfMoment(x.Branch(), m))
		if _, err := x.Fork(engine.ForkOptions{Name: "t", Pos: x.Pos(), At: m.At, Set: set, Actions: as}); err != nil {
			t.Fatal(err)
		}
	}
	x.End()
	return x.World()
}

// The figures the action exercises' explains compare with.
func TestActionExerciseFigures(t *testing.T) {
	for _, tc := range []struct {
		what, id, at string
		set          []engine.Setting
		do           []string
		check        func(w *engine.World) (got, want any)
	}{
		{"db-down's lesson run: the drawer", "db-down", "", nil, nil,
			func(w *engine.World) (any, any) { return w.DLQLen(), 1186 }},
		{"db-down paused at 10:00", "db-down", "10:00:00", nil, []string{"pause=10m"},
			func(w *engine.World) (any, any) { return w.DLQLen(), 0 }},
		{"db-down paused ten seconds late", "db-down", "10:00:10", nil, []string{"pause=10m"},
			func(w *engine.World) (any, any) { return w.DLQLen(), 6 }},
		{"db-down paused early, resuming while the database is down", "db-down", "09:59:50", nil, []string{"pause=10m"},
			func(w *engine.World) (any, any) { return w.DLQLen(), 27 }},
		{"ordering's lesson run: the worst lag", "ordering", "", nil, nil,
			func(w *engine.World) (any, any) { return int(w.Stats.MaxOldestAge.Seconds() + 0.5), 154 }},
		{"ordering with three more consumers at 12:03: the worst lag", "ordering", "12:03:00", nil, []string{"consumers=+3"},
			func(w *engine.World) (any, any) { return int(w.Stats.MaxOldestAge.Seconds() + 0.5), 42 }},
		// a credit is ₹100: the balance is 100 a credit
		{"cashback's lesson run: the balance", "cashback", "", nil, nil,
			func(w *engine.World) (any, any) { return 100 * w.Stats.Effects, int64(505500) }},
		{"cashback replaying the pending list at 10:00:05.003", "cashback", "10:00:05.003", nil, []string{"replay_pending"},
			func(w *engine.World) (any, any) { return 100 * w.Stats.Effects, int64(506400) }},
		{"the same replay with dedupe", "cashback", "10:00:05.003", []engine.Setting{{Knob: "dedupe", Value: "true"}}, []string{"replay_pending"},
			func(w *engine.World) (any, any) { return 100 * w.Stats.Effects, int64(500000) }},
		{"the replay of entries idle 30 s: none of the nine", "cashback", "10:00:05.003", nil, []string{"replay_pending=min_idle:30s"},
			func(w *engine.World) (any, any) { return w.Stats.Duplicates, int64(55) }},
	} {
		w := forkRun(t, tc.id, tc.at, tc.set, tc.do...)
		if got, want := tc.check(w); got != want {
			t.Errorf("%s: %v, want %v", tc.what, got, want)
		}
	}
}

func init() {
	if proofs["ordering"] == nil {
		proofs["ordering"] = map[string]proofCheck{}
	}
	proofs["ordering"]["6"] = proofCheck{ // consumers=+5: two sit idle
		ask: func(t *testing.T, w *engine.World) {
			if w.Stats.Duplicates != 0 {
				t.Errorf("asked with %d records handled again", w.Stats.Duplicates)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			w := x.World()
			if ws := x.Branch().Words(); len(ws) != 1 || ws[0] != "add 5 consumers, 2 of 8 idle (6 partitions)" {
				t.Errorf("the fork in words %q does not say two of eight sit idle", ws)
			}
			reading := map[string]bool{}
			for _, e := range between {
				if e.Event.Kind == engine.EvDeliver {
					// "fulfilment-4 handles order 350 …"
					reading[strings.Fields(e.Caption)[0]] = true
				}
			}
			if len(reading) != 6 {
				t.Errorf("%d consumers read after the five started (%v), want 6, one a partition", len(reading), reading)
			}
			if s := w.States(); s.Held != 0 || w.Stats.Duplicates != 13 {
				t.Errorf("proof shows %d still held, %d handled again; want 0 and 13", s.Held, w.Stats.Duplicates)
			}
			if got := int(w.Stats.MaxOldestAge.Seconds() + 0.5); got != 42 {
				t.Errorf("worst lag %vs, want 42 s", w.Stats.MaxOldestAge.Seconds())
			}
		},
	}
}

func init() {
	proofs["cashback"]["4"] = proofCheck{ // a replay while the consumer works: nine credited twice
		ask: func(t *testing.T, w *engine.World) {
			if w.Stats.Duplicates != 0 || w.Stats.Crashes != 0 {
				t.Errorf("asked with %d duplicates, %d crashes; want none", w.Stats.Duplicates, w.Stats.Crashes)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			w := x.World()
			if ws := x.Branch().Words(); len(ws) != 1 || ws[0] != "replay 9 pending entries" {
				t.Errorf("the fork in words %q; want the nine claimed", ws)
			}
			twice := map[int32]bool{}
			for _, e := range between {
				if e.Event.Kind == engine.EvEffect && strings.HasPrefix(e.Caption, "the replay credits") {
					twice[e.Event.Msg] = true
				}
			}
			if len(twice) != 9 || w.Stats.Duplicates != 9 || w.Stats.Crashes != 0 {
				t.Errorf("%d events credited by the replay, %d duplicates, %d crashes; want 9, 9, none", len(twice), w.Stats.Duplicates, w.Stats.Crashes)
			}
			for id := range twice {
				if m := msgOf(t, w, id); m.Effects != 2 {
					t.Errorf("event %d credited %d times, want 2", id, m.Effects)
				}
			}
		},
	}
}
