package cashback

import (
	"testing"

	"inflight/engine/families/familytest"
)

var issue9Figs = []string{"balance", "expected_balance", "crashes", "dead_lettered", "skipped", "pending"}

// TestEveryRunEnds: a consumer that crashes on every delivery used to
// re-read its pending list for ever; it now moves an entry re-read more
// than max_receives times to the dead-letter stream. events=0 ends at its
// start (the consumer finds the stream empty), not at 00:00:00.
func TestEveryRunEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  []string
		want string
	}{
		{"events=0", []string{"events", "0"},
			"messages 0 deliveries 0 effects 0 duplicates 0 end 10:00:00 | held 0 done 0 dlq 0 lost 0 | balance 0 expected_balance 0 crashes 0 dead_lettered 0 skipped 0 pending 0"},
		{"crash_p=1, events=1", []string{"crash_p", "1", "events", "1"},
			"messages 1 deliveries 11 effects 10 duplicates 9 end 10:00:10.034 | held 0 done 0 dlq 1 lost 0 | balance 1000 expected_balance 100 crashes 10 dead_lettered 1 skipped 0 pending 0"},
		{"crash_p=1, events=25", []string{"crash_p", "1", "events", "25"},
			"messages 25 deliveries 275 effects 30 duplicates 27 end 10:00:30.146 | held 0 done 0 dlq 25 lost 0 | balance 3000 expected_balance 2500 crashes 30 dead_lettered 25 skipped 0 pending 0"},
		{"crash_p=1, events=25, dedupe=true", []string{"crash_p", "1", "events", "25", "dedupe", "true"},
			"messages 25 deliveries 275 effects 3 duplicates 0 end 10:00:30.146 | held 0 done 0 dlq 25 lost 0 | balance 300 expected_balance 2500 crashes 30 dead_lettered 25 skipped 27 pending 0"},
		{"crash_p=1, events=25, dedupe=separate", []string{"crash_p", "1", "events", "25", "dedupe", "separate"},
			"messages 25 deliveries 275 effects 0 duplicates 0 end 10:00:30.146 | held 0 done 0 dlq 25 lost 0 | balance 0 expected_balance 2500 crashes 30 dead_lettered 25 skipped 27 pending 0"},
		{"crash_p=1, events=3, max_receives=1000, restart_after=0s", []string{"crash_p", "1", "events", "3", "max_receives", "1000", "restart_after", "0s"},
			"messages 3 deliveries 3003 effects 1000 duplicates 999 end 10:00:03.008 | held 0 done 0 dlq 3 lost 0 | balance 100000 expected_balance 300 crashes 1000 dead_lettered 3 skipped 0 pending 0"},
		{"crash_p=1, max_receives=1", []string{"crash_p", "1", "max_receives", "1"},
			"messages 5000 deliveries 10000 effects 500 duplicates 0 end 10:08:32.5 | held 0 done 0 dlq 5000 lost 0 | balance 50000 expected_balance 500000 crashes 500 dead_lettered 5000 skipped 0 pending 0"},
		{"crash_p=0.5, events=200, max_receives=3", []string{"crash_p", "0.5", "events", "200", "max_receives", "3"},
			"messages 200 deliveries 637 effects 140 duplicates 40 end 10:01:00.7 | held 0 done 80 dlq 120 lost 0 | balance 14000 expected_balance 20000 crashes 60 dead_lettered 120 skipped 0 pending 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, testSpec(), 10, familytest.Set(tc.set...), familytest.Fork{}, 10_000_000)
			if got := familytest.Line(r, issue9Figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestForkCounts: a fork's events applies from its moment. Lowered below
// what is written, the producer writes nothing more (the XADD already due
// used to write one more entry, 2,001 for events=100 at 10:00:02); raised,
// it writes on.
func TestForkCounts(t *testing.T) {
	for _, tc := range []struct {
		at, events string
		want       string
	}{
		{"10:00:02", "100", "messages 2000 deliveries 2113 effects 2019 duplicates 19 end 10:00:25.276 | held 0 done 2000 dlq 0 lost 0 | balance 201900 expected_balance 200000 crashes 19 dead_lettered 0 skipped 0 pending 0"},
		{"10:00:00", "0", "messages 0 deliveries 0 effects 0 duplicates 0 end 10:00:00 | held 0 done 0 dlq 0 lost 0 | balance 0 expected_balance 0 crashes 0 dead_lettered 0 skipped 0 pending 0"},
		{"10:00:00.05", "100", "messages 100 deliveries 100 effects 100 duplicates 0 end 10:00:00.31 | held 0 done 100 dlq 0 lost 0 | balance 10000 expected_balance 10000 crashes 0 dead_lettered 0 skipped 0 pending 0"},
		{"10:00:04.999", "4999", "messages 4999 deliveries 5298 effects 5054 duplicates 55 end 10:01:10.717 | held 0 done 4999 dlq 0 lost 0 | balance 505400 expected_balance 499900 crashes 55 dead_lettered 0 skipped 0 pending 0"},
		{"10:00:02", "6000", "messages 6000 deliveries 6357 effects 6067 duplicates 67 end 10:01:25.868 | held 0 done 6000 dlq 0 lost 0 | balance 606700 expected_balance 600000 crashes 67 dead_lettered 0 skipped 0 pending 0"},
		{"10:00:30", "100", "messages 5000 deliveries 5299 effects 5055 duplicates 55 end 10:01:10.72 | held 0 done 5000 dlq 0 lost 0 | balance 505500 expected_balance 500000 crashes 55 dead_lettered 0 skipped 0 pending 0"},
	} {
		t.Run(tc.at+" events="+tc.events, func(t *testing.T) {
			r := familytest.Play(t, testSpec(), 10, nil, familytest.Fork{At: tc.at, Set: familytest.Set("events", tc.events)}, 10_000_000)
			if got := familytest.Line(r, issue9Figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestCloneWhileDeadLettering: a checkpoint while the consumer crashes on
// every delivery and moves entries to the dead-letter stream.
func TestCloneWhileDeadLettering(t *testing.T) {
	familytest.CloneMidRun(t, testSpec(), 10, familytest.Set("crash_p", "1", "events", "40", "max_receives", "3"), "10:00:05",
		issue9Figs...)
}
