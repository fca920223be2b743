package main

import (
	"strings"
	"testing"
)

// The other families' actions as `run --at … --do …`: each fork is named
// in words, moves the figure its lesson is about (against the same
// incident's run without it), and its code plays the same run again.
func TestRunDoFamilies(t *testing.T) {
	type sum struct {
		Effects int            `json:"effects"`
		Dupes   int            `json:"duplicate_effects"`
		Lost    int            `json:"lost"`
		DLQ     int            `json:"dlq"`
		Figures map[string]any `json:"figures"`
		Code    string         `json:"code"`
		Forks   []struct {
			Name string `json:"name"`
		} `json:"forks"`
	}
	for _, tc := range []struct {
		args []string
		fork string
		// moved reports whether the fork moved the lesson's figure the way
		// the action should, against the run without it
		moved func(got, base sum) bool
	}{
		{[]string{"db-down", "--at", "10:00", "--do", "pause=10m"}, "pause consumption for 10m @10:00:00",
			func(got, base sum) bool { return got.DLQ < base.DLQ && got.Effects > base.Effects && got.Lost == 0 }},
		{[]string{"db-down", "--at", "10:00", "--do", "pause"}, "pause consumption @10:00:00",
			func(got, base sum) bool { return got.DLQ < base.DLQ && got.Effects < base.Effects }}, // never resumed: the rest wait
		{[]string{"db-down", "--at", "09:58", "--do", "resume"}, "resume consumption @09:58:00",
			func(got, base sum) bool { return got.DLQ == base.DLQ && got.Effects == base.Effects }},
		{[]string{"kafka-restart", "--at", "10:00:01.02", "--do", "restart_producer"}, "restart the producer @10:00:01.02",
			func(got, base sum) bool { return got.Dupes > 0 && got.Dupes < base.Dupes }}, // only the first batch was stored
		{[]string{"kafka-restart", "--at", "10:00:04.2", "--do", "restart_producer"}, "restart the producer @10:00:04.2",
			func(got, base sum) bool { return got.Dupes > base.Dupes }}, // the second instance's too
		{[]string{"galewatch", "--at", "10:02", "--do", "step_clock=-60s"}, "step T0417's clock back 1m @10:02:00",
			func(got, base sum) bool { return got.Lost > base.Lost && got.Dupes == 0 }},
		{[]string{"galewatch", "--at", "10:04:59", "--do", "step_clock=+6s"}, "step T0417's clock forward 6s @10:04:59",
			func(got, base sum) bool { return got.Lost == 0 && base.Lost > 0 }},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			base, _ := runJSON[sum](t, tc.args[0])
			got, out := runJSON[sum](t, tc.args...)
			if len(got.Forks) != 1 || got.Forks[0].Name != tc.fork {
				t.Errorf("forks %+v, want %q", got.Forks, tc.fork)
			}
			if !tc.moved(got, base) {
				t.Errorf("effects %d, duplicates %d, lost %d, dlq %d; without the action %d, %d, %d, %d",
					got.Effects, got.Dupes, got.Lost, got.DLQ, base.Effects, base.Dupes, base.Lost, base.DLQ)
			}
			if !strings.Contains(got.Code, ";do="+tc.args[len(tc.args)-1]+"#") {
				t.Errorf("code %s", got.Code)
			}
			again, errOut, code := runCLI("run", "--code", got.Code, "--format", "json")
			if code != 0 || again != out {
				t.Errorf("run --code %s: exit %d %s; differs:\n%s\n%s", got.Code, code, errOut, again, out)
			}
		})
	}
}

// A bad argument is one line naming what is wrong, exit 2.
func TestRunDoFamiliesRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"db-down", "--at", "10:00", "--do", "pause=2h"}, `--do: action "pause=2h": a pause lasts from 1s to 1h`},
		{[]string{"db-down", "--at", "10:00", "--do", "resume=now"}, "resume takes no argument"},
		{[]string{"db-down", "--at", "10:00", "--do", "redrive"}, "incident db-down's actions are pause, resume"},
		{[]string{"kafka-restart", "--at", "10:00", "--do", "restart_producer=2"}, "restart_producer takes no argument"},
		{[]string{"galewatch", "--at", "10:00", "--do", "step_clock"}, "give step_clock=+D or -D"},
		{[]string{"galewatch", "--at", "10:00", "--do", "step_clock=-2h"}, `--do: action "step_clock=-2h": a step is 1ms to 1h`},
		{[]string{"galewatch", "--at", "10:00", "--do", "step_clock=back"}, "want a signed duration, like -6s (back) or +6s (forward)"},
	} {
		_, errOut, code := runCLI(append([]string{"run"}, tc.args...)...)
		line := strings.TrimSpace(errOut)
		if code != 2 || !strings.Contains(line, tc.want) || strings.Contains(line, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// --compare takes the fork's actions too: B is the paused run.
func TestRunDoCompare(t *testing.T) {
	out, errOut, code := runCLI("run", "db-down", "--at", "10:00", "--do", "pause=10m", "--compare", "main")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"B: db-down@1/p1800@10:00:00;do=pause=10m#", "B 10:00:00.000 an operator pauses consumption until 10:10:00"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
