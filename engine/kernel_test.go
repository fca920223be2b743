package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"inflight/engine"
)

// TestKernelHasNoBroker: the world is the kernel; the queue's state (its
// ring, leases, workers, sources, dispatcher) lives in its family
// (engine/families/sqs). No field of World may be, or embed, any of it.
func TestKernelHasNoBroker(t *testing.T) {
	broker := []string{"broker", "queue", "qseq", "leased", "visible", "idle", "workers", "srcsent", "dispatchon"}
	tw := reflect.TypeOf(engine.World{})
	for i := 0; i < tw.NumField(); i++ {
		f := tw.Field(i)
		if f.Anonymous {
			t.Errorf("World embeds %s", f.Type)
		}
		for _, b := range broker {
			if strings.ToLower(f.Name) == b {
				t.Errorf("World has the queue's field %s (%s)", f.Name, f.Type)
			}
		}
		if s := f.Type.String(); strings.Contains(s, "Worker") || strings.Contains(s, "deque") {
			t.Errorf("World's field %s holds the queue's %s", f.Name, s)
		}
	}
	for _, m := range []string{"Workers", "Leased", "QueueLen", "Queue"} {
		if _, ok := reflect.TypeOf(&engine.World{}).MethodByName(m); ok {
			t.Errorf("World still reads the queue: %s", m)
		}
	}
	// The kernel's record per message is ground truth only: the queue's
	// lease, claim and place (sqs.Record) are the family's. A time beside
	// Published would be a broker's timer.
	lease := []string{"leaseat", "expiry", "claimat", "sentat", "holder", "qseq", "deferred", "receipt", "visibleat"}
	tm := reflect.TypeOf(engine.Msg{})
	for i := 0; i < tm.NumField(); i++ {
		f := tm.Field(i)
		for _, b := range lease {
			if strings.ToLower(f.Name) == b {
				t.Errorf("Msg has the queue's field %s (%s)", f.Name, f.Type)
			}
		}
		if f.Type == reflect.TypeOf(engine.Time(0)) && f.Name != "Published" {
			t.Errorf("Msg has a timer, %s: a family's state", f.Name)
		}
	}
}
