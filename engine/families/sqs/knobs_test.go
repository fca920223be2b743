package sqs

import (
	"slices"
	"testing"
)

// The descriptor is whole, and declares the queue's fourteen knobs.
func TestDescriptor(t *testing.T) {
	if err := Descriptor.Check(); err != nil {
		t.Fatal(err)
	}
	got := Descriptor.KnobNames()
	want := []string{"orders", "mode", "visibility_timeout", "max_receives", "late_ack", "ack", "claim", "claim_window",
		"crash_after_claim", "heartbeat", "wedge_p", "latency_min", "latency_max", "restart_after"}
	if !slices.Equal(got, want) {
		t.Fatalf("knobs %v, want %v", got, want)
	}
}
