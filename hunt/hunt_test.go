package hunt

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

func options(t *testing.T, id, prop string, set ...string) Options {
	t.Helper()
	spec, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var ss []engine.Setting
	for _, s := range set {
		st, err := engine.ParseSetting(s)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, st)
	}
	return Options{Spec: spec, Seed: spec.Seed, Set: ss, Property: propertyNamed(t, spec, prop), Depth: 1, Budget: 1000, Faults: true}
}

func hunt(t *testing.T, o Options) *Result {
	t.Helper()
	r, err := Hunt(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// replay plays a share code's forks on a world of its own with a probe:
// the facts of every message at the end.
func replay(t *testing.T, spec *engine.Spec, code string) (*engine.Probe, engine.Summary) {
	t.Helper()
	c, err := engine.ParseCode(code)
	if err != nil {
		t.Fatalf("code %q: %v", code, err)
	}
	w, err := engine.NewWorld(spec, c.Seed, c.Set)
	if err != nil {
		t.Fatal(err)
	}
	p := engine.NewProbe()
	for _, f := range c.Forks {
		for w.Pos < f.Pos && w.Step(p) {
		}
		if err := w.Forcing().Faults(f.Faults...); err != nil {
			t.Fatal(err)
		}
		if len(f.Set) > 0 {
			if err := w.ScheduleKnobs(max(f.At, w.Now), f.Set); err != nil {
				t.Fatal(err)
			}
		}
		if f.Override != nil {
			w.Forcing().Override(*f.Override)
		}
		if err := w.ScheduleActions(max(f.At, w.Now), f.Actions); err != nil {
			t.Fatal(err)
		}
	}
	for w.Step(p) {
	}
	return p, w.Summarize("")
}

// reproduces checks that a result's share code replays to a run that
// breaks the property as the result says.
func reproduces(t *testing.T, o Options, r *Result) *engine.Probe {
	t.Helper()
	p, sum := replay(t, o.Spec, r.Code)
	for _, b := range r.Broken {
		key, want, _ := strings.Cut(b.Check, ": ")
		got, _ := quick(&sum, key)
		if k, w, ok := strings.Cut(want, " "); key == "every message" && ok {
			got, _, _ = p.Lookup(fmt.Sprintf("message.%d.%s", b.Msg, k))
			want = w
			if !strings.HasSuffix(b.Got, ": "+k+" "+got) {
				t.Errorf("code %q replays message %d's %s = %s; the hunt said %s", r.Code, b.Msg, k, got, b.Got)
			}
		} else if _, all, ok := strings.Cut(b.Got, " since the fork ("); ok && strings.TrimSuffix(all, " in all)") != got {
			t.Errorf("code %q replays %s = %s; the hunt said %s", r.Code, key, got, b.Got)
		} else if !ok && got != b.Got {
			t.Errorf("code %q replays %s = %s; the hunt said %s", r.Code, key, got, b.Got)
		}
		if engine.Matches(want, got) {
			t.Errorf("code %q replays %s = %s, which keeps %s", r.Code, key, got, b.Check)
		}
	}
	return p
}

// Marlow's fix, the sent_at claim: a worker that dies after the email
// leaves and before sent_at is stamped sends it twice. One fault, found at
// depth 1, on the first order it can strike.
func TestThursdayFixedOneCrashDuplicates(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	r := hunt(t, o)
	if !r.Found || r.Unforced || len(r.Forced) != 1 || r.Forced[0].Fault == nil || r.Forced[0].Fault.Point != "after_effect" {
		t.Fatalf("want one crash between the send and the stamp: %+v", r)
	}
	if !strings.Contains(r.Forced[0].Words, "crashes after the email leaves, before the provider answers") {
		t.Errorf("forced decision worded %q", r.Forced[0].Words)
	}
	p := reproduces(t, o, r)
	if got, _, _ := p.Lookup(fmt.Sprintf("message.%d.effects", r.Forced[0].Msg)); got != "2" {
		t.Errorf("the crashed order got %s emails, want 2", got)
	}
}

// "Every order gets its email": two crashes on one order use up its three
// deliveries, and it lands in the DLQ with no email sent. Depth 2.
func TestThursdayFixedTwoCrashesNoEmail(t *testing.T) {
	o := options(t, "thursday-fixed", "its-email")
	o.Depth, o.Budget = 2, 20000
	r := hunt(t, o)
	if !r.Found || len(r.Forced) != 2 || r.Forced[0].Fault == nil || r.Forced[1].Fault == nil || r.Forced[0].Msg != r.Forced[1].Msg {
		t.Fatalf("want two crashes on one order: %+v", r)
	}
	p := reproduces(t, o, r)
	m := r.Forced[0].Msg
	if f := p.Msgs[m]; f == nil || f.Effects != 0 || !f.DLQ {
		t.Errorf("order %d: %+v, want no email and the DLQ", m, f)
	}
	// and neither crash alone does it: the shrink kept both
	for i := range r.Forced {
		one := options(t, "thursday-fixed", "its-email")
		w, _ := engine.NewWorld(one.Spec, one.Seed, nil)
		if err := w.Forcing().Faults(*r.Forced[i].Fault); err != nil {
			t.Fatal(err)
		}
		p := engine.NewProbe()
		for w.Step(p) {
		}
		if f := p.Msgs[m]; f.Effects == 0 {
			t.Errorf("%s alone leaves order %d without an email; the hunt should have shrunk to it", r.Forced[i].Fault, m)
		}
	}
}

// The lesson's own pair, forced by hand: crashes after the claim on
// deliveries 1 and 3 of order 14. "A two minute window, a thirty second
// hold and a limit of three leave no room for a fourth try."
func TestThursdayFixedLessonPair(t *testing.T) {
	o := options(t, "thursday-fixed", "its-email")
	w, err := engine.NewWorld(o.Spec, o.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Forcing().Faults(engine.Fault{Point: "after_claim", Msg: 14, Delivery: 1}, engine.Fault{Point: "after_claim", Msg: 14, Delivery: 3}); err != nil {
		t.Fatal(err)
	}
	p := engine.NewProbe()
	f := &facts{}
	sink := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) { p.Event(w, e, d); f.event(e) })
	for w.Step(sink) {
	}
	sum := w.Summarize("")
	if m := p.Msgs[14]; m.Effects != 0 || !m.DLQ || m.Deliveries != 3 {
		t.Errorf("order 14: %+v, want three deliveries, no email, the DLQ", m)
	}
	b := verdict(w, o.Property, &sum, f, nil, false)
	if len(b) != 1 || b[0].Got != "order 14: effects 0" {
		t.Errorf("its-email: broken %+v, want order 14: effects 0", b)
	}
}

// Thursday with a 45 s lease and a provider that answers in 31–40 s: no
// latency in that range and no choice of worker, alone or in pairs, makes
// a duplicate, and the search says it tried every pair.
func TestThursdayLongLeaseNoDuplicateAtDepthTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 210,000 branches")
	}
	o := options(t, "thursday", "no-duplicate", "visibility_timeout=45s")
	o.Faults, o.Depth, o.Budget = false, 2, 210_000
	r := hunt(t, o)
	if r.Found || r.Depth != 2 || !r.Exhausted {
		t.Fatalf("want none found and depth 2 exhausted, got found=%v depth=%d exhausted=%v after %d branches", r.Found, r.Depth, r.Exhausted, r.Tried)
	}
	if r.Space < 100_000 || r.Tried < r.Space {
		t.Errorf("depth-2 space %d, %d branches tried: want every pair of 216 decisions", r.Space, r.Tried)
	}
}

