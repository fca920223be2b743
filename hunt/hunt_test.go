package hunt

import (
	"encoding/json"
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

// reproduces checks that a result's share code replays to a run that
// breaks the property as the result says.
func reproduces(t *testing.T, o Options, r *Result) {
	t.Helper()
	c, err := engine.ParseCode(r.Code)
	if err != nil {
		t.Fatalf("code %q: %v", r.Code, err)
	}
	sum, _, err := engine.ReplayCode(o.Spec, c, engine.ReplayOptions{})
	if err != nil {
		t.Fatalf("code %q: %v", r.Code, err)
	}
	for _, b := range r.Broken {
		key, want, _ := strings.Cut(b.Check, ": ")
		if strings.HasPrefix(key, "every message") {
			continue // the facts are the hunt's own; the figures below are the summary's
		}
		got, _ := quick(&sum, key)
		if engine.Matches(want, got) || got != b.Got {
			t.Errorf("code %q replays %s = %s; the hunt said %s", r.Code, key, got, b.Got)
		}
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
		t.Skip("plays 5,055 branches of 5,000 events")
	}
	o := options(t, "cashback", "balance-exact", "dedupe=true")
	o.Budget = 5055
	r := hunt(t, o)
	if r.Found || r.Depth != 1 || !r.Exhausted || r.Space != 5055 {
		t.Fatalf("want none found, depth 1 exhausted over 5,055 branches: %+v", r)
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
	if !r.Found || r.Unforced || len(r.Forced) != 1 || r.Forced[0].Kind != "crash" || r.Forced[0].Value != 1 {
		t.Fatalf("want one forced crash: %+v", r)
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
		o.Depth, o.Budget, o.From = 2, 3000, 20*engine.Hour+30*engine.Minute
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
}
