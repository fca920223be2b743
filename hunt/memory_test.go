package hunt

import (
	"encoding/json"
	"errors"
	"path"
	"runtime"
	"strings"
	"testing"

	"inflight/engine"
)

func account(bytes int64) *engine.Account {
	a := engine.NewAccount(engine.Limits{Bytes: bytes, BytesFlag: "--max-memory-mb"}, nil)
	a.Of = "the hunt"
	return a
}

func answer(t *testing.T, o Options) string {
	t.Helper()
	b, err := json.Marshal(hunt(t, o))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A budget too small for every checkpoint spaces them out, keeps the
// frontier without its lines' decisions, and finds the same: checkpoints
// change how fast a hunt is, never what it finds. The accounting stays
// within the budget, gives everything back, and is the same on any
// number of cores.
func TestTightMemorySameAnswer(t *testing.T) {
	cases := []struct {
		name  string
		o     func() Options
		bytes int64
	}{
		{"its-email pair", func() Options {
			o := options(t, "thursday-fixed", "its-email")
			o.Depth, o.Budget = 2, 20000
			return o
		}, 8 << 20},
		{"45 s lease, depth 1 and random", func() Options {
			o := options(t, "thursday", "no-duplicate", "visibility_timeout=45s")
			o.Faults = false
			return o
		}, 2 << 20},
		{"depth 3", func() Options {
			o := options(t, "thursday-fixed", "its-email")
			o.Depth, o.Budget = 3, 3000
			return o
		}, 8 << 20},
		// actions are taken at the line's decisions, not at its
		// checkpoints: spaced out, they were fewer (this hunt stopped at
		// depth 2 under 1 MB, at depth 1 unbounded)
		{"actions", func() Options {
			o := options(t, "thursday-fixed", "one-email", "orders=5")
			o.Property = &engine.Property{Name: "all-published", Words: "every order is published", Checks: []engine.Expectation{{Key: "messages", Want: "5"}}}
			o.Depth, o.Budget, o.Actions = 3, 274, []string{"crash", "redrive"}
			return o
		}, 1 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			free := answer(t, c.o())
			o := c.o()
			o.Account = account(c.bytes)
			s, err := newSearcher(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.cps)*4 > len(s.decs) {
				t.Fatalf("%d checkpoints for %d decisions: the budget did not space them", len(s.cps), len(s.decs))
			}
			o.Account = account(c.bytes)
			if got := answer(t, o); got != free {
				t.Errorf("under %s:\n%s\nunbounded:\n%s", engine.Bytes(c.bytes), got, free)
			}
			a := o.Account
			if a.Peak() > c.bytes || a.Peak() == 0 || a.Held() != 0 {
				t.Errorf("peak %d of a budget of %d, %d held after", a.Peak(), c.bytes, a.Held())
			}
			peaks := map[int64]bool{}
			for _, procs := range []int{1, 4} {
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					o := c.o()
					o.Account = account(c.bytes)
					if got := answer(t, o); got != free {
						t.Errorf("GOMAXPROCS %d: %s", procs, got)
					}
					peaks[o.Account.Peak()] = true
				}()
			}
			if len(peaks) != 1 {
				t.Errorf("peaks differ across GOMAXPROCS: %v", peaks)
			}
		})
	}
}

// A hunt past its budget is refused once the base line is known, or
// stopped where it passes it, in one line naming the budget and the flag.
func TestMemoryRefusals(t *testing.T) {
	pool := &engine.Pool{Bytes: 8 << 20, Flag: "--server-max-memory-mb"}
	cases := []struct {
		name   string
		o      func() Options
		during bool
		want   string
	}{
		{"too small to plan", func() Options {
			o := options(t, "thursday-fixed", "its-email")
			// room for its lists and two worlds, not the four lines a
			// search needs at least: measured on a hunt that fits
			o.Account = account(1 << 30)
			s, err := newSearcher(o)
			if err != nil {
				t.Fatal(err)
			}
			lists := o.Account.Held() - int64(s.mem.lines+2)*s.mem.lineBytes - s.mem.base.held
			o.Account = account(lists + 2*s.mem.lineBytes)
			return o
		}, false, "refused: the hunt needs ~* KB of memory, over its budget of * KB (raise with --max-memory-mb)"},
		{"the base line outgrows it", func() Options {
			o := options(t, "thursday-fixed", "one-email", "orders=200000")
			o.Account = account(16 << 20)
			return o
		}, true, "stopped: the hunt passed its memory budget of 16 MB (raise with --max-memory-mb)"},
		{"the depth-3 frontier outgrows it", func() Options {
			o := options(t, "thursday", "no-duplicate", "visibility_timeout=45s")
			o.Depth, o.Budget, o.Faults = 3, 100_000_000, false
			o.Account = account(8 << 20)
			return o
		}, true, "stopped: the hunt passed its memory budget of 8 MB (raise with --max-memory-mb)"},
		{"the server's pool is in use", func() Options {
			o := options(t, "thursday-fixed", "one-email", "orders=200000")
			o.Account = engine.NewAccount(engine.Limits{Bytes: 1 << 30, BytesFlag: "--session-max-memory-mb"}, pool)
			o.Account.Of = "the hunt"
			return o
		}, true, "refused: the server's memory for all sessions (8 MB) is in use by others, so the hunt cannot go on; try again in a while (raise with --server-max-memory-mb)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o()
			r, err := Hunt(o)
			var be *engine.BudgetError
			if !errors.As(err, &be) || be.During != c.during {
				t.Fatalf("got %+v, %v; want a budget error (during: %v)", r, err, c.during)
			}
			if ok, _ := path.Match(c.want, err.Error()); !ok || strings.Contains(err.Error(), "\n") {
				t.Errorf("line %q, want %q", err, c.want)
			}
			if o.Account.Held() != 0 || pool.Used() != 0 {
				t.Errorf("%d held, %d of the pool used after the hunt", o.Account.Held(), pool.Used())
			}
		})
	}
}

// Depth 1's action branches are charged as the base line's walk makes
// them: past the budget it makes no more, where it used to make them all
// (a thousand and more a decision moment of a long line) and only then
// hear that they did not fit. The refusal still comes after the base
// line's own verdict, as a stop.
func TestActionKidsWithinBudget(t *testing.T) {
	o := options(t, "thursday-fixed", "its-email", "orders=1000")
	o.Depth, o.Budget, o.Actions = 1, 100, []string{"crash", "redrive"}
	o.Account = account(16 << 20)
	s, err := newSearcher(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.actErr == nil {
		t.Fatal("the action branches fit: the case tests nothing")
	}
	if b := int64(len(s.actKids)) * nodeBytes; b > s.mem.front.room {
		t.Errorf("%d action branches (%s) made past the frontier's room of %s", len(s.actKids), engine.Bytes(b), engine.Bytes(s.mem.front.room))
	}
	o.Account = account(16 << 20)
	_, err = Hunt(o)
	var be *engine.BudgetError
	if !errors.As(err, &be) || !be.During {
		t.Fatalf("got %v, want the budget's stop", err)
	}
	if h := o.Account.Held(); h != 0 {
		t.Errorf("%d bytes held after the hunt", h)
	}
}