// Christmas Friday with the ack moved above the work: the run as it
// stands loses the forty old-producer orders, and the hunt says so
// without searching.
func TestChristmasAckBeforeUnforced(t *testing.T) {
	o := options(t, "christmas-friday", "no-order-lost", "ack=before")
	r := hunt(t, o)
	if !r.Found || !r.Unforced || r.Tried != 0 || len(r.Forced) != 0 {
		t.Fatalf("want the unforced run to break it, nothing tried: %+v", r)
	}
	if len(r.Broken) != 1 || r.Broken[0].Check != "lost: 0" || r.Broken[0].Got != "40" {
		t.Errorf("broken: %+v, want lost: 0 broken with 40", r.Broken)
	}
}

// Cashback with the dedupe table: no single crash anywhere, and no
// single other decision, makes the balance wrong; every one was tried.
func TestCashbackDedupeHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 5,110 branches of 5,000 events")
	}
	o := options(t, "cashback", "balance-exact", "dedupe=true")
	o.Budget = 5110
	r := hunt(t, o)
	// a crash after each of the 5,055 deliveries' COMMITs, and none of
	// the 55 crashes the run draws itself
	if r.Found || r.Depth != 1 || !r.Exhausted || r.Space != 5110 || r.Tried != 5110 {
		t.Fatalf("want none found, depth 1 exhausted over every delivery's crash: %+v", r)
	}
}

