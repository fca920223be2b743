package kafkarestart_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
)

var clock = familytest.Clock

var restart = []engine.Action{{Name: "restart_producer"}}

// storedBefore sums the records the producer stored before the operator's
// restart, from the produce events' offsets ("stored at offsets 0–38"),
// and returns the restart's caption.
func storedBefore(t testing.TB, tr *bytes.Buffer) (n int64, caption string) {
	t.Helper()
	for _, l := range familytest.Trace(t, tr) {
		switch l.Kind {
		case "produce":
			var a, b int64
			i := strings.Index(l.Caption, "stored at offsets ")
			if _, err := fmt.Sscanf(l.Caption[i:], "stored at offsets %d–%d", &a, &b); err != nil {
				t.Fatalf("%q: %v", l.Caption, err)
			}
			n += b - a + 1
		case "restart_producer":
			if l.Actor != "operator" {
				t.Errorf("restart's actor %q", l.Actor)
			}
			return n, l.Caption
		}
	}
	t.Fatal("no restart_producer event")
	return 0, ""
}

// An operator restarts the producer at a moment of the user's choosing:
// what it had stored is stored again under a new producer id, unless a
// transactional.id fences the old epoch and aborts its records; after the
// batch is recorded as sent, nothing is sent again. Figures against the
// same run without the restart.
func TestRestartProducer(t *testing.T) {
	spec := familytest.Incident(t, "kafka-restart")
	for _, tc := range []struct {
		txn, at string
		// what the restart found: "mid" (killed mid-batch), "done", "down", "not started"
		found string
	}{
		{"", "10:00:01.02", "mid"},       // instance 1, after its first batch
		{"shop-1", "10:00:01.02", "mid"}, // the same, transactional
		{"", "10:00:04.20", "mid"},       // instance 2, the deploy's restart, mid-batch
		{"shop-1", "10:00:04.20", "mid"},
		{"", "10:00:05", "done"}, // instance 2 recorded the batch as sent
		{"shop-1", "10:00:05", "done"},
		{"", "10:00:02", "down"}, // the deploy's kill: already down
		{"", "10:00:00", "not started"},
	} {
		t.Run(tc.txn+"@"+tc.at, func(t *testing.T) {
			var set []engine.Setting
			if tc.txn != "" {
				set = []engine.Setting{{Knob: "transactional_id", Value: tc.txn}}
			}
			base := familytest.Summary(t, spec, spec.Seed, set...)
			var tr bytes.Buffer
			got, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set, HasAt: true, At: clock(t, tc.at), AtDo: restart, Trace: &tr})
			if err != nil {
				t.Fatal(err)
			}
			stored, caption := storedBefore(t, &tr)
			t.Logf("%s: duplicates %d → %d, instances %d → %d, aborted %d → %d; %s", tc.found, base.DuplicateEffects, got.DuplicateEffects,
				base.Figure("producer_instances"), got.Figure("producer_instances"), base.Figure("records_aborted"), got.Figure("records_aborted"), caption)
			if got.Lost != 0 || got.Messages != base.Messages {
				t.Errorf("lost %d, messages %d", got.Lost, got.Messages)
			}
			if len(got.Forks) != 1 || got.Forks[0].Name != "restart the producer @"+clock(t, tc.at).Short() {
				t.Errorf("forks %+v", got.Forks)
			}
			dups, instances := got.DuplicateEffects, got.Figure("producer_instances")
			switch tc.found {
			case "mid":
				own := stored // the killed instance's: the second's after the first's batch
				if tc.at > "10:00:04" {
					own -= base.Figure("batch")
				}
				if !strings.Contains(caption, fmt.Sprintf("(%d records already stored", own)) {
					t.Errorf("caption %q; %d stored by the killed instance", caption, own)
				}
				if instances != base.Figure("producer_instances")+boolInt(tc.at > "10:00:04") {
					t.Errorf("%d producer instances", instances)
				}
				if tc.txn != "" {
					// fenced: each record read once; the killed instances'
					// records are aborted
					if dups != 0 || got.Figure("records_aborted") != stored {
						t.Errorf("duplicates %d, aborted %d; want 0 and the %d stored before the restart", dups, got.Figure("records_aborted"), stored)
					}
					break
				}
				// every record stored before the kill is stored again
				if dups != stored || got.Figure("records_stored_twice") != stored {
					t.Errorf("duplicates %d, stored twice %d; want the %d stored before the restart", dups, got.Figure("records_stored_twice"), stored)
				}
				if earlier := tc.at < "10:00:01.16"; earlier != (dups < base.DuplicateEffects) {
					t.Errorf("duplicates %d against %d without the restart", dups, base.DuplicateEffects)
				}
			case "done":
				if dups != base.DuplicateEffects || instances != base.Figure("producer_instances")+1 || !strings.Contains(caption, "nothing is buffered") {
					t.Errorf("duplicates %d (%d), instances %d; %q", dups, base.DuplicateEffects, instances, caption)
				}
			default:
				if dups != base.DuplicateEffects || instances != base.Figure("producer_instances") || !strings.Contains(caption, "nothing") {
					t.Errorf("duplicates %d (%d), instances %d; %q", dups, base.DuplicateEffects, instances, caption)
				}
			}
		})
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// A fork that restarts the producer is carried by its share code: it opens
// to the same branch and replays to the same trace.
func TestRestartProducerCode(t *testing.T) {
	spec := familytest.Incident(t, "kafka-restart")
	for _, at := range []string{"10:00:01.02", "10:00:04.20", "10:00:30"} {
		b, want, code := familytest.ForkCode(t, spec, clock(t, at), restart)
		if w := b.Words(); len(w) != 1 || w[0] != "restart the producer" {
			t.Errorf("words %q", w)
		}
		if !strings.Contains(code, ";do=restart_producer#") {
			t.Fatalf("code %s", code)
		}
		familytest.CodeRoundTrip(t, spec, code, b.Name, want)
	}
}

// Bad actions are refused naming what is wrong.
func TestRestartProducerRefused(t *testing.T) {
	spec := familytest.Incident(t, "kafka-restart")
	familytest.Refused(t, spec, [][2]string{
		{"restart_producer=now", `action "restart_producer=now": restart_producer takes no argument`},
		{"restart", `incident kafka-restart's actions are restart_producer`},
	})
}
