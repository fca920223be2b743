// Package hunt searches an incident's decisions and faults for a run that
// breaks one of its properties: every single forced decision first, then
// pairs and deeper within a budget of branches, then seeded random
// schedules, each branch forked from a checkpoint of the line it leaves.
// The answer depends only on the options: branches are tried in a fixed
// order, in chunks that may run on every core, and a chunk's results are
// read in branch order, never in order of arrival.
package hunt

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"inflight/engine"
)

// Options are one hunt.
type Options struct {
	Spec     *engine.Spec
	Seed     uint64
	Set      []engine.Setting // knob changes, from the start
	From     engine.Time      // decisions before this moment are not forced
	Property *engine.Property
	Depth    int  // the most decisions forced in one branch
	Budget   int  // branches tried at most
	Faults   bool // force crashes and wedged calls too
	All      bool // also the handler's and the broker's own decisions
	// Workers is how many goroutines play branches (0: GOMAXPROCS). It
	// changes how fast, never what is found.
	Workers int
	// Progress, when set, is called after every chunk of branches.
	Progress func(Progress)
}

// Progress is how far a hunt has got.
type Progress struct {
	Tried int // branches played
	Depth int // the depth being searched (0: random schedules)
}

// Forced is one decision or fault a counterexample forces, in the
// lesson's words.
type Forced struct {
	Index    int64       `json:"index"`
	Pos      int64       `json:"event"`
	At       engine.Time `json:"-"`
	Clock    string      `json:"at"`
	Kind     string      `json:"kind"`
	Msg      int32       `json:"message"`
	Delivery uint16      `json:"delivery"`
	Value    int64       `json:"value"`
	Words    string      `json:"words"` // the decision as the timeline says it, with the forced value
	// Fault is the forced fault; nil for a decision (and Index is -1 for
	// a fault, which is named by where it strikes, not by an index).
	Fault     *engine.Fault `json:"-"`
	FaultCode string        `json:"fault,omitempty"` // as share codes write it: "after_claim:14.1"
}

// Result is what a hunt found, or that it found nothing.
type Result struct {
	Property  string   `json:"property"`
	Words     string   `json:"words"`
	Found     bool     `json:"found"`
	Unforced  bool     `json:"unforced"` // the run as it stands breaks it: nothing was searched
	Broken    []Broken `json:"broken,omitempty"`
	Forced    []Forced `json:"forced,omitempty"`
	Code      string   `json:"code,omitempty"`
	Tried     int      `json:"branches"`
	Depth     int      `json:"depth"`     // the deepest depth searched
	Space     int      `json:"space"`     // branches at Depth, when known (exhausted)
	Exhausted bool     `json:"exhausted"` // every branch at Depth was tried
	Random    int      `json:"random"`    // random schedules tried
}

// choice forces decision idx of a line to val, or, with fault set, a
// fault the line passes.
type choice struct {
	idx, val int64
	fault    *engine.Fault
}

// dec is a decision a line made, or a fault point it passed (fault set),
// that a branch may force.
type dec struct {
	d     engine.Decision // for a fault: Pos, T and Msg only
	fault *engine.Fault
	cp    *start // the checkpoint before it (base line only)
	alt   []int64
}

func (d *dec) choice(v int64) choice {
	if d.fault != nil {
		return choice{fault: d.fault}
	}
	return choice{idx: d.d.Index, val: v}
}

// node is a branch: a checkpoint of the line it leaves, the decisions
// forced before it, and those it forces from there, in index order.
type node struct {
	from   *start
	prefix []Forced
	force  []choice
	score  int64
}

// start is a checkpoint: a world never stepped, only cloned, and the
// facts at it (nil on the base line: read off its log).
type start struct {
	w     *engine.World
	pos   int64
	facts *facts
}

type searcher struct {
	o        Options
	base     *engine.World // the start, never stepped
	cps      []*start      // before each forcible decision of the base line
	decs     []dec         // the base line's forcible decisions and fault points
	mu       sync.Mutex    // cloning writes the world cloned
	log      []logEvent    // the base line's message events, for facts at a checkpoint
	facts    bool
	baseSum  engine.Summary
	baseEnd  engine.Time
	maxEv    int64
	tried    int
	workers  int
	decWorld *engine.World // for DecisionText and DecisionChoices
}

