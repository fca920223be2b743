package randsuite

import (
	"reflect"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestBrokerRulesCatch: the broker's rules are not checks that cannot
// fail. Each lie told about an honest run's events — a message handed out
// twice, a delete that never happened, a record kept past its expiry, a
// session that never ended — is caught, on every family.
func TestBrokerRulesCatch(t *testing.T) {
	first := func(k engine.Kind) match {
		return func(_ *engine.World, e *engine.Event) bool { return e.Kind == k }
	}
	drop := func(*engine.Event) bool { return false }
	cases := []struct {
		name, incident string
		set            []engine.Setting
		match          match
		edit           func(e *engine.Event) bool // nil: the event told twice
		want           string                     // any of these, |-separated
	}{
		{"a lease handed out twice", "stagefront", nil, first(engine.EvDeliver), nil, "delivered while leased"},
		{"a delete that never happened", "cashback", nil, first(engine.EvAck), drop, "max_oldest_age_s"},
		{"a record kept past its expiry", "fifo-window", nil, named("duplicate_dropped"),
			func(e *engine.Event) bool { e.Aux += int64(engine.Minute); return true }, "remembered until"},
		{"a session that never ended", "kafka-restart", []engine.Setting{{Knob: "email_crash", Value: "true"}},
			named("session_timeout"), drop, "session times out"},
		{"a retry's timer cut short", "db-down", nil,
			func(w *engine.World, e *engine.Event) bool {
				return w.KindName(e.Kind) == "db_error" && e.Aux == failRetry
			},
			func(e *engine.Event) bool { e.Value += int64(engine.Hour); return true }, "before its timer"},
		{"an entry read twice as new", "cashback", nil, first(engine.EvDeliver), nil, "already delivered|delivery count"},
		{"a record read from the wrong partition", "ordering", nil, first(engine.EvDeliver),
			func(e *engine.Event) bool { e.Value++; return true }, "does not hold"},
		{"a reading re-sent twice", "galewatch", nil, named("reject"), nil, "again after|before the minute"},
		{"a dead letter before the limit", "thursday", nil,
			func(_ *engine.World, e *engine.Event) bool { return e.Kind == engine.EvDeliver && e.Delivery == 3 },
			func(e *engine.Event) bool { e.Delivery = 2; return true }, "below max_receives"},
	}
	for _, tc := range cases {
		spec, err := incidents.Get(tc.incident)
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(spec, spec.Seed, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		ck := NewChecker(spec)
		var sink engine.Sink = &tamper{next: ck, match: tc.match, edit: tc.edit}
		if tc.edit == nil {
			sink = &twiceWhen{next: ck, match: tc.match}
		}
		for w.Step(sink) {
		}
		ck.Finish(w, w.Summarize(""))
		all := strings.Join(ck.Errs(), "\n")
		found := false
		for _, want := range strings.Split(tc.want, "|") {
			found = found || strings.Contains(all, want)
		}
		if !found {
			t.Errorf("%s (%s): the checker said %q, want a report naming %q", tc.name, tc.incident, all, tc.want)
		}
	}
}

// twiceWhen tells the first matching event twice.
type twiceWhen struct {
	next  engine.Sink
	match match
	done  bool
}

func (s *twiceWhen) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	s.next.Event(w, e, d)
	if !s.done && s.match(w, e) {
		s.done = true
		s.next.Event(w, e, d)
	}
}

// TestRandomForksFromChangedState: forks from a state the knobs changed
// from the start (a breaker already open, leases renewing, a window
// remembered), every incident but the two big ones (their own clone tests
// cover them), under the same checker and the broker's rules. A failure
// prints the share code that reproduces it (`inflight run --code`).
func TestRandomForksFromChangedState(t *testing.T) {
	n := count(40, 16)
	for _, spec := range incidents.All() {
		g, err := genFor(spec)
		if err != nil {
			t.Fatal(err)
		}
		if g.Events > bigRun {
			continue
		}
		t.Run(spec.ID, func(t *testing.T) {
			bad := 0
			for i := 0; i < n; i++ {
				c := g.ForkCase(*suiteSeed, i)
				r := g.Check(c, false)
				if r.Refused || len(r.Errs) == 0 {
					continue
				}
				bad++
				if bad <= 4 {
					code := engine.RunCode(c.Spec, c.Options(), r.World).String()
					t.Errorf("%s\n\tinflight run --code '%s'\n\t%s", c.Repro(), code, strings.Join(r.Errs, "\n\t"))
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d forks from a changed state of %s break an invariant", bad, n, spec.ID)
			}
		})
	}
}

// TestRulesKnowTheirKinds: the rules find a family's kinds by their trace
// names; a name the family no longer gives would silently check nothing.
// Every bundled incident gets rules, and every kind they look up exists.
func TestRulesKnowTheirKinds(t *testing.T) {
	for _, spec := range incidents.All() {
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		ck := NewChecker(spec)
		w.Step(ck)
		if ck.rules == nil {
			t.Errorf("%s (family %q): no broker rules", spec.ID, familyName(spec))
			continue
		}
		v := reflect.ValueOf(ck.rules).Elem()
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.Type() == reflect.TypeOf(engine.Kind(0)) && f.Uint() == 0 {
				t.Errorf("%s: the rules' kind %s names no kind of the family's", spec.ID, v.Type().Field(i).Name)
			}
		}
		if ck.queue && (ck.evRenew == 0 || ck.evAnswer == 0 || ck.evRed == 0) {
			t.Errorf("%s: the queue's renew, answer or redrive kind not found", spec.ID)
		}
	}
}
