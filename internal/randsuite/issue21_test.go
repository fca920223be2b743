package randsuite

import (
	"strings"
	"testing"

	"inflight/engine"
)

// issue21Runs are the runs issue 21 names, each under the same checker as
// the random suite (the broker's rules included): a fork that revives a
// forgotten dedup record, an oldest age counted from the producer's
// attempts, a consumer reading before the dead member's session ended, a
// breaker taken out without waking the consumer. Start holds settings from
// the start of a case that also forks (no command line gives both; the
// explorer's forks do).
var issue21Runs = []struct {
	line  string
	start []engine.Setting
}{
	{line: "inflight run fifo-window"},
	{line: "inflight run fifo-window --set retry_deadline=3m"},
	{line: "inflight run fifo-window --set dedup_window=10m --at 14:06:00"},
	{line: "inflight run fifo-window --set dedup_window=1h --at 14:05:00"},
	{line: "inflight run fifo-window --set dedup_window=1m --at 14:02:00"},
	{line: "inflight run fifo-window --set dedup_window=0s --at 14:00:30"},
	{line: "inflight run kafka-restart --set transactional_id=shop-1 --set email_crash=true"},
	{line: "inflight run kafka-restart --set email_crash=true"},
	{line: "inflight run db-down --set breaker=false --at 10:04:03.904", start: []engine.Setting{{Knob: "breaker", Value: "true"}}},
	{line: "inflight run db-down --set breaker=false --at 10:03:11.427", start: []engine.Setting{{Knob: "breaker", Value: "true"}}},
}

func TestIssue21Runs(t *testing.T) {
	gens := map[string]*Gen{}
	for _, r := range issue21Runs {
		c := parseRepro(t, r.line)
		if r.start != nil {
			c.Set = r.start
		}
		g := gens[c.Spec.ID]
		if g == nil {
			var err error
			if g, err = genFor(c.Spec); err != nil {
				t.Fatal(err)
			}
			gens[c.Spec.ID] = g
		}
		if res := g.Check(c, true); len(res.Errs) > 0 {
			t.Errorf("%s\n\t%s", c.Repro(), strings.Join(res.Errs, "\n\t"))
		}
	}
}
