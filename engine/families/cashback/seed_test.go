package cashback

import (
	"os"
	"strconv"
	"testing"

	"inflight/engine"
)

// testSpec is the incident without its file: the family at its defaults.
func testSpec() *engine.Spec {
	s := &engine.Spec{ID: "cashback", Title: "cashback", Label: "event", Start: 10 * engine.Hour, Featured: -1,
		NewFamily: New, Knobs: Knobs}
	Defaults(&s.Params)
	return s
}

func run(t testing.TB, spec *engine.Spec, seed uint64, set ...engine.Setting) engine.Summary {
	t.Helper()
	s, _, err := engine.Run(spec, engine.RunOptions{Seed: seed, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSearchSeed finds the incident's seed: the first seed from 1 whose
// default run crashes 55 times, as the lesson's run did. It is how
// cashback.yaml's seed was chosen; run it with CASHBACK_SEED_SEARCH=1.
func TestSearchSeed(t *testing.T) {
	if os.Getenv("CASHBACK_SEED_SEARCH") == "" {
		t.Skip("set CASHBACK_SEED_SEARCH=1 to search")
	}
	want, _ := strconv.Atoi(os.Getenv("CASHBACK_SEED_SEARCH"))
	if want < 2 {
		want = 55
	}
	spec := testSpec()
	for seed := uint64(1); seed < 1000; seed++ {
		s := run(t, spec, seed)
		if s.Figures["crashes"].(int64) == int64(want) {
			t.Logf("seed %d: crashes %v balance %v", seed, s.Figures["crashes"], s.Figures["balance"])
			return
		}
	}
	t.Fatal("no seed")
}
