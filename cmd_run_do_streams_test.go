package main

import (
	"strings"
	"testing"
)

// The stream families' actions headless: `run ID --at CLOCK --do ACTION`,
// the fork's name in words, figures against the run without it, and the
// code that plays the same run again.
func TestRunDoStreams(t *testing.T) {
	type figs struct {
		Effects    int64   `json:"effects"`
		Dupes      int64   `json:"duplicate_effects"`
		Deliveries int64   `json:"deliveries"`
		Oldest     float64 `json:"max_oldest_age_s"`
		Code       string  `json:"code"`
		Figures    struct {
			OutOfOrder int64 `json:"out_of_order"`
			Partitions int64 `json:"partitions"`
			Balance    int64 `json:"balance"`
		} `json:"figures"`
		Forks []struct {
			Name string `json:"name"`
		} `json:"forks"`
	}
	base := map[string]figs{}
	for _, id := range []string{"ordering", "cashback"} {
		base[id], _ = runJSON[figs](t, id)
	}
	for _, tc := range []struct {
		args []string
		fork string
		ok   func(got, base figs) bool
	}{
		{[]string{"ordering", "--at", "12:03", "--do", "consumers=+3"}, "add 3 consumers @12:03:00",
			func(g, b figs) bool { return g.Oldest < b.Oldest/2 && g.Dupes > 0 }},
		{[]string{"ordering", "--at", "12:03", "--do", "consumers=+5"}, "add 5 consumers, 2 of 8 idle (6 partitions) @12:03:00",
			func(g, b figs) bool { return g.Oldest < b.Oldest/2 }},
		{[]string{"ordering", "--at", "12:06", "--do", "consumers=-2"}, "stop 2 consumers @12:06:00",
			func(g, b figs) bool { return g.Oldest > b.Oldest && g.Effects >= b.Effects }},
		{[]string{"ordering", "--at", "12:03", "--do", "partitions=8"}, "raise partitions 6 → 8: ",
			func(g, b figs) bool {
				return g.Figures.OutOfOrder > 0 && b.Figures.OutOfOrder == 0 && g.Figures.Partitions == 8
			}},
		{[]string{"cashback", "--at", "10:00:05.003", "--do", "replay_pending"}, "replay 9 pending entries @10:00:05.003",
			func(g, b figs) bool {
				return g.Dupes > b.Dupes && g.Figures.Balance-b.Figures.Balance == 100*(g.Dupes-b.Dupes)
			}},
		{[]string{"cashback", "--at", "10:00:05.003", "--do", "replay_pending=min_idle:30s"}, "replay 0 pending entries idle ≥ 30s (of 9) @10:00:05.003",
			func(g, b figs) bool { return g.Dupes == b.Dupes && g.Deliveries == b.Deliveries }},
		{[]string{"cashback", "--at", "10:00:05.003", "--do", "replay_pending", "--set", "dedupe=true"}, "replay 9 pending entries; dedupe=true @10:00:05.003",
			func(g, b figs) bool { return g.Dupes == 0 && g.Figures.Balance == 500000 }},
	} {
		got, out := runJSON[figs](t, tc.args...)
		if len(got.Forks) != 1 || !strings.HasPrefix(got.Forks[0].Name, tc.fork) {
			t.Errorf("%v: forks %+v, want %q", tc.args, got.Forks, tc.fork)
		}
		if !tc.ok(got, base[tc.args[0]]) {
			t.Errorf("%v: %+v against the run without it %+v", tc.args, got, base[tc.args[0]])
		}
		if _, again := runJSON[figs](t, "--code", got.Code); again != out {
			t.Errorf("run --code %s differs from %v:\n%s\n%s", got.Code, tc.args, again, out)
		}
	}
}

// A bad --do for the stream families is one line naming what is wrong,
// exit 2.
func TestRunDoStreamsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ordering", "--at", "12:03", "--do", "partitions=4"}, "Kafka cannot lower a topic's partition count (order-events has 6)"},
		{[]string{"ordering", "--at", "12:03", "--do", "consumers=2"}, "want +N to start consumers or -N to stop them"},
		{[]string{"ordering", "--at", "12:03", "--do", "consumers=-3"}, "stopping 3 leaves none to read"},
		{[]string{"ordering", "--at", "12:03", "--do", "redrive"}, "incident ordering's actions are consumers, partitions"},
		{[]string{"cashback", "--at", "10:00:05", "--do", "replay_pending=30s"}, "replay_pending=min_idle:DURATION"},
		{[]string{"cashback", "--at", "10:00:05", "--do", "replay_pending=min_idle:soon"}, "want a number with a unit"},
	} {
		_, errOut, code := runCLI(append([]string{"run"}, tc.args...)...)
		line := strings.TrimSpace(errOut)
		if code != 2 || !strings.Contains(line, tc.want) || strings.Contains(line, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}
