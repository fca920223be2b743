package dbdown_test

import (
	"testing"

	"inflight/engine/families/familytest"
)

// TestEveryMessageAccounted: every message ends written (done) or in the
// dead letter queue — none held, none lost — with the breaker off, on, or
// switched at a fork either way; the DLQ's messages are the ones retried
// four times inside the outage.
func TestEveryMessageAccounted(t *testing.T) {
	figs := []string{"retries", "db_errors", "breaker_opened", "probes", "rows_written", "requeued"}
	for _, tc := range []struct {
		name string
		set  []string
		fork familytest.Fork
		want string
	}{
		{"breaker=false", nil, familytest.Fork{},
			"messages 3000 deliveries 6592 effects 1814 duplicates 0 end 10:19:59.55 | held 0 done 1814 dlq 1186 lost 0 | retries 3592 db_errors 4778 breaker_opened 0 probes 0 rows_written 1814 requeued 0"},
		{"breaker=true", []string{"breaker", "true"}, familytest.Fork{},
			"messages 3000 deliveries 3024 effects 3000 duplicates 0 end 10:19:59.55 | held 0 done 3000 dlq 0 lost 0 | retries 4 db_errors 24 breaker_opened 20 probes 20 rows_written 3000 requeued 3"},
		{"breaker on at 10:05", nil, familytest.Fork{At: "10:05:00", Set: familytest.Set("breaker", "true")},
			"messages 3000 deliveries 4802 effects 2414 duplicates 0 end 10:19:59.55 | held 0 done 2414 dlq 586 lost 0 | retries 1792 db_errors 2388 breaker_opened 10 probes 10 rows_written 2414 requeued 14"},
		{"breaker off at 10:05", []string{"breaker", "true"}, familytest.Fork{At: "10:05:00", Set: familytest.Set("breaker", "false")},
			"messages 3000 deliveries 6606 effects 1814 duplicates 0 end 10:19:59.55 | held 0 done 1814 dlq 1186 lost 0 | retries 3596 db_errors 4792 breaker_opened 10 probes 9 rows_written 1814 requeued 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, spec(t), 1, familytest.Set(tc.set...), tc.fork, 10_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
