package hunt

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"inflight/engine"
)

// choice forces decision idx of a line to val, or, with fault set, a
// fault the line passes.
type choice struct {
	idx, val int64
	fault    *engine.Fault
	act      *engine.Action // an operator action taken before event pos
	pos      int64
}

// dec is a decision a line made, or a fault point it passed (point set),
// that a branch may force. It keeps only what a branch reads of the
// decision: a recorded line keeps one for each of its decisions until the
// next depth, and an engine.Decision whole made them 120 bytes, not 56.
type dec struct {
	index    int64 // the decision's index in its line (not for a fault)
	pos      int64 // the event that carries it, or the fault's
	msg      int32
	delivery uint16
	kind     engine.DecisionKind // 0 for a fault
	// point is a fault point's index in the family's points, plus one (0:
	// a decision): a byte in the padding, where a *engine.Fault cost a
	// pointer and 24 bytes carved for it, a fifth of a frontier's bytes
	point uint8
	cp    *start // the checkpoint before it (base line only)
	alt   []int64
}

// decOf keeps what a branch reads of decision d, with its alternatives.
func decOf(d *engine.Decision, alt []int64) dec {
	return dec{index: d.Index, pos: d.Pos, msg: d.Msg, delivery: d.Delivery, kind: d.Kind, alt: alt}
}

func (d *dec) choice(v int64, points []engine.FaultPoint) choice {
	if d.point != 0 {
		return choice{fault: d.fault(points)}
	}
	return choice{idx: d.index, val: v}
}

// fault is the fault a fault point's d names (points: the family's).
func (d *dec) fault(points []engine.FaultPoint) *engine.Fault {
	return &engine.Fault{Point: points[d.point-1].Name, Msg: d.msg, Delivery: d.delivery}
}

// node is a branch: a checkpoint of the line it leaves, the decisions
// forced before it, and those it forces from there, in index order.
type node struct {
	from   *start
	root   *start // the base line's checkpoint its first forced choice is played from
	prefix []Forced
	force  []choice
	score  int64
}

// rooted is n played from the base line's checkpoint, every choice
// forced from there: the same branch (a decision is forced by its index,
// a fault by where it strikes), holding no checkpoint of a line of its
// own, for a frontier kept until the next depth.
func (n node) rooted() node {
	if n.from == n.root {
		return n
	}
	force := make([]choice, 0, len(n.prefix)+len(n.force))
	for _, f := range n.prefix {
		force = append(force, forcedChoice(f))
	}
	return node{from: n.root, root: n.root, force: append(force, n.force...), score: n.score}
}

// start is a checkpoint: a world never stepped, only cloned, and the
// facts at it (nil on the base line: read off its log).
type start struct {
	w     *engine.World
	pos   int64
	facts *facts
	// redriven: the line redrove its DLQ between the branch's fork and here
	redriven bool
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
	baseLen  int64 // the base line's events
	maxEv    int64
	tried    int
	best     int64  // the highest score a branch has had
	bestDiff string // its figures, in words
	workers  int
	decWorld *engine.World // for DecisionText and DecisionChoices
	// thresholds: the base knobs' (Thresholds), read once: alternatives
	// runs for every decision a recorded line makes
	thresholds []engine.Duration
	points     []engine.FaultPoint // the family's, which a dec's point indexes
	err        error               // Options.Stop's answer that ended the hunt
	mem        memory
	// judge, on a branch, judges only what happens from its last fork on
	// (nil: the whole run); baseRedriven: the base line redrove its DLQ
	// after the fork
	judge    *judge
	redrives []int64         // the base line's redrives from the fork on
	acts     []engine.Action // the actions a branch may take (Options.Actions)
	actKids  []node          // depth 1's: each action at each of the base line's decisions
	actErr   error           // the budget's refusal of more of them
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
	// dropped: decs were asked for and dropped, to be found again by
	// playing the branch once more when it is expanded
	dropped bool
	// sameOnly: decs keeps only the decisions on messages the branch
	// forces (see reach); end is where the last one recorded was
	sameOnly bool
	end      int64
}

