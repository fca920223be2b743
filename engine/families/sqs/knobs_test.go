package sqs

import (
	"slices"
	"testing"

	"inflight/engine"
)

// The descriptor is whole, and lists the knobs the engine takes for an
// incident that names none.
func TestDescriptor(t *testing.T) {
	if err := Descriptor.Check(); err != nil {
		t.Fatal(err)
	}
	got, want := Descriptor.KnobNames(), slices.Clone(engine.QueueKnobs)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("knobs %v, engine.QueueKnobs %v", got, want)
	}
}
