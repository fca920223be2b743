package engine

import (
	"fmt"
	"math"
)

// Sink receives each event as it is emitted, with its decision if it
// carries one. The world is consistent at that moment (captions read it).
type Sink interface {
	Event(w *World, e *Event, d *Decision)
}

// NewWorld builds the world at the incident's start with the given knob
// changes applied from the beginning.
func NewWorld(spec *Spec, seed uint64, settings []Setting) (*World, error) {
	p, err := CheckSettings(spec, settings)
	if err != nil {
		return nil, err
	}
	if spec.NewFamily == nil {
		return nil, fmt.Errorf("incident %s: no system to run (Spec.NewFamily)", spec.ID)
	}
	if n := len(spec.Workers.Boxes) * spec.Workers.PerBox; n > maxWorkers {
		return nil, fmt.Errorf("incident %s: %d workers; at most %d", spec.ID, n, maxWorkers)
	}
	w := &World{spec: spec, seed: seed, Knobs: p, Now: spec.Start}
	w.streams = [2]uint64{mix(seed ^ uint64(StreamLatency)), mix(seed ^ uint64(StreamWorker))}
	w.truth = Truth{w: w, owner: &token{}}
	w.forcing = Forcing{w: w}
	w.watch = watch{w: w, ageCheckAt: -1, opDone: make([]bool, len(spec.Operators))}
	w.pinTop = -1
	for _, p := range spec.Pins {
		w.pinTop = max(w.pinTop, p.Message)
	}
	w.AlertAt = fill(len(spec.Alerts))
	w.WouldAt = fill(len(spec.WouldHave))
	w.fam = spec.NewFamily(&w.Knobs)
	bindKnobs(w.fam, &w.Knobs)
	w.truth.recs, _ = w.fam.(FamilyRecords)
	w.guard, _ = w.fam.(FamilyGuard)
	w.fam.Start(w)
	return w, nil
}

// maxWorkers is what a decision's worker mask holds.
const maxWorkers = 64

// CheckSettings is the one check of knob changes against an incident: each
// value parses and sits with the others (Params.Apply, applied to the
// incident's knobs), and each knob is one the incident reads (a
// *KnobScopeError otherwise). It returns the knobs with the changes made.
// NewWorld and ScheduleKnobs run it; a command line can run it first to
// name the bad setting before any work.
func CheckSettings(spec *Spec, settings []Setting) (Params, error) {
	p := spec.Params
	if err := p.Apply(settings); err != nil {
		return p, err
	}
	return p, CheckKnobsFor(spec, settings)
}

func checkSettings(spec *Spec, p Params, settings []Setting) error {
	if err := p.Apply(settings); err != nil {
		return err
	}
	return CheckKnobsFor(spec, settings)
}

func fill(n int) []Time {
	out := make([]Time, n)
	for i := range out {
		out[i] = -1
	}
	return out
}

// ScheduleKnobs queues knob changes for time at, ahead of every other step
// at that time (seq 0). A fork uses it at its moment; a headless --at run
// uses it at the start, which gives the same trace.
func (w *World) ScheduleKnobs(at Time, settings []Setting) error {
	if err := checkSettings(w.spec, w.Knobs, settings); err != nil {
		return err
	}
	if at < w.Now {
		at = w.Now
	}
	w.pending = append(w.pending, settings...)
	w.q.push(item{t: at, key: mkKey(0, opKnobs, true, 0)})
	return nil
}

// Step runs steps until one emits an event, and reports false when the run
// has settled (nothing but background steps remain) without emitting.
func (w *World) Step(sink Sink) bool {
	w.sink = sink
	for w.q.live > 0 || w.revive() {
		it := w.q.next()
		w.Now = it.t
		w.emitted = false
		w.run(it)
		if w.emitted {
			w.sink = nil
			return true
		}
	}
	w.sink = nil
	return false
}