type logEvent struct {
	pos int64
	e   engine.Event
}

// outcome is what one branch gave.
type outcome struct {
	broken []Broken
	sum    engine.Summary
	forced []Forced // the forced decisions as they were made
	ok     bool     // every forced decision was made as planned
	decs   []dec    // the line's forcible decisions after its last forced one (when asked)
}

// Hunt searches for a run that breaks o.Property.
func Hunt(o Options) (*Result, error) {
	s, err := newSearcher(o)
	if err != nil {
		return nil, err
	}
	o = s.o
	decs := s.decs
	res := &Result{Property: o.Property.Name, Words: o.Property.Words}
	if b := verdict(s.decWorld, o.Property, &s.baseSum, s.baseFacts()); len(b) > 0 {
		res.Found, res.Unforced, res.Broken = true, true, b
		res.Code = s.code(nil)
		return res, nil
	}
	// depth 1: every forcible decision of the base line, every value
	var level []node
	for _, d := range decs {
		for _, v := range d.alt {
			level = append(level, node{from: d.cp, force: []choice{d.choice(v)}})
		}
	}
	res.Depth = 1
	hit, outs, complete := s.try(level, 1)
	if hit >= 0 {
		return s.found(res, level[hit], outs[hit])
	}
	res.Exhausted = complete
	if complete {
		res.Space = len(level)
	}
	for depth := 2; depth <= o.Depth && complete && s.tried < o.Budget; depth++ {
		// each parent's children fork from checkpoints of its own line,
		// parents that moved the figures most first
		order := s.byScore(level, outs)
		var next []node
		var nextOuts []outcome
		space := 0
		res.Depth = depth
		// first every parent's children on a message it already forces
		// (a second crash of the same order), then all the others
	passes:
		for _, same := range []bool{true, false} {
			for _, i := range order {
				kids := s.expand(level[i], &outs[i], same)
				space += len(kids)
				hit, kouts, done := s.try(kids, depth)
				if hit >= 0 {
					return s.found(res, kids[hit], kouts[hit])
				}
				if !done {
					complete = false
					break passes
				}
				if depth < o.Depth {
					next, nextOuts = append(next, kids...), append(nextOuts, kouts...)
				}
			}
		}
		res.Exhausted, res.Space = complete, 0
		if complete {
			res.Space = space
		}
		level, outs = next, nextOuts
	}
	// random schedules until the budget is spent
	if s.tried < o.Budget && len(decs) > 0 {
		if r, n := s.random(decs, res); r != nil {
			return r, nil
		} else {
			res.Random = n
		}
	}
	res.Tried = s.tried
	return res, nil
}

// newSearcher starts a hunt: the base line played once, its checkpoints
// kept.
func newSearcher(o Options) (*searcher, error) {
	if o.Depth < 1 {
		o.Depth = 1
	}
	if o.Budget < 1 {
		o.Budget = 1
	}
	s := &searcher{o: o, facts: needsFacts(o.Property), workers: o.Workers}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	w, err := engine.NewWorld(o.Spec, o.Seed, o.Set)
	if err != nil {
		return nil, err
	}
	s.base = w
	s.decWorld = w.Clone()
	s.decs = s.walkBase()
	if o.From > 0 && o.From > s.baseEnd {
		return nil, fmt.Errorf("--at %s is after the run ends (%s): there is nothing left to force", o.From.Short(), s.baseEnd.Short())
	}
	return s, nil
}

