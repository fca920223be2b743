package hunt

import (
	"strings"
	"testing"

	"inflight/engine"
)

// thursday60 is thursday's 60 s fork at 19:52:00 as /19:52 makes it:
// before the events at 19:52:00 (order 14's delivery among them).
func thursday60(t *testing.T, prop string) Options {
	t.Helper()
	o := options(t, "thursday", prop)
	x, err := engine.NewExplorer(o.Spec, o.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := engine.ParseClock("19:52:00")
	pos := x.PosAtTime(x.Branch(), at)
	x.Goto(pos)
	set, _ := engine.ParseSetting("visibility_timeout=60s")
	if _, err := x.Fork(engine.ForkOptions{Name: "visibility_timeout=60s", Pos: pos, At: at, Set: []engine.Setting{set}}); err != nil {
		t.Fatal(err)
	}
	o.Forks, o.From = x.Code().Forks, at
	return o
}

// Does the 60 s fix hold against every latency and crash? Judged from the
// fork on (the 27 duplicates before it do not count): against every single
// latency and choice of worker, yes; against one crash, no — a worker
// that dies after order 14's email leaves (the first order leased after
// the fork) sends it twice. no-duplicate is broken as the branch stands:
// order 13, emailed twice before the fork on a 30 s lease, gets its third
// email after it. On the lesson's run the whole run is judged, as before.
func TestHuntThursday60(t *testing.T) {
	for _, c := range []struct {
		name, prop string
		fork       bool
		faults     bool
		budget     int
		found      bool
		unforced   bool
		got        string
		fault      string // the forced fault, as codes write it
		space      int    // the depth-1 space, exhausted
	}{
		{"one-email, a crash", "one-email", true, true, 1000, true, false, "order 14: effects 2", "after_effect:14.1", 0},
		{"one-email, latencies and workers", "one-email", true, false, 567, false, false, "", "", 567},
		{"no-duplicate as it stands", "no-duplicate", true, true, 1000, true, true, "1 since the fork (28 in all)", "", 0},
		{"dlq-empty, latencies and workers", "dlq-empty", true, false, 567, false, false, "", "", 567},
		{"dlq-empty, a crash", "dlq-empty", true, true, 1000, true, false, "1 since the fork (14 in all)", "after_receive:13.3", 0},
		{"one-email on the lesson's run", "one-email", false, true, 1000, true, true, "order 0: effects 3", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := options(t, "thursday", c.prop)
			if c.fork {
				o = thursday60(t, c.prop)
			}
			o.Faults, o.Budget = c.faults, c.budget
			r := hunt(t, o)
			if r.Found != c.found || r.Unforced != c.unforced {
				t.Fatalf("found %v, unforced %v; want %v, %v: %+v", r.Found, r.Unforced, c.found, c.unforced, r)
			}
			if want := map[bool]string{true: "19:52:00 #178"}[c.fork]; r.After != want {
				t.Errorf("judged after %q, want %q", r.After, want)
			}
			if c.found && (len(r.Broken) != 1 || r.Broken[0].Got != c.got) {
				t.Errorf("broken %+v, want %s", r.Broken, c.got)
			}
			if c.fault != "" {
				if len(r.Forced) != 1 || r.Forced[0].FaultCode != c.fault {
					t.Errorf("forced %+v, want the fault %s", r.Forced, c.fault)
				}
				if !strings.HasPrefix(r.Code, "thursday@1/p178@19:52:00;visibility_timeout=60s/") {
					t.Errorf("code %s does not fork the 60 s branch", r.Code)
				}
				reproduces(t, o, r)
			}
			if c.space > 0 && (!r.Exhausted || r.Space != c.space) {
				t.Errorf("exhausted %v, space %d; want the depth-1 space of %d tried", r.Exhausted, r.Space, c.space)
			}
		})
	}
}

