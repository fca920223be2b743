package fifowindow_test

import (
	"testing"

	"inflight/engine/families/familytest"
)

// TestEveryRunEnds: the one order at the knobs' edges — a queue that
// remembers nothing, a producer that never retries, one that retries past
// the window — ends done (at least one email), never held. A fork that
// lowers retry_deadline stops the retry already scheduled (minute 3,
// scheduled at 14:01 under the 10-minute deadline): it used to be sent.
func TestEveryRunEnds(t *testing.T) {
	figs := []string{"attempts", "accepted", "dropped_duplicates", "emails", "producer_gave_up"}
	for _, tc := range []struct {
		name string
		set  []string
		fork familytest.Fork
		want string
	}{
		{"defaults", nil, familytest.Fork{},
			"messages 1 deliveries 2 effects 2 duplicates 1 end 14:07:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 4 accepted 2 dropped_duplicates 2 emails 2 producer_gave_up false"},
		{"dedup_window=0s", []string{"dedup_window", "0s"}, familytest.Fork{},
			"messages 1 deliveries 4 effects 4 duplicates 3 end 14:07:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 4 accepted 4 dropped_duplicates 0 emails 4 producer_gave_up false"},
		{"retry_deadline=0s", []string{"retry_deadline", "0s"}, familytest.Fork{},
			"messages 1 deliveries 1 effects 1 duplicates 0 end 14:00:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 1 accepted 1 dropped_duplicates 0 emails 1 producer_gave_up true"},
		{"dedup_window=0s, retry_deadline=0s", []string{"dedup_window", "0s", "retry_deadline", "0s"}, familytest.Fork{},
			"messages 1 deliveries 1 effects 1 duplicates 0 end 14:00:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 1 accepted 1 dropped_duplicates 0 emails 1 producer_gave_up true"},
		{"retry_deadline=0s at 14:02", nil, familytest.Fork{At: "14:02:00", Set: familytest.Set("retry_deadline", "0s")},
			"messages 1 deliveries 1 effects 1 duplicates 0 end 14:03:00 | held 0 done 1 dlq 0 lost 0 | attempts 2 accepted 1 dropped_duplicates 1 emails 1 producer_gave_up true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, spec(t), 1, familytest.Set(tc.set...), tc.fork, 1_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
