package hunt

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestQuickAgreesWithFlat: the fast reading of a summary key gives what
// the summary's flat form gives, for every key of every incident's run
// that quick answers.
func TestQuickAgreesWithFlat(t *testing.T) {
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
		if err != nil {
			t.Fatal(err)
		}
		answered := 0
		for k, want := range sum.Flat() {
			if got, ok := quick(&sum, k); ok {
				answered++
				if got != want {
					t.Errorf("%s: quick(%s) = %q, Flat says %q", id, k, got, want)
				}
			}
		}
		if answered < 8 {
			t.Errorf("%s: quick answered %d keys, want the 8 counts and the figures", id, answered)
		}
	}
}