// RunTo plays until the run settles or n events have been emitted (n < 0:
// no limit) and reports whether it settled. It is Step in a loop without
// the per-event call: the headless hot path.
func (w *World) RunTo(sink Sink, n int64) bool {
	w.sink = sink
	if hs, ok := sink.(*hashSink); ok && hs.next == nil {
		w.hash = hs // the hash alone: Emit writes to it directly
	}
	stop := w.Pos + n
	if n < 0 {
		stop = math.MaxInt64
	}
	for (w.q.live > 0 || w.revive()) && w.Pos < stop {
		it := w.q.next()
		w.Now = it.t
		if it.op() == opFamily {
			// nearly every step: the family's, called from here rather
			// than through run, a call less for each of 13 M steps
			w.fam.Step(w, FamilyStep{Op: it.fop(), Item: it.msg, Actor: it.who, Gen: it.delivery})
		} else {
			w.run(it)
		}
	}
	w.emitted = false
	w.sink, w.hash = nil, nil
	return w.Settled()
}

func (w *World) run(it *item) {
	switch it.op() {
	case opFamily:
		w.fam.Step(w, FamilyStep{Op: it.fop(), Item: it.msg, Actor: it.who, Gen: it.delivery})
	case opAgeCheck:
		w.watch.checkAge()
	case opOperator:
		w.watch.operate(int(it.who))
	case opKnobs:
		w.applyKnobs()
	case opAction:
		w.applyActions()
	case opAlert:
		w.watch.fire(int(it.who), it.delivery == 1)
	}
}

// bindKnobs hands family f the knobs in force, p (see KnobBinder).
func bindKnobs(f Family, p *Params) {
	if b, ok := f.(KnobBinder); ok {
		b.BindKnobs(p)
	}
}

func (w *World) applyKnobs() {
	if len(w.pending) == 0 {
		return
	}
	// validated when scheduled
	was := w.Knobs
	_ = w.Knobs.Apply(w.pending)
	bindKnobs(w.fam, &w.Knobs)
	fk, _ := w.fam.(FamilyKnobs)
	if fk != nil {
		fk.KnobsChanged(w, &was)
	}
	n := len(w.pending)
	w.applied = w.pending
	w.pending = nil
	w.Emit(EvKnob, -1, -1, 0, int64(n), 0)
	if fk != nil {
		fk.KnobsApplied(w)
	}
}

// revive is the settled-state rule: a run settles only when no message can
// move again, so when nothing live is left while the family has a
// stranded message, the family schedules the step that moves it. It
// reports whether the run goes on.
func (w *World) revive() bool {
	if w.guard == nil || !w.guard.Stranded(w) {
		return false
	}
	w.revived++ // a missing wake: tests assert it stays 0
	w.guard.Revive(w)
	return w.q.live > 0
}

// Emit records one event of a step. Exactly one event or none per step, so
// the world between any two events is a well-defined state to seek to and
// fork from.
func (w *World) Emit(k Kind, msg int32, wk int, delivery uint16, val, aux int64) {
	if s := w.hash; s != nil {
		// the headless run's hot path: no event to fill, no call
		var dk uint64
		if w.hasDec {
			// the decision's kind is all the hash takes of it, and
			// no sink reads it: its Pos is left unwritten
			w.hasDec = false
			dk = uint64(w.dec.Kind)
		}
		w.fingerprint(k, msg, wk, delivery, val, aux)
		w.Pos++
		w.Stats.LastEvent = w.Now
		s.put(w.Now, k, msg, wk, delivery, val, aux, dk)
		if w.recMask>>(k&63)&1 != 0 {
			e := &w.ev
			e.Pos, e.T, e.Kind, e.Msg, e.Worker, e.Delivery, e.Value, e.Aux, e.Dec = w.Pos-1, w.Now, k, msg, int16(wk), delivery, val, aux, -1
			w.rec.Event(w, e, nil)
		}
		return
	}
	// the event lives in the world so that handing it to the sink does not
	// allocate: a sink must copy what it keeps
	e := &w.ev
	e.Pos, e.T, e.Kind, e.Msg, e.Worker, e.Delivery, e.Value, e.Aux, e.Dec = w.Pos, w.Now, k, msg, int16(wk), delivery, val, aux, -1
	var d *Decision
	if w.hasDec {
		w.hasDec = false
		w.dec.Pos = w.Pos
		e.Dec = w.dec.Index
		d = &w.dec
	}
	w.fingerprint(k, msg, wk, delivery, val, aux)
	w.Pos++
	w.Stats.LastEvent = w.Now
	w.emitted = true
	if w.sink != nil {
		w.sink.Event(w, e, d)
	}
	if w.recMask>>(k&63)&1 != 0 {
		w.rec.Event(w, e, d)
	}
}