// last is where the line's last recorded decision was.
func (o *outcome) last() int64 {
	if o.sameOnly {
		return o.end
	}
	return o.decs[len(o.decs)-1].pos
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
	s.mem.acct = o.Account
	w, err := engine.NewWorld(o.Spec, o.Seed, o.Set)
	if err != nil {
		return nil, err
	}
	s.base = w
	s.decWorld = w.Clone()
	s.points = w.Forcing().Points()
	if len(o.Actions) > 0 {
		if s.acts, err = actionCandidates(w, o.Actions); err != nil {
			return nil, err
		}
	}
	if t, ok := w.Knobs.Struct().(Thresholds); ok {
		s.thresholds = t.Thresholds()
	}
	if n := len(o.Forks); n > 0 && o.From < o.Forks[n-1].At {
		return nil, fmt.Errorf("a hunt on a branch starts at or after its last fork (%s), not %s", o.Forks[n-1].At.Short(), o.From.Short())
	}
	if n := len(o.Forks); n > 0 {
		s.judge = newJudge(o.Property, o.Forks[n-1].Pos, o.Forks[n-1].At)
	}
	s.decs = s.walkBase()
	if s.err != nil {
		return nil, s.err
	}
	s.workers = min(s.workers, s.mem.lines)
	if o.Events > 0 {
		s.o.Budget = int(max(1, min(int64(s.o.Budget), o.Events/max(s.baseLen, 1))))
	}
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
	passed := &passes{pos: -1}
	// a branch's choices come after its last fork: one at or before it
	// would fork an earlier line
	minPos := int64(-1)
	if n := len(s.o.Forks); n > 0 {
		minPos = s.o.Forks[n-1].Pos
	}
	w.Forcing().Observe(func(p engine.FaultPass) {
		passed.add(p.Pos, p.Msg)
		if s.o.Faults && p.T >= s.o.From && p.Pos > minPos {
			decs = append(decs, s.faultDec(p))
		}
	})
	rec := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if s.facts && (e.Msg >= 0 || e.Kind == engine.EvRedrive) {
			s.log = append(s.log, logEvent{e.Pos, *e})
		}
		if e.Kind == engine.EvRedrive && s.judge != nil && e.Pos >= s.judge.from {
			s.redrives = append(s.redrives, e.Pos)
		}
		if d == nil || d.T < s.o.From || d.Pos <= minPos || s.faultsOwn(d, passed) {
			return
		}
		if alt := s.alternatives(d); len(alt) > 0 {
			decs = append(decs, decOf(d, alt))
		}
	})
	k := 0
	for s.branchForks(w, &k) && s.atFork(w) && w.Step(rec) {
		if w.Pos&memLook == 0 {
			if s.err = s.mem.walking(w, len(s.log), decs); s.err != nil {
				return nil
			}
		}
	}
	s.mem.lineBytes = max(s.mem.lineBytes, w.Footprint())
	if s.err = s.mem.plan(w.Pos, len(s.log), decs); s.err != nil {
		return nil
	}
	s.baseSum = w.Summarize("")
	s.baseEnd = w.Stats.LastEvent
	s.baseLen = w.Pos
	s.maxEv = 4*w.Pos + 100_000
	w = s.base.Clone()
	k = 0
	sp := s.mem.spacing(&s.mem.base, s.baseLen)
	at := int64(-1) // the last decision's moment
	for i := range decs {
		for w.Pos < decs[i].pos && s.branchForks(w, &k) && w.Step(nil) {
		}
		s.branchForks(w, &k)
		if n := len(s.cps); n == 0 || s.cps[n-1].pos != w.Pos {
			last := int64(-1)
			if n > 0 {
				last = s.cps[n-1].pos
			}
			if sp.take(w, last) {
				s.cps = append(s.cps, &start{w: w.Clone(), pos: w.Pos, redriven: s.redrivenBefore(w.Pos)})
			}
		}
		if s.err = sp.err; s.err != nil {
			return nil
		}
		decs[i].cp = s.cps[len(s.cps)-1]
		if w.Pos != at && s.actErr == nil {
			at = w.Pos
			// charged as they are made, so that past the budget no more
			// are; Hunt reports the error after the base line's verdict
			kids := s.actionKids(w, w.Pos, decs[i].cp, decs[i].cp, nil)
			if s.actErr = s.mem.nodes(len(kids)); s.actErr == nil {
				s.actKids = append(s.actKids, kids...)
			}
		}
	}
	return decs
}

// branchForks applies the hunted branch's forks due at w's event (from
// the k-th on), as a share code's replay does; false if one cannot be.
func (s *searcher) branchForks(w *engine.World, k *int) bool {
	for ; *k < len(s.o.Forks) && s.o.Forks[*k].Pos <= w.Pos; *k++ {
		if err := w.Forcing().Fork(s.o.Forks[*k]); err != nil {
			s.err = err
			return false
		}
	}
	return true
}

// redrivenBefore says whether the base line redrove its DLQ after the
// fork and before event pos.
func (s *searcher) redrivenBefore(pos int64) bool {
	return len(s.redrives) > 0 && s.redrives[0] < pos
}

// atFork keeps the line's summary at the fork, for judging from it on.
func (s *searcher) atFork(w *engine.World) bool {
	if j := s.judge; j != nil && w.Pos == j.from && j.flat == nil {
		j.sum = w.Summarize("")
		j.flat = j.sum.Flat()
	}
	return true
}

