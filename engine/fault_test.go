package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// msgLog is what a run did to one message: its effects, crash reasons,
// ack variants and whether it was dead-lettered.
type msgLog struct {
	id      int32
	effects int
	crashes []int64
	acks    []int64
	dlq     bool
}

func (l *msgLog) Event(_ *engine.World, e *engine.Event, _ *engine.Decision) {
	if e.Msg != l.id {
		return
	}
	switch e.Kind {
	case engine.EvEffect:
		l.effects++
	case engine.EvCrash:
		l.crashes = append(l.crashes, e.CrashReason())
	case engine.EvAck:
		l.acks = append(l.acks, e.AckHow())
	case engine.EvDLQ:
		l.dlq = true
	}
}

func spec(t *testing.T, id string) *engine.Spec {
	t.Helper()
	s, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forced plays spec from the start with faults forced, logging message id.
func forced(t *testing.T, s *engine.Spec, set []engine.Setting, id int32, fs ...engine.Fault) (*engine.World, *msgLog) {
	t.Helper()
	w, err := engine.NewWorld(s, s.Seed, set)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Forcing().Faults(fs...); err != nil {
		t.Fatal(err)
	}
	l := &msgLog{id: id}
	w.RunTo(l, -1)
	return w, l
}

// An unforced fault point changes nothing: watching every incident's fault
// points, or forcing a fault the run never reaches, leaves the trace's
// fingerprint and the decision count as they are; and the points are
// passed, in trace order, by every family that declares them.
func TestUnforcedFaultsKeepTraces(t *testing.T) {
	for _, s := range incidents.All() {
		sum, plain, err := engine.Run(s, engine.RunOptions{Seed: s.Seed})
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(s, s.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		var passes []engine.FaultPass
		w.Forcing().Observe(func(p engine.FaultPass) { passes = append(passes, p) })
		if pts := w.Forcing().Points(); len(pts) > 0 {
			// a fault past the run's last message is forced, never fires
			if err := w.Forcing().Faults(engine.Fault{Point: pts[0].Name, Msg: 1 << 30, Delivery: 1}); err != nil {
				t.Fatal(err)
			}
		}
		w.RunTo(nil, -1)
		if w.Fingerprint() != plain.Fingerprint() || w.Decisions != plain.Decisions || w.Pos != sum.Events {
			t.Errorf("%s: watched %x/%d decisions/%d events, plain %x/%d/%d", s.ID, w.Fingerprint(), w.Decisions, w.Pos, plain.Fingerprint(), plain.Decisions, sum.Events)
		}
		if len(w.Forcing().Points()) > 0 && len(passes) == 0 {
			t.Errorf("%s declares fault points and passes none", s.ID)
		}
		for i, p := range passes {
			if p.Forced || p.Point == "" || (i > 0 && p.Pos < passes[i-1].Pos) {
				t.Fatalf("%s: pass %d %+v", s.ID, i, p)
			}
		}
	}
}

// Each of the queue's fault points, forced on thursday-fixed's order 14,
// does what the lesson says that crash does.
func TestQueueFaultPoints(t *testing.T) {
	s := spec(t, "thursday-fixed")
	bw, base := forced(t, s, nil, 14)
	if base.effects != 1 || base.dlq || len(base.crashes) > 0 {
		t.Fatalf("unforced order 14: %+v", base)
	}
	// a forced crash's reason is the point's index among the family's
	crash := func(name string) []int64 {
		for i, p := range bw.Forcing().Points() {
			if p.Name == name {
				return []int64{engine.CrashFault + int64(i)}
			}
		}
		t.Fatalf("the queue declares no fault point %s", name)
		return nil
	}
	tests := []struct {
		fault   engine.Fault
		effects int
		dlq     bool
		crashes []int64
		ackLost bool
	}{
		// nothing done: delivery 2 claims and sends once; its call
		// outlasts the lease, delivery 3 defers, and the drawer takes it
		{engine.Fault{Point: "after_receive", Msg: 14, Delivery: 1}, 1, true, crash("after_receive"), false},
		// the lesson's crash: the claim is past two minutes old at
		// delivery 3, which sends; its call outlasts the last lease
		{engine.Fault{Point: "after_claim", Msg: 14, Delivery: 1}, 1, true, crash("after_claim"), false},
		// between the send and the stamp: delivery 3 sends again
		{engine.Fault{Point: "after_effect", Msg: 14, Delivery: 1}, 2, true, crash("after_effect"), false},
		// the stamp is there: delivery 2 acks without sending
		{engine.Fault{Point: "after_stamp", Msg: 14, Delivery: 1}, 1, false, crash("after_stamp"), false},
		// delivery 3 finds sent_at and dies before acking: no fourth try
		{engine.Fault{Point: "before_ack", Msg: 14, Delivery: 3}, 1, true, crash("before_ack"), false},
		// delivery 3's ack never arrives: the same drawer, the work done
		{engine.Fault{Point: "ack_lost", Msg: 14, Delivery: 3}, 1, true, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.fault.String(), func(t *testing.T) {
			w, l := forced(t, s, nil, 14, tc.fault)
			if l.effects != tc.effects || l.dlq != tc.dlq || fmt.Sprint(l.crashes) != fmt.Sprint(tc.crashes) {
				t.Errorf("order 14: %d effects, dlq %v, crashes %v; want %d, %v, %v", l.effects, l.dlq, l.crashes, tc.effects, tc.dlq, tc.crashes)
			}
			lost := false
			for _, a := range l.acks {
				lost = lost || a == engine.AckLost
			}
			if lost != tc.ackLost {
				t.Errorf("acks %v, want a lost one: %v", l.acks, tc.ackLost)
			}
			if len(w.Forcing().Pending()) != 0 {
				t.Errorf("the fault never fired: %v", w.Forcing().Pending())
			}
		})
	}
}

// lessonCode is the lesson's own pair, forced by hand: the worker dies
// after its claim on order 14's deliveries 1 and 3, on thursday-fixed.
const lessonCode = "thursday-fixed@1/p160@19:51:49.29;fault=after_claim:14.1;fault=after_claim:14.3#1300.49ff4223"

// "A two minute window, a thirty second hold and a limit of three leave no
// room for a fourth try": two crashes after the claim, on deliveries 1 and
// 3, leave the order in the dead letter queue with no email. The share
// code says so, reopens to the same trace, and plays the same headless.
func TestLessonPairNoFourthTry(t *testing.T) {
	s := spec(t, "thursday-fixed")
	c, err := engine.ParseCode(lessonCode)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String(); got != lessonCode {
		t.Fatalf("round trip: %s", got)
	}
	x, err := engine.OpenCode(c, s)
	if err != nil {
		t.Fatal(err)
	}
	b := x.Branch()
	// the fork stands after event 159, at its own clock: the name says so
	// (the code, made before names did, is the same)
	if want := "the worker crashes after its claim on order 14, delivery 1; the worker crashes after its claim on order 14, delivery 3 @19:51:49.29 #160"; b.Name != want {
		t.Errorf("branch name %q, want %q", b.Name, want)
	}
	if got := x.Code().String(); got != lessonCode {
		t.Errorf("reopened code %s", got)
	}
	sum, w, err := engine.ReplayCode(s, c, engine.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if xs := x.Summary(b); xs.TraceSHA256 != sum.TraceSHA256 {
		t.Errorf("explorer %s, replay %s", xs.TraceSHA256, sum.TraceSHA256)
	}
	_, l := forced(t, s, nil, 14, c.Forks[0].Faults...)
	if l.effects != 0 || !l.dlq || len(l.crashes) != 2 {
		t.Errorf("order 14: %d emails, dlq %v, crashes %v; want none, the drawer, two", l.effects, l.dlq, l.crashes)
	}
	if sum.Lost != 0 || sum.DLQ != 1 || w.Stats.Effects != 107 {
		t.Errorf("lost %d, dlq %d, effects %d; want 0, 1, 107", sum.Lost, sum.DLQ, w.Stats.Effects)
	}
	// one crash alone is the lesson's late recovery: delivery 3 sends
	// (and its call outlasts the last lease, as crash_after_claim shows)
	_, one := forced(t, s, nil, 14, c.Forks[0].Faults[0])
	if one.effects != 1 {
		t.Errorf("one crash: %+v", one)
	}
}

// A forced fault is a fork: its code round-trips, reopens to the same
// trace hash as the branch it names, and a world forked from the
// explorer's checkpoint (WorldAt) plays the same.
func TestFaultForkRoundTrip(t *testing.T) {
	s := spec(t, "thursday-fixed")
	x, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	pos := x.PosAtTime(x.Branch(), s.Start+engine.Time(14*50)*engine.Second)
	main := x.Branch()
	w := x.WorldAt(main, pos)
	var passes []engine.FaultPass
	w.Forcing().Observe(func(p engine.FaultPass) { passes = append(passes, p) })
	w.RunTo(nil, -1)
	var pass engine.FaultPass
	for _, p := range passes {
		if p.Point == "after_effect" && p.Msg == 14 {
			pass = p
		}
	}
	if pass.Point == "" || pass.Pos < pos {
		t.Fatalf("no after_effect pass for order 14 from event %d: %v", pos, passes)
	}
	if got, want := w.Forcing().Words(pass.Fault, int(pass.Actor)), "worker B1 crashes after the email leaves, before the provider answers on order 14, delivery 1"; got != want {
		t.Errorf("words %q, want %q", got, want)
	}
	x.Goto(pass.Pos)
	b, err := x.Fork(engine.ForkOptions{Pos: pass.Pos, At: x.World().Now, Faults: []engine.Fault{pass.Fault}})
	if err != nil {
		t.Fatal(err)
	}
	x.End()
	code := x.Code()
	c, err := engine.ParseCode(code.String())
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != code.String() || len(c.Forks) != 1 || len(c.Forks[0].Faults) != 1 || c.Forks[0].Faults[0] != pass.Fault {
		t.Fatalf("round trip %s → %s", code, c)
	}
	y, err := engine.OpenCode(c, s)
	if err != nil {
		t.Fatal(err)
	}
	want := x.Summary(b)
	if got := y.Summary(y.Branch()); got.TraceSHA256 != want.TraceSHA256 {
		t.Errorf("reopened %s, forked %s", got.TraceSHA256, want.TraceSHA256)
	}
	if want.DuplicateEffects != 1 {
		t.Errorf("duplicates %d, want 1 (a crash between the send and the stamp)", want.DuplicateEffects)
	}
	// the cheap branch: a checkpoint's world, forced, played headless,
	// and its code
	v := x.WorldAt(main, pass.Pos).Clone()
	at := v.Now
	if err := v.Forcing().Faults(pass.Fault); err != nil {
		t.Fatal(err)
	}
	v.RunTo(nil, -1)
	bc := engine.BranchCode(s, s.Seed, nil, []engine.CodeFork{{Pos: pass.Pos, At: at, Faults: []engine.Fault{pass.Fault}}}, v)
	if rs, _, err := engine.ReplayCode(s, bc, engine.ReplayOptions{}); err != nil || rs.TraceSHA256 != want.TraceSHA256 {
		t.Errorf("BranchCode %s: %v, %s; want %s", bc, err, rs.TraceSHA256, want.TraceSHA256)
	}
	z, _ := engine.OpenCode(c, s)
	z.End()
	if v.Fingerprint() != z.World().Fingerprint() {
		t.Errorf("WorldAt branch %x, code's %x", v.Fingerprint(), z.World().Fingerprint())
	}
	// an unknown point is refused with the incident's names
	if err := v.Forcing().Faults(engine.Fault{Point: "after_lunch", Msg: 1, Delivery: 1}); err == nil || !strings.Contains(err.Error(), "after_claim") {
		t.Errorf("unknown point: %v", err)
	}
}

// cashback and stagefront already decide a crash at the lesson's point;
// forcing the fault forces that decision: the same index as unforced,
// marked forced, and (dedupe off) one credit twice.
func TestFaultForcesFamilyCrash(t *testing.T) {
	cb := spec(t, "cashback")
	set := []engine.Setting{{Knob: "dedupe", Value: "false"}, {Knob: "crash_p", Value: "0"}}
	crashDec := func(fs ...engine.Fault) (*engine.World, engine.Decision) {
		w, err := engine.NewWorld(cb, cb.Seed, set)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Forcing().Faults(fs...); err != nil {
			t.Fatal(err)
		}
		var got engine.Decision
		w.RunTo(sinkFn(func(_ *engine.World, _ *engine.Event, d *engine.Decision) {
			if d != nil && d.Kind == engine.DecCrash && d.Msg == 7 && d.Delivery == 1 {
				got = *d
			}
		}), -1)
		return w, got
	}
	pw, plain := crashDec()
	w, got := crashDec(engine.Fault{Point: "after_commit", Msg: 7, Delivery: 1})
	if got.Index != plain.Index || got.Value != 1 || !got.Forced || plain.Value != 0 {
		t.Errorf("forced %+v, unforced %+v", got, plain)
	}
	if b, p := w.Family().Figures(w)["balance"], pw.Family().Figures(pw)["balance"]; fmt.Sprint(b) != fmt.Sprint(p.(int64)+100) {
		t.Errorf("balance %v, unforced %v: want one credit more", b, p)
	}
	sf := spec(t, "stagefront")
	var forcedDec bool
	sw, err := engine.NewWorld(sf, sf.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Forcing().Faults(engine.Fault{Point: "after_commit", Msg: 5, Delivery: 1}); err != nil {
		t.Fatal(err)
	}
	sw.RunTo(sinkFn(func(_ *engine.World, e *engine.Event, d *engine.Decision) {
		if d != nil && d.Kind == engine.DecCrash && d.Msg == 5 && d.Forced && d.Value == 1 && e.Kind == engine.EvCrash {
			forcedDec = true
		}
	}), -1)
	if !forcedDec {
		t.Error("stagefront: no forced crash decision on hold 5")
	}
}

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// Forcing.Decisions forces several decisions by index in one branch.
func TestForceDecisions(t *testing.T) {
	s := spec(t, "thursday")
	var lat []int64
	w, _ := engine.NewWorld(s, s.Seed, nil)
	w.RunTo(sinkFn(func(_ *engine.World, _ *engine.Event, d *engine.Decision) {
		if d != nil && d.Kind == engine.DecLatency && len(lat) < 2 && d.Index > 5 {
			lat = append(lat, d.Index)
		}
	}), 400)
	if len(lat) < 2 {
		t.Fatal("fewer than two latency decisions")
	}
	w, _ = engine.NewWorld(s, s.Seed, nil)
	w.Forcing().Decisions(engine.DecisionOverride{Index: lat[1], Value: 1000}, engine.DecisionOverride{Index: lat[0], Value: 1000})
	seen := map[int64]bool{}
	w.RunTo(sinkFn(func(_ *engine.World, _ *engine.Event, d *engine.Decision) {
		if d != nil && (d.Index == lat[0] || d.Index == lat[1]) {
			seen[d.Index] = d.Forced && d.Value == 1000
		}
	}), 400)
	if !seen[lat[0]] || !seen[lat[1]] {
		t.Errorf("forced latencies at %v: %v", lat, seen)
	}
}

// Every fault point of every bundled incident, forced where the unforced
// run first passes it, fires there and changes the run.
func TestEveryFaultPointFires(t *testing.T) {
	for _, s := range incidents.All() {
		w, _ := engine.NewWorld(s, s.Seed, nil)
		first := map[string]engine.FaultPass{}
		var order []string
		w.Forcing().Observe(func(p engine.FaultPass) {
			if _, ok := first[p.Point]; !ok {
				first[p.Point] = p
				order = append(order, p.Point)
			}
		})
		w.RunTo(nil, -1)
		for _, name := range order {
			p := first[name]
			f, _ := engine.NewWorld(s, s.Seed, nil)
			if err := f.Forcing().Faults(p.Fault); err != nil {
				t.Fatal(err)
			}
			var fired engine.FaultPass
			f.Forcing().Observe(func(q engine.FaultPass) {
				if q.Forced {
					fired = q
				}
			})
			f.RunTo(nil, -1)
			if fired.Fault != p.Fault || fired.Pos != p.Pos || f.Fingerprint() == w.Fingerprint() {
				t.Errorf("%s %s: fired %+v (passed %+v); trace changed: %v", s.ID, p.Fault, fired, p, f.Fingerprint() != w.Fingerprint())
			}
			t.Logf("%s: %s", s.ID, f.Forcing().Words(p.Fault, int(p.Actor)))
		}
	}
}