// redriven says whether message id lives again after a redrive: the
// incident's pins are about its first life.
func (w *World) redriven(id int32) bool {
	m, ok := w.truth.Msg(id)
	return ok && m.Redriven
}

// fingerprint adds an event at the world's clock to the running
// fingerprint. FNV-style: two multiplies an event keep it cheap.
func (w *World) fingerprint(k Kind, msg int32, wk int, delivery uint16, val, aux int64) {
	const prime = 0x100000001b3
	w.fp = (w.fp ^ (uint64(w.Now) ^ uint64(k)<<56 ^ uint64(uint32(msg))<<20 ^ uint64(uint16(wk))<<4 ^ uint64(delivery)<<40)) * prime
	w.fp = (w.fp ^ (uint64(val) ^ uint64(aux)<<32)) * prime
}

// DecideAmong records a decision and returns its value: the natural one,
// unless a fork's override or the incident's pin says otherwise. mask is
// the workers a choice among them may take (DecWorker); Decide is it
// without one.
func (w *World) DecideAmong(k DecisionKind, msg int32, wk int, delivery uint16, natural, lo, hi int64, mask uint64) int64 {
	if w.hash != nil && msg > w.pinTop && w.forcing.override == nil {
		// the headless run's hot path: nothing pins or overrides this
		// decision, and the hash takes only its kind (Emit)
		w.Decisions++
		w.dec.Kind, w.hasDec = k, true
		return natural
	}
	return w.decide(k, msg, wk, delivery, natural, lo, hi, mask)
}

// decide is DecideAmong in full: the decision recorded for the sinks, and
// the incident's pin or a fork's override applied.
func (w *World) decide(k DecisionKind, msg int32, wk int, delivery uint16, natural, lo, hi int64, mask uint64) int64 {
	d := &w.dec // filled in place: the hot path makes two decisions an event
	d.Index, d.T, d.Kind, d.Msg, d.Worker, d.Delivery = w.Decisions, w.Now, k, msg, int16(wk), delivery
	d.Value, d.Lo, d.Hi, d.Mask, d.Forced, d.Pos = natural, lo, hi, mask, false, 0
	w.Decisions++
	if msg <= w.pinTop && !w.redriven(msg) {
		plo, phi := lo, hi
		if g, ok := w.fam.(FamilyPinRange); ok {
			plo, phi = g.PinRange(k, lo, hi)
		}
		if v, ok := w.spec.pinned(k, msg, delivery, plo, phi, mask, &w.PinsGaveWay); ok {
			d.Value, d.Forced = v, true
		}
	}
	if o := w.forcing.override; o != nil && o.Index == d.Index {
		w.forcing.nextOverride()
		if overrideValid(k, o.Value, lo, hi, mask) {
			d.Value, d.Forced = o.Value, true
		}
	}
	w.hasDec = true
	return d.Value
}

// FamilyPinRange is a family whose knobs can make a decision's outcome
// impossible while a fork may still force it (cashback's crash_p 0: no
// crash is drawn, yet the explorer may force one): PinRange narrows
// [lo, hi] for pins only, so an incident's pin gives way there as a
// latency pin does outside the latency knobs.
type FamilyPinRange interface {
	PinRange(k DecisionKind, lo, hi int64) (int64, int64)
}

// pinned returns the incident's pin for this decision while its value lies
// inside what the knobs in force allow: a latency in [lo, hi], an idle
// worker on the pinned box, an outcome in [lo, hi]. Outside, the pin gives
// way to the natural draw (already taken from the decision's own stream, so
// nothing else reshuffles) and is added to gave (the world's PinsGaveWay).
func (s *Spec) pinned(k DecisionKind, msg int32, delivery uint16, lo, hi int64, mask uint64, gave *[]PinGaveWay) (int64, bool) {
	// a full slice expression: a clone sharing the backing array never sees it
	gaveWay := func(p Pin) { *gave = append((*gave)[:len(*gave):len(*gave)], pinGaveWay(s.Label, p, lo, hi)) }
	for p := range s.pinsFor(k, msg, delivery) {
		if k != DecWorker {
			if p.Value >= lo && p.Value <= hi {
				return p.Value, true
			}
			gaveWay(p)
			continue
		}
		for i := 0; i < s.Workers.count(); i++ {
			if _, box := s.Workers.name(i); mask&(1<<uint(i)) != 0 && box == p.Box {
				return int64(i), true
			}
		}
		gaveWay(p)
	}
	return 0, false
}