// walkBase plays the base line once, keeping a checkpoint before every
// forcible decision and the message events facts are read from.
func (s *searcher) walkBase() []dec {
	// first the decisions, then a second pass stopping before each one
	// to keep a checkpoint: a clone before every event would cost more
	w := s.base.Clone()
	var decs []dec
	passed := map[[2]int64]bool{} // a fault point's (event, message): its crash decision is that fault
	if s.o.Faults {
		w.ObserveFaults(func(p engine.FaultPass) {
			if p.T >= s.o.From {
				decs = append(decs, faultDec(p))
				passed[[2]int64{p.Pos, int64(p.Msg)}] = true
			}
		})
	}
	rec := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if s.facts && (e.Msg >= 0 || e.Kind == engine.EvRedrive) {
			s.log = append(s.log, logEvent{e.Pos, *e})
		}
		if d == nil || d.T < s.o.From || passed[[2]int64{d.Pos, int64(d.Msg)}] && d.Value == 0 {
			return
		}
		if alt := s.alternatives(d); len(alt) > 0 {
			decs = append(decs, dec{d: *d, alt: alt})
		}
	})
	for w.Step(rec) {
	}
	s.baseSum = w.Summarize("")
	s.baseEnd = w.Stats.LastEvent
	s.maxEv = 4*w.Pos + 100_000
	w = s.base.Clone()
	for i := range decs {
		for w.Pos < decs[i].d.Pos && w.Step(nil) {
		}
		s.cps = append(s.cps, &start{w: w.Clone(), pos: w.Pos})
		decs[i].cp = s.cps[len(s.cps)-1]
	}
	return decs
}

// faultDec is a fault point passed, as a choice a branch may force.
func faultDec(p engine.FaultPass) dec {
	f := p.Fault
	return dec{d: engine.Decision{Pos: p.Pos, T: p.T, Msg: p.Msg, Delivery: p.Delivery, Worker: p.Actor}, fault: &f, alt: []int64{1}}
}

func (s *searcher) baseFacts() *facts {
	if !s.facts {
		return nil
	}
	return s.factsAt(1 << 62)
}

// factsAt is the base line's facts before event pos.
func (s *searcher) factsAt(pos int64) *facts {
	f := &facts{}
	for i := range s.log {
		if s.log[i].pos >= pos {
			break
		}
		f.event(&s.log[i].e)
	}
	return f
}

type sinkFunc func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFunc) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// forcible says whether a hunt may force decisions of kind k.
func (s *searcher) forcible(k engine.DecisionKind) bool {
	switch k {
	case engine.DecLatency, engine.DecWorker:
		return true
	case engine.DecCrash, engine.DecWedge:
		return s.o.Faults
	case engine.DecBranch, engine.DecLateAck:
		return s.o.All
	}
	return k >= engine.FamilyDecision
}

// alternatives are the values a branch may force d to, other than the
// one it took: a latency's ends, middle and the values just either side
// of each threshold the knobs define inside its range; every other
// decision's choices.
func (s *searcher) alternatives(d *engine.Decision) []int64 {
	if !s.forcible(d.Kind) {
		return nil
	}
	var vals []int64
	if d.Kind == engine.DecLatency {
		vals = []int64{d.Lo, (d.Lo + d.Hi) / 2, d.Hi}
		p := s.base.Knobs
		for _, th := range []engine.Duration{p.VisibilityTimeout, p.ClaimWindow} {
			t := int64(th)
			if t > d.Lo && t < d.Hi {
				vals = append(vals, t-1, t+1)
			}
		}
		sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	} else {
		vals, _ = s.decWorld.DecisionChoices(d)
	}
	var out []int64
	for i, v := range vals {
		if v != d.Value && (i == 0 || v != vals[i-1]) {
			out = append(out, v)
		}
	}
	return out
}

// chunk is how many branches are played between looks at their results:
// fixed, so that what is found never depends on the number of cores.
const chunk = 64

// try plays nodes in order until one breaks the property or the budget
// is spent. hit is the first breaking node's index (-1: none); complete
// says every node was played.
func (s *searcher) try(nodes []node, depth int) (hit int, outs []outcome, complete bool) {
	outs = make([]outcome, len(nodes))
	for at := 0; at < len(nodes); at += chunk {
		end := min(at+chunk, len(nodes), at+s.o.Budget-s.tried)
		if end <= at {
			return -1, outs, false
		}
		s.parallel(end-at, func(i int) { outs[at+i] = s.play(nodes[at+i], depth < s.o.Depth) })
		for i := at; i < end; i++ {
			if outs[i].ok && len(outs[i].broken) > 0 {
				s.tried += i - at + 1
				return i, outs, false
			}
		}
		s.tried += end - at
		if s.o.Progress != nil {
			s.o.Progress(Progress{Tried: s.tried, Depth: depth})
		}
	}
	return -1, outs, true
}

