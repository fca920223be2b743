package hunt

import (
	"testing"

	"inflight/engine"
)

// Dropping the decisions no child can reach changes how fast a hunt runs,
// never what it finds: the same answer keeping every decision recorded,
// and dropping every one it may (each parent played once more when
// expanded past its first pass).
func TestReachSameAnswer(t *testing.T) {
	unbroken := &engine.Property{Name: "all-published", Words: "every order is published", Checks: []engine.Expectation{{Key: "messages", Want: "108"}}}
	cases := []struct {
		name string
		o    func() Options
	}{
		// the second pass reaches one parent, the budget ending in it
		{"BenchmarkBranches", func() Options {
			o := options(t, "thursday-fixed", "one-email")
			o.Property, o.Depth, o.Budget = unbroken, 2, 20000
			return o
		}},
		// the budget ends in the first pass
		{"first pass only", func() Options {
			o := options(t, "thursday-fixed", "one-email")
			o.Property, o.Depth, o.Budget = unbroken, 2, 6000
			return o
		}},
		// the depth-2 space exhausted: every parent expanded in both
		// passes (and each played again when its decisions are dropped)
		{"every parent", func() Options {
			o := options(t, "thursday-fixed", "one-email", "orders=6")
			o.Property, o.Depth, o.Budget = &engine.Property{Name: "all-published", Words: "every order is published",
				Checks: []engine.Expectation{{Key: "messages", Want: "6"}}}, 2, 8000
			return o
		}},
		{"its-email pair", func() Options {
			o := options(t, "thursday-fixed", "its-email")
			o.Depth, o.Budget = 2, 20000
			return o
		}},
		{"depth 3", func() Options {
			o := options(t, "thursday-fixed", "its-email")
			o.Depth, o.Budget = 3, 3000
			return o
		}},
		{"actions", func() Options {
			o := options(t, "thursday-fixed", "one-email")
			o.Faults, o.Depth, o.Budget, o.Actions = false, 2, 1500, []string{"crash", "redrive"}
			return o
		}},
		{"cashback", func() Options {
			o := options(t, "cashback", "balance-exact", "dedupe=true")
			o.Depth, o.Budget = 2, 400
			return o
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o()
			o.Account = account(1 << 40)
			want := answer(t, o)
			reached := o.Account.Peak()
			o = c.o()
			o.reach, o.Account = 1<<40, account(1<<40) // keep every decision
			if got := answer(t, o); got != want {
				t.Errorf("keeping every decision:\n%s\nwant:\n%s", got, want)
			}
			all := o.Account.Peak()
			o = c.o()
			o.reach = -1 // drop every one past the first pass
			if got := answer(t, o); got != want {
				t.Errorf("dropping every decision it may:\n%s\nwant:\n%s", got, want)
			}
			if c.name == "BenchmarkBranches" && reached*4 > all {
				t.Errorf("the hunt's peak memory was %s, %s keeping every decision: want under a quarter", engine.Bytes(reached), engine.Bytes(all))
			}
		})
	}
}
