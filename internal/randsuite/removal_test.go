package randsuite

import (
	"strings"
	"testing"
)

// removalRuns are the runs in which a worker acked a message another
// worker's accepted late ack had already deleted, and the engine counted
// the removal twice (done above messages, held_at_end negative): the one
// first reported, the random suite's finds (seed 101, -randsuite.n=10),
// and one for each handler that can ack a deleted message. Each is held
// to the suite's checker and to its final counts.
var removalRuns = []struct {
	line string
	want Counts
}{
	{"inflight run thursday-fixed --set late_ack=accept --set visibility_timeout=22ms --set latency_min=16ms --set latency_max=40ms --set restart_after=8ms",
		Counts{Messages: 108, Done: 108, Effects: 108}},
	{"inflight run christmas-friday --seed 461347 --set claim=true --set claim_window=34.765s --set late_ack=accept --set latency_min=0s --set max_receives=4 --set visibility_timeout=24ms --set wedge_p=0 --at 17:27:00.412",
		Counts{Messages: 880, Done: 855, DLQ: 25, Effects: 856}},
	{"inflight run christmas-friday --seed 160392 --set claim=true --set heartbeat=0s --set late_ack=accept --set latency_min=0s --set orders=14 --set visibility_timeout=45ms",
		Counts{Messages: 54, Done: 54, Effects: 54}},
	{"inflight run christmas-friday --seed 515308 --set claim=true --set late_ack=accept --set latency_min=27ms --set visibility_timeout=69ms --at 17:07:44.11",
		Counts{Messages: 880, Done: 868, DLQ: 12, Effects: 868}},
	// the claim handler's "sent_at stamped" ack, on every order
	{"inflight run thursday-fixed --set late_ack=accept --set visibility_timeout=20ms --set latency_min=20ms --set latency_max=20ms",
		Counts{Messages: 108, Done: 108, Effects: 108}},
	// an ack-after handler's on-time ack
	{"inflight run thursday --set late_ack=accept --set visibility_timeout=20ms --set latency_min=10ms --set latency_max=60ms",
		Counts{Messages: 108, Done: 108, Effects: 223, Duplicates: 115}},
	// an ack-before handler's ack, the delivery after a fork to ack=before
	{"inflight run thursday-fixed --set late_ack=accept --set visibility_timeout=20ms --set latency_min=20ms --set latency_max=20ms --at 19:44:30.01 --set ack=before",
		Counts{Messages: 108, Done: 108, Effects: 111, Duplicates: 3}},
}

func TestRemovalRuns(t *testing.T) {
	gens := map[string]*Gen{}
	for _, row := range removalRuns {
		c := parseRepro(t, row.line)
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
			t.Errorf("%s\n\t%s", row.line, strings.Join(r.Errs, "\n\t"))
			continue
		}
		if r.Counts != row.want {
			t.Errorf("%s\n\tcounts %+v\n\twant   %+v", row.line, r.Counts, row.want)
		}
	}
}
