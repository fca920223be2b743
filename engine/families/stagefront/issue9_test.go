package stagefront

import (
	"testing"

	"inflight/engine/families/familytest"
)

// TestEveryRunEnds: knob values the lesson never set, each to its end with
// every figure. max_receives=256 used to run for ever (receive counts were
// uint8 and wrapped before reaching it); with 20 ms leases and one receive,
// each seat's lease runs out as its update commits, the broker moves it
// aside, and the consumer still holding it sells it: every dead letter is
// a sold seat, and dead_letters_sold says so.
func TestEveryRunEnds(t *testing.T) {
	figs := []string{"sold", "crashes", "dead_letters", "dead_letters_sold", "zero_row_failures", "zero_row_successes"}
	for _, tc := range []struct {
		name string
		set  []string
		want string
	}{
		{"max_receives=256, zero_rows=failure", []string{"max_receives", "256", "zero_rows", "failure"},
			"messages 200000 deliveries 249725 effects 200000 duplicates 0 end 12:09:54.355 | held 0 done 199805 dlq 195 lost 0 | sold 200000 crashes 195 dead_letters 195 dead_letters_sold 195 zero_row_failures 49725 zero_row_successes 0"},
		{"max_receives=1000, zero_rows=failure", []string{"max_receives", "1000", "zero_rows", "failure"},
			"messages 200000 deliveries 394805 effects 200000 duplicates 0 end 18:21:54.355 | held 0 done 199805 dlq 195 lost 0 | sold 200000 crashes 195 dead_letters 195 dead_letters_sold 195 zero_row_failures 194805 zero_row_successes 0"},
		{"visibility_timeout=20ms, max_receives=1", []string{"visibility_timeout", "20ms", "max_receives", "1"},
			"messages 200000 deliveries 200000 effects 200000 duplicates 0 end 10:01:56.234 | held 0 done 0 dlq 200000 lost 0 | sold 200000 crashes 195 dead_letters 200000 dead_letters_sold 200000 zero_row_failures 0 zero_row_successes 0"},
		{"crash_p=1, restart_after=0s, visibility_timeout=1ms", []string{"crash_p", "1", "restart_after", "0s", "visibility_timeout", "1ms"},
			"messages 200000 deliveries 600000 effects 200000 duplicates 0 end 10:05:15 | held 0 done 0 dlq 200000 lost 0 | sold 200000 crashes 600000 dead_letters 200000 dead_letters_sold 200000 zero_row_failures 0 zero_row_successes 400000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := familytest.Play(t, testSpec(), 1, familytest.Set(tc.set...), familytest.Fork{}, 50_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestForkKeepsTheDelivery: hold 2291's second delivery begins at
// 10:00:31.200 and its update matches zero rows at 10:00:31.220. A fork to
// zero_rows=failure at 10:00:31.210 applies to the deliveries after it;
// 2291's keeps the handler it began with (success, acked), where the knob
// used to be read again at the update. A fork 10 ms before the delivery
// fails it with the rest.
func TestForkKeepsTheDelivery(t *testing.T) {
	figs := []string{"sold", "crashes", "dead_letters", "dead_letters_sold", "zero_row_failures", "zero_row_successes"}
	for _, tc := range []struct {
		at   string
		want string
	}{
		{"10:00:31.19", "messages 200000 deliveries 200390 effects 200000 duplicates 0 end 10:03:24.334 | held 0 done 199805 dlq 195 lost 0 | sold 200000 crashes 195 dead_letters 195 dead_letters_sold 195 zero_row_failures 390 zero_row_successes 0"},
		{"10:00:31.21", "messages 200000 deliveries 200389 effects 200000 duplicates 0 end 10:03:24.333 | held 0 done 199806 dlq 194 lost 0 | sold 200000 crashes 195 dead_letters 194 dead_letters_sold 194 zero_row_failures 388 zero_row_successes 1"},
	} {
		t.Run(tc.at, func(t *testing.T) {
			r := familytest.Play(t, testSpec(), 1, nil, familytest.Fork{At: tc.at, Set: familytest.Set(failure.Knob, failure.Value)}, 10_000_000)
			if got := familytest.Line(r, figs...); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestCloneWithShortLeases: a checkpoint while leases run out under
// consumers still handling dead-lettered seats.
func TestCloneWithShortLeases(t *testing.T) {
	familytest.CloneMidRun(t, testSpec(), 1, familytest.Set("visibility_timeout", "20ms", "max_receives", "1"), "10:00:30",
		"sold", "dead_letters", "dead_letters_sold")
}