// A violation counts on a branch only when its offending event is after
// the fork: the second email for "effects 1", the move to the DLQ for an
// order that never got one, what was counted since for a summary check.
func TestJudgedFromTheFork(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	w, err := engine.NewWorld(o.Spec, o.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	const fork = 100
	ev := func(f *facts, pos int64, k engine.Kind, m int32) {
		f.event(&engine.Event{Pos: pos, Kind: k, Msg: m})
	}
	play := func(j *judge, evs [][3]int64) *facts {
		f := &facts{j: j}
		for _, e := range evs {
			ev(f, e[0], engine.Kind(e[1]), int32(e[2]))
		}
		return f
	}
	pub, eff, dlq := int64(engine.EvPublish), int64(engine.EvEffect), int64(engine.EvDLQ)
	// order 0: two emails before the fork, a third after; order 1: its
	// second email after the fork
	emails := [][3]int64{{1, pub, 0}, {2, pub, 1}, {3, eff, 0}, {4, eff, 0}, {10, eff, 1}, {150, eff, 0}, {160, eff, 1}}
	for _, c := range []struct {
		name  string
		prop  string
		evs   [][3]int64
		judge bool
		want  string
	}{
		{"the whole run", "one-email", emails, false, "order 0: effects 3"},
		{"from the fork", "one-email", emails, true, "order 1: effects 2"},
		{"before the fork only", "one-email", emails[:5], true, ""},
		// order 0 dead-lettered without an email before the fork, order
		// 1 after it
		{"its-email from the fork", "its-email", [][3]int64{{1, pub, 0}, {2, pub, 1}, {50, dlq, 0}, {150, dlq, 1}}, true, "order 1: effects 0"},
		{"its-email before the fork", "its-email", [][3]int64{{1, pub, 0}, {50, dlq, 0}}, true, ""},
		{"its-email, no fate yet", "its-email", [][3]int64{{1, pub, 0}, {120, int64(engine.EvDeliver), 0}}, true, "order 0: effects 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := propertyNamed(t, o.Spec, c.prop)
			var j *judge
			if c.judge {
				j = newJudge(p, fork, 0)
			}
			f := play(j, c.evs)
			var sum engine.Summary
			b := verdict(w, p, &sum, f, j, false)
			switch {
			case c.want == "" && len(b) > 0:
				t.Errorf("broken %+v, want nothing after the fork", b)
			case c.want != "" && (len(b) != 1 || b[0].Got != c.want):
				t.Errorf("broken %+v, want %s", b, c.want)
			}
		})
	}
	// summary checks count what went wrong since the fork; a level is
	// judged at the end
	held := &engine.Property{Name: "none-held", Checks: []engine.Expectation{{Key: "held_at_end", Want: "0"}}}
	for _, c := range []struct {
		prop      string
		fork, end engine.Summary
		redriven  bool
		want      string
	}{
		{"dlq-empty", engine.Summary{DLQ: 13}, engine.Summary{DLQ: 13}, false, ""},
		{"dlq-empty", engine.Summary{DLQ: 13}, engine.Summary{DLQ: 14}, false, "1 since the fork (14 in all)"},
		{"dlq-empty", engine.Summary{DLQ: 13}, engine.Summary{DLQ: 2}, true, "2 since the fork (2 in all)"},
		{"none-held", engine.Summary{HeldAtEnd: 5}, engine.Summary{HeldAtEnd: 2}, false, "2"},
	} {
		p := held
		if c.prop != held.Name {
			p = propertyNamed(t, o.Spec, c.prop)
		}
		j := newJudge(p, fork, 0)
		j.sum, j.flat = c.fork, map[string]string{}
		b := verdict(w, p, &c.end, nil, j, c.redriven)
		if c.want == "" && len(b) > 0 || c.want != "" && (len(b) != 1 || b[0].Got != c.want) {
			t.Errorf("%s from %+v to %+v (redriven %v): broken %+v, want %q", c.prop, c.fork, c.end, c.redriven, b, c.want)
		}
	}
}