// Cashback without it: the run as it stands credits ₹5,500 too much.
func TestCashbackNoDedupeUnforced(t *testing.T) {
	r := hunt(t, options(t, "cashback", "balance-exact", "dedupe=false"))
	if !r.Unforced || r.Tried != 0 || len(r.Broken) != 1 || r.Broken[0].Got != "505500" {
		t.Fatalf("want the unforced run to break it (505500): %+v", r)
	}
}

// Cashback without it and with no crashes of its own: one forced crash
// between COMMIT and XACK credits an event twice.
func TestCashbackOneCrashBreaksBalance(t *testing.T) {
	o := options(t, "cashback", "balance-exact", "dedupe=false", "crash_p=0")
	r := hunt(t, o)
	if !r.Found || r.Unforced || len(r.Forced) != 1 || r.Forced[0].Fault == nil || r.Forced[0].Fault.Point != "after_commit" {
		t.Fatalf("want one forced crash after the COMMIT: %+v", r)
	}
	if !strings.Contains(r.Forced[0].Words, "crashes after the wallet COMMIT, before XACK") {
		t.Errorf("forced decision worded %q", r.Forced[0].Words)
	}
	if r.Broken[0].Got != "500100" {
		t.Errorf("balance %s, want 500100: one event credited twice", r.Broken[0].Got)
	}
	reproduces(t, o, r)
	// and without faults there is nothing to force that breaks it
	o.Faults = false
	if r := hunt(t, o); r.Found {
		t.Errorf("with faults off: found %+v", r.Forced)
	}
}

// The same arguments give the same answer whatever the number of cores:
// results are read in branch order, not in order of arrival.
func TestSameAnswerOnAnyCores(t *testing.T) {
	run := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o := options(t, "thursday", "one-email", "visibility_timeout=45s")
		o.Depth, o.Budget, o.Faults = 2, 1500, false
		r := hunt(t, o)
		b, _ := json.Marshal(r)
		return string(b)
	}
	one, four := run(1), run(4)
	if one != four {
		t.Errorf("GOMAXPROCS 1:\n%s\nGOMAXPROCS 4:\n%s", one, four)
	}
	// a found answer too: the first breaking branch in branch order
	found := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o := options(t, "thursday", "no-duplicate", "visibility_timeout=45s", "latency_max=45s")
		o.Depth, o.Budget, o.From, o.Faults = 2, 3000, 20*engine.Hour+30*engine.Minute, false
		r := hunt(t, o)
		if !r.Found || r.Tried < 2 || r.Forced[0].At < o.From {
			t.Fatalf("want a branch found after 20:30 (a latency of 45 s on a 45 s lease): %+v", r)
		}
		b, _ := json.Marshal(r)
		return string(b)
	}
	if a, b := found(1), found(4); a != b {
		t.Errorf("GOMAXPROCS 1:\n%s\nGOMAXPROCS 4:\n%s", a, b)
	}
	// and one found at depth 2 among faults, thousands of branches in
	pair := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o := options(t, "thursday-fixed", "its-email")
		o.Depth, o.Budget = 2, 20000
		r := hunt(t, o)
		if !r.Found || r.Tried < 1000 {
			t.Fatalf("want a pair found after a thousand branches: %+v", r)
		}
		b, _ := json.Marshal(r)
		return string(b)
	}
	if a, b := pair(1), pair(4); a != b {
		t.Errorf("GOMAXPROCS 1:\n%s\nGOMAXPROCS 4:\n%s", a, b)
	}
}