// parallel runs f(0..n-1) on the searcher's workers.
func (s *searcher) parallel(n int, f func(i int)) {
	if s.workers <= 1 || n == 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for k := 0; k < min(s.workers, n); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// line is a branch being played: its world, its facts, and the forced
// decisions and faults it still has to make.
type line struct {
	s      *searcher
	n      node
	w      *engine.World
	f      *facts
	decs   []choice // the forced decisions, in index order
	k      int      // decs made so far
	faults int      // forced faults not yet fired
	out    outcome
	record bool
}

// open forks n from its checkpoint, its forced faults and first forced
// decision armed.
func (s *searcher) open(n node, record bool) *line {
	s.mu.Lock()
	w := n.from.w.Clone()
	s.mu.Unlock()
	l := &line{s: s, n: n, w: w, record: record, out: outcome{ok: true}}
	if s.facts {
		if n.from.facts != nil {
			l.f = n.from.facts.clone()
		} else {
			l.f = s.factsAt(n.from.pos)
		}
	}
	l.out.forced = append(l.out.forced, n.prefix...)
	var faults []engine.Fault
	for _, c := range n.force {
		if c.fault != nil {
			faults = append(faults, *c.fault)
		} else {
			l.decs = append(l.decs, c)
		}
	}
	if err := w.ForceFaults(faults...); err != nil {
		l.out.ok = false
	}
	l.faults = len(faults)
	if len(faults) > 0 || (record && s.o.Faults) {
		w.ObserveFaults(l.fault)
	}
	if len(l.decs) > 0 {
		w.Override(engine.DecisionOverride{Index: l.decs[0].idx, Value: l.decs[0].val})
	}
	return l
}

// settled says every forced decision and fault has been made: what the
// line does from here is its own, and may be forced by a child.
func (l *line) settled() bool { return l.k == len(l.decs) && l.faults == 0 }

// fault watches the fault points the line passes: a forced one firing,
// or, once the line is settled, one a child may force.
func (l *line) fault(p engine.FaultPass) {
	switch {
	case p.Forced:
		l.faults--
		f := p.Fault
		l.out.forced = append(l.out.forced, Forced{Index: -1, Pos: p.Pos, At: p.T, Clock: p.T.Short(), Kind: "fault",
			Msg: p.Msg, Delivery: p.Delivery, Value: 1, Words: l.w.FaultWords(f, int(p.Actor)), Fault: &f, FaultCode: f.String()})
	case l.record && l.settled() && p.T >= l.s.o.From:
		l.out.decs = append(l.out.decs, faultDec(p))
	}
}

// Event is the line's sink: facts, and each forced decision checked as it
// is made and the next one armed.
func (l *line) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	if l.f != nil && (e.Msg >= 0 || e.Kind == engine.EvRedrive) {
		l.f.event(e)
	}
	if d == nil {
		return
	}
	switch {
	case l.k < len(l.decs) && d.Index == l.decs[l.k].idx:
		if !d.Forced || d.Value != l.decs[l.k].val {
			l.out.ok = false
		}
		l.out.forced = append(l.out.forced, l.s.forced(w, d))
		l.k++
		if l.k < len(l.decs) {
			w.Override(engine.DecisionOverride{Index: l.decs[l.k].idx, Value: l.decs[l.k].val})
		}
	case l.record && l.settled() && d.T >= l.s.o.From && !(d.Forced && d.Value == 1 && d.Kind == engine.DecCrash):
		if alt := l.s.alternatives(d); len(alt) > 0 {
			l.out.decs = append(l.out.decs, dec{d: *d, alt: alt})
		}
	}
}

// step plays one event; false at the end (or past the events cap).
func (l *line) step() bool { return l.w.Step(l) && l.w.Pos <= l.s.maxEv }

// play forks n from its checkpoint and plays it to the end; record keeps
// the forcible decisions made after its last forced one.
func (s *searcher) play(n node, record bool) outcome {
	l := s.open(n, record)
	for l.step() {
	}
	if !l.settled() {
		l.out.ok = false
	}
	l.out.sum = l.w.Summarize("")
	l.out.broken = verdict(l.w, s.o.Property, &l.out.sum, l.f)
	return l.out
}

