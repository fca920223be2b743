package randsuite

import (
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// -randsuite.n: 0 (the default, what CI runs) is the quick suite, a few
// hundred cases; n >= 1 runs issue 9's full counts times n.
// -randsuite.seed picks another stream of cases.
var (
	scale     = flag.Int("randsuite.n", 0, "0: the quick suite; n: issue 9's full case counts times n")
	suiteSeed = flag.Uint64("randsuite.seed", 9, "the random suite's stream of cases")
)

// full reports whether the full counts were asked for.
func full() bool { return *scale >= 1 }

// quickEvents is the quick suite's share of events per incident: cases
// stop at the first past it (at least quickMin of them), so an incident
// whose every run is 370,000 to 800,000 events (galewatch, stagefront,
// which have no size knob) gets a handful and a small one its quickMax.
// Counted in events, not seconds, the suite runs the same cases on any
// machine.
const (
	quickEvents = 3_000_000
	quickMin    = 4
	quickMax    = 40
)

// count is n cases in the full suite (times -randsuite.n), quick in the
// quick one (and -short, either way, an eighth).
func count(n, quick int) int {
	if full() {
		n *= *scale
	} else {
		n = min(n, quick)
	}
	if testing.Short() {
		n /= 8
	}
	return max(n, 1)
}

// casesFor is how many random cases an incident gets in the full suite:
// 1,000 for each queue incident and 200 for each family (issue 9).
func casesFor(spec *engine.Spec) int {
	n := 200
	if familyName(spec) == queueFamily {
		n = 1000
	}
	return count(n, quickMax)
}

// codeEvery: one case in this many is also run headless for its trace
// hash, and its share code opened through the explorer must give the
// same hash.
const codeEvery = 5

// TestRandomRuns is issue 9's random suite: for every bundled incident,
// random valid knob settings and seeds (a quarter of them forks with
// --at), each run checked event by event against an independent tally of
// its messages (conservation: the states add up and match the engine's
// own view after every event), its summary recomputed from the events,
// its settled end checked for liveness, and one in five reproduced from
// its share code. A failure prints the command that reproduces it.
func TestRandomRuns(t *testing.T) {
	for _, spec := range incidents.All() {
		t.Run(spec.ID, func(t *testing.T) {
			t.Parallel()
			g, err := genFor(spec)
			if err != nil {
				t.Fatal(err)
			}
			n := casesFor(spec)
			bad, coded, refused := 0, 0, 0
			var events int64
			kinds, first := map[string]int{}, map[string]string{}
			for i := 0; i < n; i++ {
				if !full() && i >= quickMin && events > quickEvents {
					n = i
					break
				}
				c := g.Case(*suiteSeed, i)
				withCode := i%codeEvery == 0
				r := g.Check(c, withCode)
				if r.World != nil {
					events += r.World.Pos
				}
				if r.Refused {
					refused++
					continue
				}
				if withCode && len(r.Errs) == 0 && r.World.Settled() {
					coded++
					if err := CheckCode(r); err != nil {
						r.Errs = append(r.Errs, err.Error())
					}
				}
				if len(r.Errs) == 0 {
					continue
				}
				for _, e := range r.Errs {
					k := kindOf(e)
					if kinds[k] == 0 {
						first[k] = c.Repro()
					}
					kinds[k]++
				}
				bad++
				if bad <= 8 {
					t.Errorf("%s\n\t%s", c.Repro(), strings.Join(r.Errs, "\n\t"))
				}
			}
			if bad > 0 {
				var lines []string
				for k, n := range kinds {
					lines = append(lines, fmt.Sprintf("%4d× %s\n\t\te.g. %s", n, k, first[k]))
				}
				sort.Strings(lines)
				t.Errorf("%d of %d random runs of %s break an invariant (first 8 above); by kind:\n\t%s",
					bad, n, spec.ID, strings.Join(lines, "\n\t"))
			}
			t.Logf("%d runs, %d events (%d share codes reopened, %d --at moments after the end the CLI refuses)",
				n, events, coded, refused)
			if refused > n/10 {
				t.Errorf("%d of %d cases are --at moments past the run's end: the generator's moments are off", refused, n)
			}
		})
	}
}

var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// kindOf is a violation without its numbers, to count alike ones.
func kindOf(e string) string {
	if i := strings.Index(e, "): "); i >= 0 && strings.HasPrefix(e, "event ") {
		e = "event: " + e[i+3:]
	}
	return digits.ReplaceAllString(e, "N")
}

// TestGeneratorValid: every knob has a generator, every count knob's
// range is read off its definition, and the generated settings are valid
// and reach the ends of their ranges (where counters wrap).
func TestGeneratorValid(t *testing.T) {
	for _, k := range engine.Knobs() {
		if !HasGen(k.Name) {
			t.Errorf("knob %s: the random suite has no generator for it", k.Name)
		}
	}
	for _, name := range []string{"orders", "events", "batch", "max_receives"} {
		k, _ := engine.LookupKnob(name)
		if lo, hi, ok := IntRange(k); !ok || lo >= hi {
			t.Errorf("knob %s: range %d…%d (ok %v) not read off its definition", name, lo, hi, ok)
		}
	}
	seen := map[string]bool{}
	forks := 0
	for _, spec := range incidents.All() {
		g := &Gen{Spec: spec, End: spec.Start + engine.Hour}
		for i := 0; i < 400; i++ {
			c := g.Case(1, i)
			p := spec.Params
			if err := p.Apply(c.Settings()); err != nil {
				t.Fatalf("%s: invalid: %v", c.Repro(), err)
			}
			if err := engine.CheckKnobsFor(spec, c.Settings()); err != nil {
				t.Fatalf("%s: %v", c.Repro(), err)
			}
			if c.HasAt {
				forks++
				if c.At < spec.Start || c.At > g.End {
					t.Fatalf("%s: --at outside the run", c.Repro())
				}
			}
			for _, s := range c.Settings() {
				seen[s.Knob+"="+s.Value] = true
			}
		}
	}
	for _, want := range []string{"max_receives=1000", "max_receives=256", "orders=0", "events=0", "crash_p=1", "wedge_p=1", "write_timeout_p=1"} {
		if !seen[want] {
			t.Errorf("the generator never drew %s", want)
		}
	}
	if total := 400 * len(incidents.All()); forks < total/5 || forks > total/3 {
		t.Errorf("%d forks with --at in %d cases: want about a quarter", forks, total)
	}
}

// tamper passes events to the checker after changing one of them: the
// checker must notice each kind of lie.
type tamper struct {
	next  engine.Sink
	match match
	edit  func(e *engine.Event) bool // false: drop the event
	done  bool
}

func (s *tamper) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	if !s.done && s.match(w, e) {
		s.done = true
		c := *e
		if !s.edit(&c) {
			return
		}
		s.next.Event(w, &c, d)
		return
	}
	s.next.Event(w, e, d)
}