// A find is shrunk to the faults that matter, and moved to the earliest
// order the same faults break the property on.
func TestShrinkAndEarliest(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	s, err := newSearcher(o)
	if err != nil {
		t.Fatal(err)
	}
	fault := func(point string, m int32) Forced {
		return Forced{Msg: m, Delivery: 1, Fault: &engine.Fault{Point: point, Msg: m, Delivery: 1}}
	}
	out, ok := s.breaks([]Forced{fault("after_effect", 7), fault("after_receive", 9)})
	if !ok {
		t.Fatalf("a crash after order 7's email leaves should break one-email: %+v", out.broken)
	}
	got := s.shrink(out)
	if len(got.forced) != 1 || *got.forced[0].Fault != *fault("after_effect", 7).Fault {
		t.Errorf("shrunk to %+v, want the crash on order 7 alone", got.forced)
	}
	got = s.earliest(got)
	if len(got.forced) != 1 || *got.forced[0].Fault != *fault("after_effect", 0).Fault {
		t.Errorf("earliest: %+v, want the same crash on order 0", got.forced)
	}
	// a crash right after receiving breaks nothing: it is not kept
	if _, ok := s.breaks([]Forced{fault("after_receive", 9)}); ok {
		t.Error("a crash before any work should not break one-email")
	}
}

// Stop ends a hunt between chunks with its error, and the progress says
// the best branch so far once one has moved the figures.
func TestStopEndsTheHunt(t *testing.T) {
	o := options(t, "thursday-fixed", "dlq-empty")
	o.Faults, o.Depth, o.Budget = false, 2, 5000
	stop := errors.New("stop")
	calls := 0
	var last Progress
	o.Progress = func(p Progress) { last = p }
	o.Stop = func() error {
		calls++
		if calls > 3 {
			return stop
		}
		return nil
	}
	r, err := Hunt(o)
	if err != stop || r != nil {
		t.Fatalf("Hunt = %v, %v; want nil, the Stop's error", r, err)
	}
	if last.Tried != 3*chunk {
		t.Errorf("tried %d before stopping, want %d (three chunks)", last.Tried, 3*chunk)
	}
}

// TestHuntOnABranch: a hunt of a branch plays the branch's forks as the
// explorer does, and its find's code starts with them and reproduces.
func TestHuntOnABranch(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	x, err := engine.NewExplorer(o.Spec, o.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := engine.ParseClock("19:45:00")
	pos := x.PosAtTime(x.Branch(), at)
	x.Goto(pos)
	set, _ := engine.ParseSetting("visibility_timeout=60s")
	if _, err := x.Fork(engine.ForkOptions{Name: "long lease", Pos: pos, At: x.World().Now, Set: []engine.Setting{set}}); err != nil {
		t.Fatal(err)
	}
	o.Forks, o.From = x.Code().Forks, x.World().Now
	r := hunt(t, o)
	if !r.Found || r.Unforced {
		t.Fatalf("want a find on the branch: %+v", r)
	}
	if !strings.Contains(r.Code, "visibility_timeout=60s") || !strings.Contains(r.Code, "long%20lease") && !strings.Contains(r.Code, "long lease") {
		t.Errorf("code %q does not start with the hunted branch", r.Code)
	}
	reproduces(t, o, r)
	// before the branch's own fork is another line
	o.From = o.Forks[0].At - 1
	if _, err := Hunt(o); err == nil || !strings.Contains(err.Error(), "starts at or after its last fork") {
		t.Errorf("a hunt before the fork: %v", err)
	}
}