// expand is p's children on a message p already forces (same) or on
// the others: one more forced decision or fault each, forked from a
// checkpoint of p's own line just before it.
func (s *searcher) expand(p node, o *outcome, same bool) []node {
	if !o.ok || len(o.decs) == 0 {
		return nil
	}
	msgs := map[int32]bool{}
	for _, f := range o.forced {
		msgs[f.Msg] = true
	}
	var which []int
	for i := range o.decs {
		if msgs[o.decs[i].d.Msg] == same {
			which = append(which, i)
		}
	}
	if len(which) == 0 {
		return nil
	}
	l := s.open(p, false)
	var kids []node
	var prev *start
	for _, i := range which {
		d := &o.decs[i]
		for l.w.Pos < d.d.Pos && l.step() {
		}
		st := prev
		if st == nil || st.pos != l.w.Pos {
			st = &start{w: l.w.Clone(), pos: l.w.Pos}
			if l.f != nil {
				st.facts = l.f.clone()
			}
			prev = st
		}
		for _, v := range d.alt {
			kids = append(kids, node{from: st, prefix: o.forced, force: []choice{d.choice(v)}})
		}
	}
	return kids
}

func (s *searcher) forced(w *engine.World, d *engine.Decision) Forced {
	return Forced{Index: d.Index, Pos: d.Pos, At: d.T, Clock: d.T.Short(), Kind: d.Kind.String(),
		Msg: d.Msg, Delivery: d.Delivery, Value: d.Value, Words: w.DecisionText(d)}
}

// score is how near a branch came to breaking the property: how far it
// moved the figures a violation needs (deliveries, dead letters,
// duplicates, losses) from the base line's. Deeper search starts from the
// branches that moved them most.
func (s *searcher) score(o *outcome) int64 {
	a, b := &o.sum, &s.baseSum
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	return abs(a.Deliveries-b.Deliveries) + 4*abs(a.DLQ-b.DLQ) + 4*abs(a.DuplicateEffects-b.DuplicateEffects) +
		4*abs(a.Lost-b.Lost) + abs(a.Effects-b.Effects) + abs(a.HeldAtEnd-b.HeldAtEnd)
}

// byScore orders a level's nodes for expansion: those whose run moved
// the figures most first, ties in branch order.
func (s *searcher) byScore(level []node, outs []outcome) []int {
	order := make([]int, len(level))
	for i := range order {
		order[i] = i
		level[i].score = s.score(&outs[i])
	}
	sort.SliceStable(order, func(a, b int) bool { return level[order[a]].score > level[order[b]].score })
	return order
}

// found shrinks a counterexample to the fewest forced decisions that
// still break the property, then moves it to the earliest message it
// breaks the property on, and words it.
func (s *searcher) found(res *Result, n node, o outcome) (*Result, error) {
	o = s.shrink(o)
	o = s.earliest(o)
	res.Found = true
	res.Broken = o.broken
	res.Forced = o.forced
	res.Tried = s.tried
	res.Code = s.code(o.forced)
	return res, nil
}

// shrink drops forced decisions one at a time while what remains still
// breaks the property.
func (s *searcher) shrink(o outcome) outcome {
	for len(o.forced) > 1 {
		better := false
		for drop := range o.forced {
			keep := append(append([]Forced(nil), o.forced[:drop]...), o.forced[drop+1:]...)
			if mo, ok := s.breaks(keep); ok {
				o, better = mo, true
				break
			}
		}
		if !better {
			break
		}
	}
	return o
}

// earliest tries what o forces, all on one message, on each earlier
// message in turn (the same faults and decisions, the same deliveries),
// within the budget: the first that breaks the property is the earliest
// moment it can be broken that way.
func (s *searcher) earliest(o outcome) outcome {
	m := o.forced[0].Msg
	for _, f := range o.forced {
		if f.Msg != m {
			return o
		}
	}
	for e := int32(0); e < m && s.tried < s.o.Budget; e++ {
		moved := make([]Forced, len(o.forced))
		for i, f := range o.forced {
			moved[i] = f
			moved[i].Msg = e
			if f.Fault != nil {
				ft := *f.Fault
				ft.Msg = e
				moved[i].Fault = &ft
			}
		}
		if mo, ok := s.breaks(moved); ok {
			return mo
		}
	}
	return o
}

