package cashback_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// ID is the incident these tests read.
const ID = "cashback"

// TestIncidentFile checks every figure incidents/cashback.yaml publishes, for
// the run and each of its forks (the rows `inflight check` prints).
func TestIncidentFile(t *testing.T) {
	spec, err := incidents.Get(ID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.CheckSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no published figures")
	}
	for _, r := range res {
		if !r.OK {
			t.Errorf("%s %s: want %s, got %s", r.Run, r.Key, r.Want, r.Got)
		}
	}
}

// TestExercisesRun: each exercise's preset fork runs to the end.
func TestExercisesRun(t *testing.T) {
	spec, err := incidents.Get(ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Exercises) == 0 {
		t.Fatal("no exercises")
	}
	for _, ex := range spec.Exercises {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: ex.At, AtSet: ex.Set})
		if err != nil {
			t.Fatalf("exercise %s: %v", ex.Key, err)
		}
		if s.DuplicateEffects < 0 || s.Events == 0 {
			t.Fatalf("exercise %s: %+v", ex.Key, s)
		}
	}
}
