package kafkarestart_test

import (
	"testing"

	"inflight/engine/families/familytest"
)

// TestForkBatch: batch is read when the first producer instance starts
// (10:00:01), so a fork before then decides how many orders there are —
// a fork at 10:00:00.5 used to publish the 100 of the start regardless —
// and a fork after it changes nothing: the orders exist, and the
// restarted producer re-sends the same ones.
func TestForkBatch(t *testing.T) {
	figs := []string{"batch", "emails", "records_stored", "records_stored_twice", "consumer_crashes"}
	for _, tc := range []struct {
		name string
		set  []string
		fork familytest.Fork
		want string
	}{
		{"at 10:00:00.5 batch=5", nil, familytest.Fork{At: "10:00:00.5", Set: familytest.Set("batch", "5")},
			"messages 5 deliveries 10 effects 10 duplicates 5 end 10:00:05.12 | held 0 done 5 dlq 0 lost 0 | batch 5 emails 10 records_stored 10 records_stored_twice 5 consumer_crashes 0"},
		{"at 10:00:00.5 batch=500", nil, familytest.Fork{At: "10:00:00.5", Set: familytest.Set("batch", "500")},
			"messages 500 deliveries 1000 effects 1000 duplicates 500 end 10:02:51.22 | held 0 done 500 dlq 0 lost 0 | batch 500 emails 1000 records_stored 1000 records_stored_twice 500 consumer_crashes 0"},
		{"at 10:00:02 batch=5", nil, familytest.Fork{At: "10:00:02", Set: familytest.Set("batch", "5")},
			"messages 100 deliveries 200 effects 200 duplicates 100 end 10:00:35.22 | held 0 done 100 dlq 0 lost 0 | batch 100 emails 200 records_stored 200 records_stored_twice 100 consumer_crashes 0"},
		{"batch=1, email_crash", []string{"batch", "1", "email_crash", "true"}, familytest.Fork{},
			"messages 1 deliveries 3 effects 3 duplicates 2 end 10:00:46.73 | held 0 done 1 dlq 0 lost 0 | batch 1 emails 3 records_stored 2 records_stored_twice 1 consumer_crashes 1"},
		{"batch=1, email_crash, transactional_id", []string{"batch", "1", "email_crash", "true", "transactional_id", "shop-1"}, familytest.Fork{},
			"messages 1 deliveries 2 effects 2 duplicates 1 end 10:00:49.56 | held 0 done 1 dlq 0 lost 0 | batch 1 emails 2 records_stored 2 records_stored_twice 0 consumer_crashes 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, spec(t), 1, familytest.Set(tc.set...), tc.fork, 10_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