// match picks the event to lie about.
type match func(w *engine.World, e *engine.Event) bool

// named matches the first event of the kind the trace names n.
func named(n string) match {
	return func(w *engine.World, e *engine.Event) bool { return w.KindName(e.Kind) == n }
}

// TestCheckerCatches: the checker is not a test that cannot fail. Each
// lie told to it about an honest run is caught: a lost ack, an effect
// counted twice, time going back, a dead letter it never heard of.
func TestCheckerCatches(t *testing.T) {
	// the queue's own kinds, by their trace names
	th, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	tw, err := engine.NewWorld(th, th.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	queueKinds := kindsOf(tw)
	if queueKinds.Std("renew") == 0 || queueKinds.Std("answer") == 0 {
		t.Fatalf("the queue's world names no renew or answer kind: %v", queueKinds.std)
	}
	cases := []struct {
		name, incident string
		match          match
		edit           func(e *engine.Event) bool
		want           string
	}{
		{"an ack dropped", "christmas-friday", named("ack"),
			func(*engine.Event) bool { return false }, "in flight"},
		{"time going back", "christmas-friday", func(_ *engine.World, e *engine.Event) bool { return e.Pos == 50 },
			func(e *engine.Event) bool { e.T -= engine.Hour; return true }, "time went back"},
		{"a dead letter unheard of", "christmas-friday", named("dlq"),
			func(*engine.Event) bool { return false }, "DLQ"},
		{"a lease expiry missed", "thursday", named("lease_expired"),
			func(e *engine.Event) bool { e.Kind = queueKinds.Std("renew"); return true }, "delivered while in flight"},
		{"an answer without an ack before", "thursday", named("ack_refused"),
			func(e *engine.Event) bool { e.Kind = queueKinds.Std("answer"); return true }, "never acked before"},
		{"an alert unheard of", "christmas-friday", named("alert"),
			func(*engine.Event) bool { return false }, "summary alerts"},
		{"an effect told twice", "christmas-friday", nil, nil, "duplicate_effects"},
	}
	for _, tc := range cases {
		spec, err := incidents.Get(tc.incident)
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		ck := NewChecker(spec)
		var sink engine.Sink = &tamper{next: ck, match: tc.match, edit: tc.edit}
		if tc.match == nil {
			sink = &twice{next: ck, kind: engine.EvEffect}
		}
		for w.Step(sink) {
		}
		ck.Finish(w, w.Summarize(""))
		all := strings.Join(ck.Errs(), "\n")
		if !strings.Contains(all, tc.want) {
			t.Errorf("%s: the checker said %q, want a report naming %q", tc.name, all, tc.want)
		}
	}
	// and the honest runs pass
	for _, id := range []string{"thursday", "christmas-friday"} {
		spec, _ := incidents.Get(id)
		w, _ := engine.NewWorld(spec, spec.Seed, nil)
		ck := NewChecker(spec)
		for w.Step(ck) {
		}
		if ck.Finish(w, w.Summarize("")); len(ck.Errs()) > 0 {
			t.Errorf("the honest %s run: %v", id, ck.Errs())
		}
		// the liveness check reads the queue's workers off its start event
		// and its rules are the queue's: neither may be missing
		if !ck.queue || ck.workers == 0 || ck.rules == nil {
			t.Errorf("%s: the checker took it for the queue %v, saw %d workers start, rules %T", id, ck.queue, ck.workers, ck.rules)
		}
	}
}

type twice struct {
	next engine.Sink
	kind engine.Kind
	done bool
}

func (s *twice) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	s.next.Event(w, e, d)
	if !s.done && e.Kind == s.kind {
		s.done = true
		s.next.Event(w, e, d)
	}
}

