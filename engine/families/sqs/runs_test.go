package sqs_test

import (
	"testing"

	"inflight/engine"
	"inflight/engine/families/sqs"
	"inflight/incidents"
)

// TestRunsMatchesTheWorld: Runs says what a world of the incident runs.
func TestRunsMatchesTheWorld(t *testing.T) {
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sqs.Runs(spec), sqs.Of(w) != nil; got != want {
			t.Errorf("%s: Runs %v, the world runs the queue %v", id, got, want)
		}
	}
}
