package engine_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// recorder keeps every event of a small run, feeds a probe, and checks
// conservation after each event: every published message is in exactly
// one state.
type recorder struct {
	t      *testing.T
	probe  *engine.Probe
	events []engine.Event
	bad    string
}

func (r *recorder) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	r.events = append(r.events, *e)
	r.probe.Event(w, e, d)
	st := w.States()
	if r.bad == "" && (st.Held+st.Done+st.DLQ+st.Lost != st.Published || st.Held < 0 || st.Done < 0 || st.DLQ < 0 || st.Lost < 0) {
		r.bad = fmt.Sprintf("event %d (%s at %s): states %+v do not add up", e.Pos, e.Kind, e.T.Short(), st)
	}
	if waiting, taken := w.Family().Counts(w); r.bad == "" && st.Held < int64(waiting+taken) {
		r.bad = fmt.Sprintf("event %d: held %d below the broker's %d waiting + %d in flight", e.Pos, st.Held, waiting, taken)
	}
}

type queueRun struct {
	sum    engine.Summary
	w      *engine.World
	probe  *engine.Probe
	events []engine.Event
}

func clock(t *testing.T, s string) engine.Time {
	t.Helper()
	c, err := engine.ParseClock(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func settings(t *testing.T, kv ...string) []engine.Setting {
	t.Helper()
	var out []engine.Setting
	for _, s := range kv {
		st, err := engine.ParseSetting(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}

// playQueue runs an incident with changes from the start (set) and from a
// moment (at, atSet), under budget b, recording everything.
func playQueue(t *testing.T, id string, set []engine.Setting, at string, atSet []engine.Setting, b engine.Budget) queueRun {
	t.Helper()
	spec, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.NewWorld(spec, spec.Seed, set)
	if err != nil {
		t.Fatal(err)
	}
	if at != "" {
		if err := w.ScheduleKnobs(clock(t, at), atSet); err != nil {
			t.Fatal(err)
		}
	}
	r := &recorder{t: t, probe: engine.NewProbe()}
	w.RunWithin(r, b)
	if r.bad != "" {
		t.Fatal(r.bad)
	}
	return queueRun{w.Summarize(""), w, r.probe, r.events}
}

func (q queueRun) fact(t *testing.T, key string) string {
	t.Helper()
	v, ok, err := q.probe.Lookup(key)
	if err != nil || !ok {
		t.Fatalf("%s: %v %v", key, ok, err)
	}
	return v
}

// checkSettled asserts the settled-state rule on the world a run ended
// with, and that no move forgot to wake the dispatcher.
func checkSettled(t *testing.T, q queueRun) {
	t.Helper()
	if n := engine.Revived(q.w); n != 0 {
		t.Errorf("the settled-state guard had to start %d dispatches: a move forgot to wake the dispatcher", n)
	}
	if !q.w.Settled() {
		return // stopped by the budget
	}
	waiting, taken := q.w.Family().Counts(q.w)
	if waiting == 0 {
		return
	}
	// settled, a worker is idle or wedged: the start event counts them
	// all, the summary's reading of the family the wedged
	workers := int64(0)
	for _, e := range q.events {
		if e.Kind == engine.EvStart {
			workers = e.Value
		}
	}
	fs, ok := q.w.Family().(engine.FamilySummary)
	if !ok {
		t.Fatal("the queue reports no workers to the summary (engine.FamilySummary)")
	}
	_, wedged, _ := fs.Running(q.w, q.w.Now)
	if idle := workers - int64(wedged); idle > 0 {
		// an idle worker beside a visible message: only an ordered queue
		// whose head is in flight may leave them so
		if knob(q.w, "mode") != "ordered" || taken == 0 {
			t.Fatalf("settled with %d messages waiting and %d workers idle", waiting, idle)
		}
	}
}

// knob is the value in force of w's knob name, as --set gives it.
func knob(w *engine.World, name string) string {
	for _, k := range w.Knobs.Knobs() {
		if k.Name == name {
			return k.Get(&w.Knobs)
		}
	}
	return ""
}

func total(s engine.Summary) int64 { return s.Done + s.HeldAtEnd + s.DLQ + s.Lost }

// TestQueueForksFullFigures pins the runs issue 9 named: the ordered queue
// that stalled once publishing ended, the wedge stall, and forks that
// change a rule mid-flight, each with its full figures.
func TestQueueForksFullFigures(t *testing.T) {
	type want struct {
		messages, deliveries, effects, dups, done, held, lost, dlq, refused int64
		end, unfinished                                                     string
	}
	cases := []struct {
		name, id  string
		set       []string
		at        string
		atSet     []string
		want      want
		redriveAt string // the repair script's redrive, "" for none
		facts     map[string]string
	}{
		{
			name: "christmas vt60: drains after the last DLQ move", id: "christmas-friday",
			set:  []string{"visibility_timeout=60s", "max_receives=3"},
			want: want{880, 1000, 880, 0, 880, 0, 0, 0, 0, "18:53:40", ""}, redriveAt: "18:50:00",
			facts: map[string]string{"message.39.dlq_at": "18:50:00", "message.39.effects": "1", "message.40.effects": "1",
				"message.879.effects": "1", "published_before.17:00.effects": "1", "published_from.17:00.effects": "1"},
		},
		{
			name: "christmas vt120", id: "christmas-friday", set: []string{"visibility_timeout=120s"},
			want: want{880, 1000, 880, 0, 880, 0, 0, 0, 0, "20:53:40", ""}, redriveAt: "20:50:00",
			facts: map[string]string{"published_before.17:00.effects": "1", "published_from.17:00.effects": "1"},
		},
		{
			name: "christmas max_receives=6", id: "christmas-friday", set: []string{"max_receives=6"},
			want: want{880, 1120, 880, 0, 880, 0, 0, 0, 0, "18:53:40", ""}, redriveAt: "18:50:00",
			facts: map[string]string{"published_before.17:00.effects": "1", "published_from.17:00.effects": "1"},
		},
		{
			// receive counts wide enough for the knob's top value: each old
			// message is received 1,000 times before the DLQ takes it
			name: "christmas max_receives=1000", id: "christmas-friday", set: []string{"max_receives=1000"},
			want: want{880, 40880, 880, 0, 880, 0, 0, 0, 0, "350:13:40", ""}, redriveAt: "350:10:00",
			facts: map[string]string{"message.0.deliveries": "1001", "message.39.effects": "1"},
		},
		{
			// order 820 was delivered at 17:55:00 under ack-after: its
			// handler keeps that rule and acks once, with one email
			name: "christmas ack=before at 17:55:00.1", id: "christmas-friday", at: "17:55:00.1", atSet: []string{"ack=before"},
			want: want{880, 1000, 880, 0, 880, 0, 0, 0, 0, "17:59:55.25", ""}, redriveAt: "17:50:00",
			facts: map[string]string{"message.820.effects": "1", "message.820.deliveries": "1", "message.820.gone": "17:55:00.25",
				"message.821.gone": "17:55:05"},
		},
		{
			// the reverse: order 820 delivered under ack-before keeps it; the
			// broker is never asked for an ack it already had
			name: "christmas ack-before, ack=after at 17:55:00.1", id: "christmas-friday", set: []string{"ack=before"},
			at: "17:55:00.1", atSet: []string{"ack=after"},
			want:  want{880, 880, 840, 0, 840, 0, 40, 0, 0, "17:59:55.25", ""},
			facts: map[string]string{"message.820.effects": "1", "message.820.gone": "17:55:00", "message.821.gone": "17:55:05.25"},
		},
		{
			// order 0, in flight at the switch, keeps its place at the head
			name: "thursday mode=ordered at 19:40:21", id: "thursday", at: "19:40:21", atSet: []string{"mode=ordered"},
			want:  want{108, 324, 324, 216, 0, 0, 0, 108, 324, "22:22:27.296", ""},
			facts: map[string]string{"message.0.deliveries": "3", "message.0.dlq": "true", "message.0.dlq_at": "19:41:50"},
		},
		{
			name: "thursday orders=6 at 19:45:00", id: "thursday", at: "19:45:00", atSet: []string{"orders=6"},
			want: want{6, 18, 18, 12, 0, 0, 0, 6, 18, "19:46:05.99", ""},
		},
		{
			// raised after publishing ended at 21:09:30: the source resumes
			// at its own spacing from the fork (order 108 at 21:10:20), as
			// if the count had been raised before the end
			name: "thursday orders=200 at 21:10:00", id: "thursday", at: "21:10:00", atSet: []string{"orders=200"},
			want:  want{200, 600, 600, 400, 0, 0, 0, 200, 600, "22:27:42.693", ""},
			facts: map[string]string{"message.108.deliveries": "3"},
		},
		{
			name: "thursday wedged: stalls and says so", id: "thursday", set: []string{"heartbeat=10s", "wedge_p=0.5"},
			want: want{108, 9, 9, 0, 5, 103, 0, 0, 0, "21:09:30", "stalled: 4 of 4 workers wedged, 99 orders waiting, 4 in flight"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := playQueue(t, c.id, settings(t, c.set...), c.at, settings(t, c.atSet...), engine.Budget{})
			s := q.sum
			got := want{s.Messages, s.Deliveries, s.Effects, s.DuplicateEffects, s.Done, s.HeldAtEnd, s.Lost, s.DLQ, s.LateAcksRefused, s.End, s.Unfinished}
			if got != c.want {
				t.Errorf("figures\n got %+v\nwant %+v", got, c.want)
			}
			if total(s) != s.Messages {
				t.Errorf("done %d + held %d + dlq %d + lost %d != messages %d", s.Done, s.HeldAtEnd, s.DLQ, s.Lost, s.Messages)
			}
			redrive := ""
			for _, e := range q.events {
				if e.Kind == engine.EvRedrive {
					redrive = e.T.Short()
				}
			}
			if redrive != c.redriveAt {
				t.Errorf("redrive at %q, want %q", redrive, c.redriveAt)
			}
			for k, v := range c.facts {
				if got := q.fact(t, k); got != v {
					t.Errorf("%s = %s, want %s", k, got, v)
				}
			}
			checkSettled(t, q)
			checkTrace(t, q)
		})
	}
}

// checkTrace holds a run's trace to the rules issue 9 listed: time never
// goes back, no ack after a dead-letter of the same delivery, no refusal
// of an ack the same delivery made, and in an ordered queue no message's
// first delivery before the one ahead of it has left.
func checkTrace(t *testing.T, q queueRun) {
	t.Helper()
	type key struct {
		msg int32
		del uint16
	}
	acked := map[key]bool{}
	dead := map[key]bool{}
	var last engine.Time
	for _, e := range q.events {
		if e.T < last {
			t.Fatalf("event %d at %s goes back from %s", e.Pos, e.T.Short(), last.Short())
		}
		last = e.T
		k := key{e.Msg, e.Delivery}
		switch e.Kind {
		case engine.EvAck:
			if dead[k] && !engine.NoopAck(e.Aux) {
				t.Fatalf("event %d: message %d delivery %d acked after its dead-letter", e.Pos, e.Msg, e.Delivery)
			}
			acked[k] = true
		case engine.EvAckRefused:
			if acked[k] {
				t.Fatalf("event %d: message %d delivery %d: an ack refused after the same delivery acked", e.Pos, e.Msg, e.Delivery)
			}
		case engine.EvDLQ:
			dead[k] = true
		case engine.EvRedrive:
			// a redriven message is sent again: its deliveries count anew
			acked, dead = map[key]bool{}, map[key]bool{}
		}
	}
}

// TestOrderedSwitchKeepsOrder: after a fork switches thursday to an ordered
// queue, no order's first delivery comes before the order ahead of it has
// left the queue (acked or dead-lettered).
func TestOrderedSwitchKeepsOrder(t *testing.T) {
	q := playQueue(t, "thursday", nil, "19:40:21", settings(t, "mode=ordered"), engine.Budget{})
	for id := int32(1); id < int32(q.sum.Messages); id++ {
		prev := q.probe.Msgs[id-1]
		first := engine.Never
		for _, e := range q.events {
			if e.Kind == engine.EvDeliver && e.Msg == id {
				first = e.T
				break
			}
		}
		if prev.Gone < 0 || first < prev.Gone {
			t.Fatalf("order %d first delivered at %s, before order %d left (%s)", id, first.Short(), id-1, prev.Gone.Short())
		}
	}
}

// TestTieRule: a provider call that ends at the very millisecond its lease
// expires is late. Refused, it is redelivered; accepted, it deletes the
// message the expiry made visible; at max_receives=1 the expiry moves the
// message to the DLQ first and the accepted ack finds it gone.
func TestTieRule(t *testing.T) {
	cases := []struct {
		name                        string
		set                         []string
		done, dlq, refused, effects int64
	}{
		{"refuse", []string{"late_ack=refuse"}, 0, 108, 324, 324},
		// order 14's 34 s pin lies outside 30s–30s and gives way: no
		// order's call outlasts its lease, one email each
		{"accept", []string{"late_ack=accept"}, 108, 0, 0, 108},
		{"accept, max_receives=1", []string{"late_ack=accept", "max_receives=1"}, 0, 108, 0, 108},
		{"refuse, heartbeat=10s", []string{"late_ack=refuse", "heartbeat=10s"}, 108, 0, 0, 108},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := settings(t, append([]string{"latency_min=30s", "latency_max=30s"}, c.set...)...)
			q := playQueue(t, "thursday", set, "", nil, engine.Budget{})
			s := q.sum
			if s.Done != c.done || s.DLQ != c.dlq || s.LateAcksRefused != c.refused || s.Effects != c.effects || total(s) != s.Messages {
				t.Fatalf("done %d dlq %d refused %d effects %d (of %d); want %d %d %d %d", s.Done, s.DLQ, s.LateAcksRefused, s.Effects, s.Messages, c.done, c.dlq, c.refused, c.effects)
			}
			// order 1 (latency not pinned): the expiry comes first in the trace
			var kinds []engine.Kind
			for _, e := range q.events {
				if e.Msg == 1 && e.Delivery == 1 && e.T > 0 && (e.Kind == engine.EvLeaseExpired || e.Kind == engine.EvAck || e.Kind == engine.EvAckRefused || e.Kind == engine.EvDLQ) {
					kinds = append(kinds, e.Kind)
				}
			}
			if c.name != "refuse, heartbeat=10s" && (len(kinds) < 2 || (kinds[0] != engine.EvLeaseExpired && kinds[0] != engine.EvDLQ)) {
				t.Fatalf("order 1, delivery 1: %v; want the expiry before the ack", kinds)
			}
			checkTrace(t, q)
		})
	}
}

// TestBudgetStops: a run stopped by its event budget ends at it, unsettled,
// and its summary says so in one line.
func TestBudgetStops(t *testing.T) {
	q := playQueue(t, "thursday", nil, "", nil, engine.Budget{Events: 100})
	if q.sum.Events != 100 || q.w.Settled() {
		t.Fatalf("events %d, settled %v; want 100, unsettled", q.sum.Events, q.w.Settled())
	}
	if want := "stopped: event budget of 100 reached (raise with --max-events)"; q.sum.Unfinished != want {
		t.Fatalf("unfinished %q, want %q", q.sum.Unfinished, want)
	}
	if total(q.sum) != q.sum.Messages {
		t.Fatalf("states do not add up: %+v", q.sum)
	}
	full := playQueue(t, "thursday", nil, "", nil, engine.Budget{Events: -1})
	if full.sum.Unfinished != "" || !full.w.Settled() {
		t.Fatalf("unlimited: %q, settled %v", full.sum.Unfinished, full.w.Settled())
	}
	if engine.DefaultBudget.Limit() < 100*full.sum.Events {
		t.Fatalf("the default budget (%d) is too small", engine.DefaultBudget.Limit())
	}
}

// TestQueueLivenessRandom plays the three queue incidents under random
// knob settings (a quarter as forks at a random moment) and asserts, after
// every event, that the states add up, and at the end the settled-state
// rule: no message waits beside an idle worker, and no move forgot to wake
// the dispatcher.
func TestQueueLivenessRandom(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	knobs := []struct {
		key  string
		vals []string
	}{
		{"mode", []string{"standard", "ordered"}},
		{"visibility_timeout", []string{"250ms", "20s", "30s", "45s", "60s", "120s"}},
		{"max_receives", []string{"1", "2", "3", "4", "6", "300"}},
		{"late_ack", []string{"refuse", "accept"}},
		{"ack", []string{"before", "after"}},
		{"heartbeat", []string{"0s", "10s", "25s"}},
		{"wedge_p", []string{"0", "0.01", "0.3"}},
		{"restart_after", []string{"0s", "2s", "30s"}},
		{"latency_min", []string{"250ms", "20s", "30s"}},
		{"orders", []string{"0", "5", "60", "300"}},
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for _, id := range []string{"thursday", "thursday-fixed", "christmas-friday"} {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			var kv []string
			for _, k := range knobs {
				if rng.IntN(3) == 0 {
					kv = append(kv, k.key+"="+k.vals[rng.IntN(len(k.vals))])
				}
			}
			set := settings(t, kv...)
			p := spec.Params
			if p.Apply(set) != nil || engine.CheckKnobsFor(spec, set) != nil {
				continue // latency_min above the incident's latency_max, ...
			}
			at := ""
			var start, atSet []engine.Setting
			if rng.IntN(4) == 0 {
				at = (spec.Start + engine.Time(rng.IntN(int(40*engine.Minute)))).Clock()
				atSet = set
			} else {
				start = set
			}
			name := fmt.Sprintf("%s %v at %q", id, kv, at)
			q := playQueue(t, id, start, at, atSet, engine.Budget{Events: 2_000_000})
			if q.sum.Unfinished != "" && q.w.Settled() && q.sum.HeldAtEnd == 0 {
				t.Errorf("%s: unfinished %q with nothing held", name, q.sum.Unfinished)
			}
			if q.w.Settled() && q.sum.HeldAtEnd > 0 && q.sum.Unfinished == "" {
				t.Errorf("%s: ended with %d held and no word why", name, q.sum.HeldAtEnd)
			}
			if total(q.sum) != q.sum.Messages {
				t.Errorf("%s: states %+v do not add up", name, q.sum)
			}
			t.Run(name, func(t *testing.T) { checkSettled(t, q); checkTrace(t, q) })
		}
	}
}

// TestTieRuleAfterRenewal: the tie when the expiry was scheduled after the
// ack's step. A fork lengthens the heartbeat after order 0's call began, so
// its one renewal (19:40:30) sets an expiry, 19:41:00, that is exactly when
// its 40 s call answers. The expiry still comes first: at max_receives=1 it
// moves the order to the DLQ, and the accepted late ack finds it gone.
func TestTieRuleAfterRenewal(t *testing.T) {
	set := settings(t, "latency_min=40s", "latency_max=40s", "heartbeat=10s", "late_ack=accept", "max_receives=1")
	q := playQueue(t, "thursday", set, "19:40:25", settings(t, "heartbeat=60s"), engine.Budget{})
	var seen []string
	for _, e := range q.events {
		if e.Msg == 0 && e.T == clock(t, "19:41:00") {
			s := e.Kind.String()
			if e.Kind == engine.EvAck {
				s += fmt.Sprintf("(%d)", e.Aux)
			}
			seen = append(seen, s)
		}
	}
	if want := fmt.Sprintf("[dlq ack(%d)]", engine.AckLateNoop); fmt.Sprint(seen) != want {
		t.Fatalf("order 0 at 19:41:00: %v, want %s", seen, want)
	}
	if got := q.fact(t, "message.0.dlq"); got != "true" {
		t.Fatalf("order 0 dlq %s, want true", got)
	}
	checkTrace(t, q)
}

// TestStallLines: a run that settles with work left says why in one line,
// and only then.
func TestStallLines(t *testing.T) {
	cases := []struct {
		name string
		set  []string
		want string
	}{
		{"finished", nil, ""},
		{"every worker wedged", []string{"wedge_p=1"}, "stalled: 4 of 4 workers wedged, 107 orders waiting, 0 in flight"},
		{"ordered head wedged", []string{"mode=ordered", "wedge_p=1", "heartbeat=10s"},
			"stalled: the ordered queue's head (order 0) is held by wedged worker A1, 107 orders waiting behind it"},
	}
	for _, c := range cases {
		q := playQueue(t, "thursday", settings(t, c.set...), "", nil, engine.Budget{})
		if q.sum.Unfinished != c.want {
			t.Errorf("%s: %q, want %q", c.name, q.sum.Unfinished, c.want)
		}
		if total(q.sum) != q.sum.Messages {
			t.Errorf("%s: states do not add up: %+v", c.name, q.sum)
		}
	}
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	none := *spec
	none.Workers.PerBox = 0
	s, _, err := engine.Run(&none, engine.RunOptions{Seed: spec.Seed})
	if err != nil {
		t.Fatal(err)
	}
	if want := "stalled: no consumer, 108 orders waiting"; s.Unfinished != want || s.HeldAtEnd != 108 || s.Lost != 0 {
		t.Fatalf("no workers: %q, held %d, lost %d; want %q, 108, 0", s.Unfinished, s.HeldAtEnd, s.Lost, want)
	}
}