var specs map[string]*engine.Spec

// bundled parses the incidents once (a parse of all ten takes a while).
func bundled() map[string]*engine.Spec {
	if specs == nil {
		specs = map[string]*engine.Spec{}
		for _, s := range incidents.All() {
			specs[s.ID] = s
		}
	}
	return specs
}

// parseRepro reads the command line a failure prints back into a case.
func parseRepro(t *testing.T, line string) Case {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "inflight" || f[1] != "run" {
		t.Fatalf("%q: not an inflight run line", line)
	}
	spec, ok := bundled()[f[2]]
	if !ok {
		t.Fatalf("%q: no incident %s", line, f[2])
	}
	c := Case{Spec: spec, Seed: spec.Seed}
	var err error
	var set []engine.Setting
	for i := 3; i+1 < len(f); i += 2 {
		switch f[i] {
		case "--seed":
			fmt.Sscan(f[i+1], &c.Seed)
		case "--set":
			s, err := engine.ParseSetting(f[i+1])
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, s)
		case "--at":
			if c.At, err = engine.ParseClock(f[i+1]); err != nil {
				t.Fatal(err)
			}
			c.HasAt = true
		default:
			t.Fatalf("%q: unknown flag %s", line, f[i])
		}
	}
	if c.HasAt {
		c.AtSet = set
	} else {
		c.Set = set
	}
	return c
}

// TestReproLineRoundTrip: the printed command gives back the same case.
func TestReproLineRoundTrip(t *testing.T) {
	for _, spec := range incidents.All() {
		g := &Gen{Spec: spec, End: spec.Start + engine.Hour}
		for i := 0; i < 50; i++ {
			c := g.Case(3, i)
			back := parseRepro(t, c.Repro())
			if back.Repro() != c.Repro() || fmt.Sprint(back.Options()) != fmt.Sprint(c.Options()) {
				t.Fatalf("%s came back as %s", c.Repro(), back.Repro())
			}
		}
	}
}

var (
	gensMu sync.Mutex
	gensBy = map[string]*Gen{} // by incident id
)

// genFor is NewGen, once per incident for the whole package (each
// measures the incident's own run, up to 800,000 events); the bundled
// incidents parse the same whichever call parsed them.
func genFor(spec *engine.Spec) (*Gen, error) {
	gensMu.Lock()
	defer gensMu.Unlock()
	if g, ok := gensBy[spec.ID]; ok {
		return g, nil
	}
	g, err := NewGen(spec)
	if err == nil {
		gensBy[spec.ID] = g
	}
	return g, err
}
