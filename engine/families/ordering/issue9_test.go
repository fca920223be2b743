package ordering_test

import (
	"testing"

	"inflight/engine/families/familytest"
)

// TestExtremeKnobs: the widest settings end, with every event accounted
// for (applied or ignored once, none held at the end).
func TestExtremeKnobs(t *testing.T) {
	figs := []string{"orders", "partitions", "rebalances", "out_of_order", "wrong_final", "handler_failures", "retried_to_tail"}
	for _, tc := range []struct {
		name string
		set  []string
		fork familytest.Fork
		want string
	}{
		{"consumer_threads=64, repartition=1024", []string{"consumer_threads", "64", "repartition", "1024"}, familytest.Fork{},
			"messages 4680 deliveries 4809 effects 4680 duplicates 0 end 12:10:06.309 | held 0 done 4680 dlq 0 lost 0 | orders 1560 partitions 1024 rebalances 1 out_of_order 112 wrong_final 69 handler_failures 129 retried_to_tail 0"},
		{"key=none, retry=to_tail, versions", []string{"key", "none", "retry", "to_tail", "versions", "true"}, familytest.Fork{},
			"messages 4680 deliveries 4809 effects 4680 duplicates 0 end 12:11:23.117 | held 0 done 4680 dlq 0 lost 0 | orders 1560 partitions 6 rebalances 0 out_of_order 236 wrong_final 0 handler_failures 129 retried_to_tail 129"},
		{"at 12:04:59.9 repartition=7, consumer_threads=1", []string{"consumer_threads", "16"}, familytest.Fork{At: "12:04:59.9", Set: familytest.Set("repartition", "7", "consumer_threads", "1")},
			"messages 4680 deliveries 4832 effects 4703 duplicates 23 end 12:10:11.924 | held 0 done 4680 dlq 0 lost 0 | orders 1560 partitions 7 rebalances 1 out_of_order 68 wrong_final 36 handler_failures 129 retried_to_tail 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, spec(t), 1, familytest.Set(tc.set...), tc.fork, 10_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