// breaks plays the branch forcing items and says whether it breaks the
// property, each forced as planned.
func (s *searcher) breaks(items []Forced) (outcome, bool) {
	n, ok := s.rebuild(items)
	if !ok {
		return outcome{}, false
	}
	out := s.play(n, false)
	s.tried++
	return out, out.ok && len(out.broken) > 0
}

// rebuild is the branch forcing items, in the order they happen, forked
// from the base line's checkpoint before the first: a fault is named by
// where it strikes; a decision is found again, in the line forced so
// far, by what it decides about (kind, message, delivery).
func (s *searcher) rebuild(items []Forced) (node, bool) {
	var n node
	for i := range s.decs {
		if sameChoice(&s.decs[i], items[0]) {
			n = node{from: s.decs[i].cp, force: []choice{forcedChoice(items[0])}}
			if items[0].Fault == nil {
				n.force[0].idx = s.decs[i].d.Index
			}
			break
		}
	}
	if n.from == nil {
		return n, false
	}
	for _, f := range items[1:] {
		if f.Fault != nil {
			n.force = append(n.force, forcedChoice(f))
			continue
		}
		out := s.play(n, true)
		idx := int64(-1)
		for i := range out.decs {
			if sameChoice(&out.decs[i], f) {
				idx = out.decs[i].d.Index
				break
			}
		}
		if idx < 0 {
			return n, false
		}
		n.force = append(n.force, choice{idx: idx, val: f.Value})
	}
	return n, true
}

func sameChoice(d *dec, f Forced) bool {
	if f.Fault != nil {
		return d.fault != nil && *d.fault == *f.Fault
	}
	return d.fault == nil && d.d.Kind.String() == f.Kind && d.d.Msg == f.Msg && d.d.Delivery == f.Delivery
}

func forcedChoice(f Forced) choice {
	if f.Fault != nil {
		return choice{fault: f.Fault}
	}
	return choice{idx: f.Index, val: f.Value}
}

// code is the share code of the branch forcing fs, made as the explorer
// makes it: a fork per forced decision, each of the one before.
func (s *searcher) code(fs []Forced) string {
	x, err := engine.NewExplorer(s.o.Spec, s.o.Seed, s.o.Set)
	if err != nil {
		return ""
	}
	for i, f := range fs {
		x.Goto(f.Pos)
		name := ""
		if i == len(fs)-1 {
			name = s.o.Property.Name
		}
		fo := engine.ForkOptions{Name: name, Pos: f.Pos, At: f.At}
		if f.Fault != nil {
			fo.Faults = []engine.Fault{*f.Fault}
		} else {
			fo.Override = &engine.DecisionOverride{Index: f.Index, Value: f.Value}
		}
		if _, err := x.Fork(fo); err != nil {
			return ""
		}
	}
	return x.Code().String()
}

// random plays seeded random schedules until the budget is spent: a
// random forcible decision of the base line, then up to Depth of them,
// each drawn from the line the one before made.
func (s *searcher) random(decs []dec, res *Result) (*Result, int) {
	r := rand.New(rand.NewPCG(s.o.Seed, 0x68756e74)) // "hunt"
	n := 0
	for s.tried < s.o.Budget {
		d := decs[r.IntN(len(decs))]
		nd := node{from: d.cp, force: []choice{d.choice(d.alt[r.IntN(len(d.alt))])}}
		want := 1 + r.IntN(max(1, s.o.Depth+1))
		var o outcome
		for {
			o = s.play(nd, len(nd.force) < want)
			s.tried++
			n++
			if o.ok && len(o.broken) > 0 {
				res.Random = n
				r, _ := s.found(res, nd, o)
				return r, n
			}
			if len(nd.force) >= want || len(o.decs) == 0 || s.tried >= s.o.Budget {
				break
			}
			c := o.decs[r.IntN(len(o.decs))]
			nd.force = append(nd.force, c.choice(c.alt[r.IntN(len(c.alt))]))
		}
		if s.o.Progress != nil && n%chunk == 0 {
			s.o.Progress(Progress{Tried: s.tried})
		}
	}
	return nil, n
}

// String words a forced decision for a report line.
func (f Forced) String() string { return fmt.Sprintf("%s  %s", f.Clock, f.Words) }