// PinGaveWay is one pin that did not hold: its value lay outside the
// range the knobs in force allow, so the decision was drawn instead.
type PinGaveWay struct {
	Message  int32        `json:"message"`
	Delivery int          `json:"delivery"`
	Kind     DecisionKind `json:"-"`
	Decision string       `json:"decision"`
	Pinned   string       `json:"pinned"` // "34s", "box B"
	Range    string       `json:"range"`  // "1s–2s", "no idle worker on box B"
	Line     string       `json:"line"`
}

// LatencyRange is implemented by a knob struct with latency knobs (the
// queue's latency_min and latency_max), for PinsGivingWay.
type LatencyRange interface{ Latency() (lo, hi Duration) }

// PinsGivingWay words the latency pins still ahead of w (their delivery
// not yet made) that knobs p would make give way: the fork form's warning
// before the branch is made. Other pins depend on the run's state, not
// on knobs alone, and are said by the run once it meets them.
func PinsGivingWay(spec *Spec, w *World, p Params) []PinGaveWay {
	var out []PinGaveWay
	lr, ok := p.Struct().(LatencyRange)
	if !ok {
		return nil // no latency knobs: a latency pin never gives way to them
	}
	lmin, lmax := lr.Latency()
	lo, hi := int64(lmin), int64(lmax)
	for _, pin := range spec.Pins {
		if pin.Kind != DecLatency || (pin.Value >= lo && pin.Value <= hi) {
			continue
		}
		if m, ok := w.Msg(pin.Message); ok {
			if m.Redriven || int(m.Receives) >= pin.Delivery {
				continue // delivered already: its call is made or under way
			}
		}
		out = append(out, pinGaveWay(spec.Label, pin, lo, hi))
	}
	return out
}

func pinGaveWay(label string, p Pin, lo, hi int64) PinGaveWay {
	g := PinGaveWay{Message: p.Message, Delivery: p.Delivery, Kind: p.Kind, Decision: p.Kind.String()}
	if label == "" {
		label = "message"
	}
	which := Ordinal(uint16(p.Delivery))
	if p.Delivery >= 1 && p.Delivery <= 3 {
		which = [...]string{"first", "second", "third"}[p.Delivery-1]
	}
	who := fmt.Sprintf("%s %d's %s", label, p.Message, which)
	switch p.Kind {
	case DecLatency:
		g.Pinned = FormatDuration(Duration(p.Value))
		g.Range = FormatDuration(Duration(lo)) + "–" + FormatDuration(Duration(hi))
		g.Line = fmt.Sprintf("pin gave way: %s call %s is outside latency %s; drawn instead", who, g.Pinned, g.Range)
	case DecWorker:
		g.Pinned = "box " + p.Box
		g.Range = "no idle worker on box " + p.Box
		g.Line = fmt.Sprintf("pin gave way: %s delivery to box %s found no idle worker there; drawn instead", who, p.Box)
	case DecCrash:
		g.Pinned = map[bool]string{true: "crashed", false: "did not crash"}[p.Value == 1]
		g.Range = fmt.Sprintf("%d–%d", lo, hi)
		g.Line = fmt.Sprintf("pin gave way: %s delivery %s, which the knobs in force rule out; drawn instead", who, g.Pinned)
	default:
		g.Pinned = fmt.Sprint(p.Value)
		g.Range = fmt.Sprintf("%d–%d", lo, hi)
		g.Line = fmt.Sprintf("pin gave way: %s %s %d is outside %s; drawn instead", who, g.Decision, p.Value, g.Range)
	}
	return g
}

// overrideValid says whether a fork may force v: an idle worker, a latency
// from 0 to a day (beyond the sampled range on purpose: "what if it took
// 29 s?"), or one of the listed outcomes.
func overrideValid(k DecisionKind, v, lo, hi int64, mask uint64) bool {
	switch k {
	case DecWorker:
		return v >= 0 && v < 64 && mask&(1<<uint(v)) != 0
	case DecLatency:
		return v >= 0 && v <= int64(24*Hour)
	}
	return v >= lo && v <= hi
}
