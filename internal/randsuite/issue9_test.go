package randsuite

import (
	"strings"
	"testing"

	"inflight/engine"
)

// The runs issue 9 names, each a regression test under the same checker
// as the random suite: every invariant holds on each of them.
var issue9Runs = []string{
	// the ordered queue that stalled once publishing ended
	"inflight run christmas-friday --set visibility_timeout=60s --set max_receives=3",
	// all four workers wedged holding their leases: held, not lost
	"inflight run thursday --set heartbeat=10s --set wedge_p=0.5",
	// forks that change a rule mid-flight
	"inflight run thursday --at 19:40:21 --set mode=ordered",
	"inflight run christmas-friday --at 17:55:00.1 --set ack=before",
	"inflight run christmas-friday --at 16:50:00.1 --set ack=after",
	"inflight run thursday --at 19:45:00 --set orders=6",
	"inflight run cashback --at 10:00:02 --set events=100",
	// runs that never ended
	"inflight run stagefront --set max_receives=256 --set zero_rows=failure",
	"inflight run cashback --set crash_p=1 --set events=1",
	"inflight run galewatch --set write_timeout_p=1",
	// small miscounts
	"inflight run cashback --set events=0",
	"inflight run stagefront --set visibility_timeout=20ms --set max_receives=1",
}

func TestIssue9Runs(t *testing.T) {
	gens := map[string]*Gen{}
	for _, line := range issue9Runs {
		c := parseRepro(t, line)
		g := gens[c.Spec.ID]
		if g == nil {
			var err error
			if g, err = genFor(c.Spec); err != nil {
				t.Fatal(err)
			}
			gens[c.Spec.ID] = g
		}
		r := g.Check(c, true)
		if len(r.Errs) > 0 {
			t.Errorf("%s\n\t%s", line, strings.Join(r.Errs, "\n\t"))
		}
	}
}

// TestChristmasFridayDrains: the ordered queue's stall, with its full
// figures. With a 60 s lease the poison messages reach the DLQ after the
// last order is published; the forty still redrive, every order is
// emailed once, nothing is left or lost.
func TestChristmasFridayDrains(t *testing.T) {
	for _, line := range []string{
		"inflight run christmas-friday --set visibility_timeout=60s --set max_receives=3",
		"inflight run christmas-friday --set visibility_timeout=45s",
		"inflight run christmas-friday --set visibility_timeout=120s",
		"inflight run christmas-friday --set max_receives=4",
		"inflight run christmas-friday --set max_receives=6",
		"inflight run christmas-friday --set latency_min=1s --set latency_max=2s",
	} {
		c := parseRepro(t, line)
		g := &Gen{Spec: c.Spec, Events: 10_000}
		var dlqAt []engine.Time
		var redriveAt []engine.Time
		rec := &recorder{f: func(e *engine.Event) {
			switch e.Kind {
			case engine.EvDLQ:
				dlqAt = append(dlqAt, e.T)
			case engine.EvRedrive:
				redriveAt = append(redriveAt, e.T)
			}
		}}
		r := g.check(c, true, rec)
		if len(r.Errs) > 0 {
			t.Errorf("%s\n\t%s", line, strings.Join(r.Errs, "\n\t"))
		}
		k := r.Counts
		if k.Messages != 880 || k.Effects != 880 || k.Duplicates != 0 || k.Done != 880 || k.Lost != 0 || k.DLQ != 0 || k.Held != 0 {
			t.Errorf("%s: %+v, want 880 messages each emailed once, none left, lost or in the DLQ", line, k)
		}
		// the repair script runs when the fortieth poison message reaches
		// the DLQ, at that moment
		if len(dlqAt) != 40 || len(redriveAt) != 1 || redriveAt[0] != dlqAt[39] {
			t.Errorf("%s: %d dead letters, redrives at %v; want one redrive at the fortieth dead letter", line, len(dlqAt), redriveAt)
		}
	}
}

type recorder struct{ f func(*engine.Event) }

func (r *recorder) Event(_ *engine.World, e *engine.Event, _ *engine.Decision) { r.f(e) }
