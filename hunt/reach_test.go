package hunt

import (
	"testing"

	"inflight/engine"
)

// Dropping the decisions no child can reach changes how fast a hunt runs,
// never what it finds: the same answer keeping every decision recorded,
// and dropping every one it may (each parent then played once more when
// its second pass comes). Without a memory budget, no parent reach drops
// is ever played again.
func TestReachSameAnswer(t *testing.T) {
	// a hunt of thursday-fixed for a promise no branch breaks: every
	// order published, so that the budget is spent
	published := func(orders string, depth, budget int) Options {
		o := options(t, "thursday-fixed", "one-email", "orders="+orders)
		o.Property = &engine.Property{Name: "all-published", Words: "every order is published", Checks: []engine.Expectation{{Key: "messages", Want: orders}}}
		o.Depth, o.Budget = depth, budget
		return o
	}
	cases := []struct {
		name   string
		o      func() Options
		second bool // the second pass expands a parent
	}{
		// the second pass reaches one parent, the budget ending in it
		{"BenchmarkBranches", func() Options { return published("108", 2, 20000) }, true},
		// the budget ends in the first pass
		{"first pass only", func() Options { return published("108", 2, 6000) }, false},
		// the depth-2 space exhausted: every parent expanded in both passes
		{"every parent", func() Options { return published("6", 2, 8000) }, true},
		// the budget ends inside a chunk of a parent's children
		{"budget ends mid-chunk", func() Options { return published("6", 2, 2337) }, true},
		{"depth 3", func() Options { return published("4", 3, 6000) }, true},
		{"actions", func() Options {
			o := published("4", 2, 3000)
			o.Faults, o.Actions = false, []string{"crash", "redrive"}
			return o
		}, true},
		// memory's own drops as well (sizes at which every mode finishes)
		{"under 1 MB", func() Options {
			o := published("6", 2, 8000)
			o.Account = account(1 << 20)
			return o
		}, true},
		{"under 2 MB", func() Options {
			o := published("6", 2, 8000)
			o.Account = account(2 << 20)
			return o
		}, true},
		{"its-email pair", func() Options {
			o := options(t, "thursday-fixed", "its-email")
			o.Depth, o.Budget = 2, 20000
			return o
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			play := func(reach int) (got string, replays int, peak int64) {
				o := c.o()
				if o.Account == nil {
					o.Account = account(1 << 40) // to read its peak
				}
				o.reach, o.replays = reach, &replays
				got = answer(t, o)
				return got, replays, o.Account.Peak()
			}
			want, replays, peak := play(0)
			bounded := c.o().Account != nil
			if replays > 0 && !bounded {
				t.Errorf("%d parents dropped and then played again", replays)
			}
			got, _, all := play(1 << 40) // keep every decision
			if got != want {
				t.Errorf("keeping every decision:\n%s\nwant:\n%s", got, want)
			}
			got, replays, _ = play(-1) // drop every one past the first pass
			if got != want {
				t.Errorf("dropping every decision it may:\n%s\nwant:\n%s", got, want)
			}
			if c.second && replays == 0 {
				t.Errorf("dropping every decision it may, no parent was played again: the second pass was not reached")
			}
			if c.name == "BenchmarkBranches" && peak*4 > all {
				t.Errorf("the hunt's peak memory was %s, %s keeping every decision: want under a quarter", engine.Bytes(peak), engine.Bytes(all))
			}
		})
	}
}

// A depth's space is exhausted only when every branch of it was played:
// a budget that ends inside the last chunk leaves it unexhausted.
func TestExhaustedOnlyWhenPlayed(t *testing.T) {
	for _, c := range []struct {
		budget    int
		exhausted bool
	}{{192, false}, {200, false}, {208, false}, {209, true}, {300, true}} {
		o := options(t, "kafka-restart", "no-order-lost")
		o.Budget = c.budget
		r := hunt(t, o)
		if r.Found || r.Exhausted != c.exhausted || r.Exhausted && r.Space != 209 {
			t.Errorf("budget %d: %+v, want exhausted %v (209 branches at depth 1)", c.budget, r, c.exhausted)
		}
	}
}