// passes are the fault points passed at the latest event position that
// passed one: the messages they were passed for. faultsOwn asks only of
// the decision the event being emitted made, and a point is passed before
// its step's event, so no earlier position is ever asked about (a map of
// every pass had been a branch's largest allocation).
type passes struct {
	pos  int64
	msgs []int32
}

func (p *passes) add(pos int64, msg int32) {
	if pos != p.pos {
		p.pos, p.msgs = pos, p.msgs[:0]
	}
	p.msgs = append(p.msgs, msg)
}

func (p *passes) has(pos int64, msg int32) bool {
	return pos == p.pos && slices.Contains(p.msgs, msg)
}

// faultsOwn says whether d is the crash draw a fault point makes
// (cashback's crash between COMMIT and XACK, kafka-restart's): a yes/no
// decision at the step that passed the point. With faults on, forcing the
// fault is forcing it to crash, so only a crash the run drew itself is
// left to force the other way; with faults off, neither. A latency or a
// worker chosen at the same step is not the fault's.
func (s *searcher) faultsOwn(d *engine.Decision, passed *passes) bool {
	crash := d.Kind == engine.DecCrash || d.Kind >= engine.FamilyDecision && d.Lo == 0 && d.Hi == 1
	return crash && passed.has(d.Pos, d.Msg) && (!s.o.Faults || d.Value == 0 || d.Forced)
}

// faultDec is a fault point passed, as a choice a branch may force.
func (s *searcher) faultDec(p engine.FaultPass) dec {
	d := dec{pos: p.Pos, msg: p.Msg, delivery: p.Delivery, alt: faultAlt}
	for i := range s.points {
		if s.points[i].Name == p.Point {
			d.point = uint8(i + 1)
			break
		}
	}
	if d.point == 0 {
		panic(fmt.Sprintf("hunt: fault point %q is not its family's", p.Point))
	}
	return d
}

// faultAlt is every fault point's one alternative, shared: alt is only read.
var faultAlt = []int64{1}

func (s *searcher) baseFacts() *facts {
	if !s.facts {
		return nil
	}
	return s.factsAt(1 << 62)
}

// factsAt is the base line's facts before event pos.
func (s *searcher) factsAt(pos int64) *facts {
	f := &facts{j: s.judge}
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

// Thresholds is implemented by a family's knob struct whose knobs put
// edges inside a latency's range (the queue's visibility timeout and claim
// window): a latency just either side of one is worth trying.
type Thresholds interface{ Thresholds() []engine.Duration }

// alternatives are the values a branch may force d to, other than the
// one it took: a latency's ends, middle and the values just either side
// of each threshold the knobs define inside its range; every other
// decision's choices.
func (s *searcher) alternatives(d *engine.Decision) []int64 { return s.alternativesIn(d, nil) }

// alternativesIn is alternatives carved from b (nil: allocated alone).
func (s *searcher) alternativesIn(d *engine.Decision, b *slab) []int64 {
	if !s.forcible(d.Kind) {
		return nil
	}
	var buf [16]int64 // a latency's or a worker's values: no allocation
	vals := buf[:0]
	if d.Kind == engine.DecLatency {
		vals = append(vals, d.Lo, (d.Lo+d.Hi)/2, d.Hi)
		for _, th := range s.thresholds {
			t := int64(th)
			if t > d.Lo && t < d.Hi {
				vals = append(vals, t-1, t+1)
			}
		}
		slices.Sort(vals)
	} else if d.Kind == engine.DecWorker {
		// DecisionChoices' values without its labels: the idle workers
		ws := &s.base.Spec().Workers
		for i := 0; i < len(ws.Boxes)*ws.PerBox; i++ {
			if d.Mask&(1<<uint(i)) != 0 {
				vals = append(vals, int64(i))
			}
		}
	} else {
		vals, _ = s.decWorld.DecisionChoices(d)
	}
	n := 0
	for i, v := range vals {
		if v != d.Value && (i == 0 || v != vals[i-1]) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := b.int64s(n)
	for i, v := range vals {
		if v != d.Value && (i == 0 || v != vals[i-1]) {
			out = append(out, v)
		}
	}
	return out
}

// slab hands out a line's small slices a block at a time. Each piece is
// capped (a full slice expression), so appending to one never writes
// into the next.
type slab struct {
	ints []int64
}

// int64s is an empty slice with room for n; a nil slab allocates it alone.
func (b *slab) int64s(n int) []int64 {
	if b == nil {
		return make([]int64, 0, n)
	}
	if cap(b.ints)-len(b.ints) < n {
		b.ints = make([]int64, 0, max(512, n))
	}
	k := len(b.ints)
	b.ints = b.ints[:k+n]
	return b.ints[k : k : k+n]
}
