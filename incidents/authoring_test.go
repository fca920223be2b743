package incidents_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestAuthoringExample keeps docs/authoring.md honest: its worked example
// must parse and reproduce every figure it publishes, main run and forks.
func TestAuthoringExample(t *testing.T) {
	spec, err := incidents.Load("../docs/example-incident.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Expect) == 0 || len(spec.Forks) == 0 || len(spec.Exercises) == 0 {
		t.Fatalf("the example should show expect, forks and exercises: %d, %d, %d", len(spec.Expect), len(spec.Forks), len(spec.Exercises))
	}
	res, err := engine.CheckSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.OK {
			t.Errorf("%s %s: want %s, got %s", r.Run, r.Key, r.Want, r.Got)
		}
	}
	if len(res) < len(spec.Expect) {
		t.Fatalf("%d results for %d expectations", len(res), len(spec.Expect))
	}
}
