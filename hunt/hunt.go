// Package hunt searches an incident's decisions and faults for a run that
// breaks one of its properties: every single forced decision first, then
// pairs and deeper within a budget of branches, then seeded random
// schedules, each branch forked from a checkpoint of the line it leaves.
// The answer depends only on the options: branches are tried in a fixed
// order, in chunks that may run on every core, and a chunk's results are
// read in branch order, never in order of arrival.
package hunt

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"

	"inflight/engine"
)

// Options are one hunt.
type Options struct {
	Spec *engine.Spec
	Seed uint64
	Set  []engine.Setting // knob changes, from the start
	// Forks are the branch hunted: the forks from the incident's own line
	// to it (a share code's), each applied at its event as the explorer
	// does. From must not come before the last of them.
	Forks    []engine.CodeFork
	From     engine.Time // decisions before this moment are not forced
	Property *engine.Property
	Depth    int // the most decisions forced in one branch
	Budget   int // branches tried at most
	// Events, when positive, bounds the branches too: no more than
	// Events / the run's length (a branch plays at most about one run).
	// The explorer under a server passes the session's event budget.
	Events int64
	Faults bool // force crashes and wedged calls too
	All    bool // also the handler's and the broker's own decisions
	// Workers is how many goroutines play branches (0: GOMAXPROCS). It
	// changes how fast, never what is found.
	Workers int
	// Progress, when set, is called after every chunk of branches.
	Progress func(Progress)
	// Stop, when set, is asked before every chunk of branches: an error
	// ends the hunt, and Hunt returns it (the explorer's esc, a server's
	// wait for a work slot that was cancelled).
	Stop func() error
	// Cancel, when closed, ends the hunt at the next branch (the rest of
	// a chunk is skipped): Hunt returns ErrCancelled.
	Cancel <-chan struct{}
	// Account is the memory the hunt may take (nil: no bound): the base
	// line's checkpoints are spaced to fit it, the lines in play and the
	// frontier of a deep search are charged to it, and a hunt that would
	// pass it is refused once the base line is known, or stopped, with a
	// *engine.BudgetError. Everything charged is released when Hunt returns.
	Account *engine.Account
}

// ErrCancelled is Hunt's error when Options.Cancel was closed.
var ErrCancelled = errors.New("hunt cancelled")

// Progress is how far a hunt has got.
type Progress struct {
	Tried int // branches played
	Depth int // the depth being searched (0: random schedules)
	// Best is the branch so far that moved the figures a violation needs
	// most, in words ("+2 deliveries, +1 in the DLQ"); empty while none
	// moved them.
	Best string
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
	err      error         // Options.Stop's answer that ended the hunt
	mem      memory
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
}

// Hunt searches for a run that breaks o.Property.
func Hunt(o Options) (*Result, error) {
	if a := o.Account; a != nil {
		held := a.Held()
		defer func() { a.Release(a.Held() - held) }()
	}
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
	n1 := 0
	for _, d := range decs {
		n1 += len(d.alt)
	}
	if err := s.mem.nodes(n1); err != nil {
		return nil, err
	}
	for _, d := range decs {
		for _, v := range d.alt {
			level = append(level, node{from: d.cp, root: d.cp, force: []choice{d.choice(v)}})
		}
	}
	res.Depth = 1
	hit, outs, complete := s.try(level, 1)
	if s.err != nil {
		return nil, s.err
	}
	if hit >= 0 {
		return s.found(res, outs[hit])
	}
	s.mem.levelDone()
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
				if s.err != nil {
					return nil, s.err
				}
				space += len(kids)
				hit, kouts, done := s.try(kids, depth)
				s.mem.dropLine()
				if s.err != nil {
					return nil, s.err
				}
				if hit >= 0 {
					return s.found(res, kouts[hit])
				}
				if !done {
					complete = false
					break passes
				}
				if depth < o.Depth {
					if err := s.mem.nodes(len(kids)); err != nil {
						return nil, err
					}
					for _, k := range kids {
						next = append(next, k.rooted())
					}
					nextOuts = append(nextOuts, kouts...)
				}
			}
		}
		res.Exhausted, res.Space = complete, 0
		if complete {
			res.Space = space
		}
		s.mem.levelDone()
		level, outs = next, nextOuts
	}
	// random schedules until the budget is spent
	if s.tried < o.Budget && len(decs) > 0 {
		r, n := s.random(decs, res)
		if s.err != nil {
			return nil, s.err
		}
		if r != nil {
			return r, nil
		}
		res.Random = n
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
	s.mem.acct = o.Account
	w, err := engine.NewWorld(o.Spec, o.Seed, o.Set)
	if err != nil {
		return nil, err
	}
	s.base = w
	s.decWorld = w.Clone()
	if n := len(o.Forks); n > 0 && o.From < o.Forks[n-1].At {
		return nil, fmt.Errorf("a hunt on a branch starts at or after its last fork (%s), not %s", o.Forks[n-1].At.Short(), o.From.Short())
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
	passed := map[passKey]bool{}
	// a branch's choices come after its last fork: one at or before it
	// would fork an earlier line
	minPos := int64(-1)
	if n := len(s.o.Forks); n > 0 {
		minPos = s.o.Forks[n-1].Pos
	}
	w.Forcing().Observe(func(p engine.FaultPass) {
		passed[passKey{p.Pos, p.Msg}] = true
		if s.o.Faults && p.T >= s.o.From && p.Pos > minPos {
			decs = append(decs, faultDec(p))
		}
	})
	rec := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if s.facts && (e.Msg >= 0 || e.Kind == engine.EvRedrive) {
			s.log = append(s.log, logEvent{e.Pos, *e})
		}
		if d == nil || d.T < s.o.From || d.Pos <= minPos || s.faultsOwn(d, passed) {
			return
		}
		if alt := s.alternatives(d); len(alt) > 0 {
			decs = append(decs, dec{d: *d, alt: alt})
		}
	})
	k := 0
	for s.branchForks(w, &k) && w.Step(rec) {
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
	for i := range decs {
		for w.Pos < decs[i].d.Pos && s.branchForks(w, &k) && w.Step(nil) {
		}
		s.branchForks(w, &k)
		if n := len(s.cps); n == 0 || s.cps[n-1].pos != w.Pos {
			last := int64(-1)
			if n > 0 {
				last = s.cps[n-1].pos
			}
			if sp.take(w, last) {
				s.cps = append(s.cps, &start{w: w.Clone(), pos: w.Pos})
			}
		}
		if s.err = sp.err; s.err != nil {
			return nil
		}
		decs[i].cp = s.cps[len(s.cps)-1]
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

// passKey is where a fault point was passed: the event and the message.
type passKey struct {
	pos int64
	msg int32
}

// faultsOwn says whether d is the crash draw a fault point makes
// (cashback's crash between COMMIT and XACK, kafka-restart's): a yes/no
// decision at the step that passed the point. With faults on, forcing the
// fault is forcing it to crash, so only a crash the run drew itself is
// left to force the other way; with faults off, neither. A latency or a
// worker chosen at the same step is not the fault's.
func (s *searcher) faultsOwn(d *engine.Decision, passed map[passKey]bool) bool {
	crash := d.Kind == engine.DecCrash || d.Kind >= engine.FamilyDecision && d.Lo == 0 && d.Hi == 1
	return crash && passed[passKey{d.Pos, d.Msg}] && (!s.o.Faults || d.Value == 0 || d.Forced)
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

// Thresholds is implemented by a family's knob struct whose knobs put
// edges inside a latency's range (the queue's visibility timeout and claim
// window): a latency just either side of one is worth trying.
type Thresholds interface{ Thresholds() []engine.Duration }

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
		var ths []engine.Duration
		if t, ok := s.base.Knobs.Struct().(Thresholds); ok {
			ths = t.Thresholds()
		}
		for _, th := range ths {
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
		if s.err = s.stop(); s.err != nil {
			return -1, outs, false
		}
		keep := depth < s.o.Depth
		s.parallel(end-at, func(i int) {
			if !s.cancelled() {
				outs[at+i] = s.play(nodes[at+i], keep)
			}
		})
		if s.cancelled() {
			s.err = ErrCancelled
			return -1, outs, false
		}
		if keep { // the outcomes are kept for the next depth
			if s.err = s.mem.keep(outs[at:end], depth+1 == s.o.Depth); s.err != nil {
				return -1, outs, false
			}
		}
		for i := at; i < end; i++ {
			if outs[i].ok && len(outs[i].broken) > 0 {
				s.tried += i - at + 1
				return i, outs, false
			}
			if outs[i].ok {
				s.nearer(&outs[i])
			}
		}
		s.tried += end - at
		if s.o.Progress != nil {
			s.o.Progress(Progress{Tried: s.tried, Depth: depth, Best: s.bestDiff})
		}
	}
	return -1, outs, true
}

// cancelled reports whether Options.Cancel is closed.
func (s *searcher) cancelled() bool {
	select {
	case <-s.o.Cancel:
		return true
	default:
		return false
	}
}

// stop asks Options.Stop whether to go on.
func (s *searcher) stop() error {
	if s.cancelled() {
		return ErrCancelled
	}
	if s.o.Stop == nil {
		return nil
	}
	return s.o.Stop()
}

// nearer keeps o as the best so far when it moved the figures more than
// any branch before it.
func (s *searcher) nearer(o *outcome) {
	sc := s.score(o)
	if sc <= s.best {
		return
	}
	s.best = sc
	a, b := &o.sum, &s.baseSum
	var parts []string
	for _, f := range []struct {
		d    int64
		name string
	}{
		{a.DuplicateEffects - b.DuplicateEffects, "duplicates"},
		{a.Lost - b.Lost, "lost"},
		{a.DLQ - b.DLQ, "in the DLQ"},
		{a.Deliveries - b.Deliveries, "deliveries"},
		{a.Effects - b.Effects, "effects"},
		{a.HeldAtEnd - b.HeldAtEnd, "held at the end"},
	} {
		if f.d != 0 {
			parts = append(parts, fmt.Sprintf("%+d %s", f.d, f.name))
		}
	}
	s.bestDiff = strings.Join(parts, ", ")
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

// random plays seeded random schedules until the budget is spent: a
// random forcible decision of the base line, then up to Depth of them,
// each drawn from the line the one before made.
func (s *searcher) random(decs []dec, res *Result) (*Result, int) {
	r := rand.New(rand.NewPCG(s.o.Seed, 0x68756e74)) // "hunt"
	n, looked := 0, 0
	for s.tried < s.o.Budget {
		if s.cancelled() {
			s.err = ErrCancelled
			return nil, n
		}
		d := decs[r.IntN(len(decs))]
		nd := node{from: d.cp, root: d.cp, force: []choice{d.choice(d.alt[r.IntN(len(d.alt))])}}
		want := 1 + r.IntN(max(1, s.o.Depth+1))
		var o outcome
		for {
			o = s.play(nd, len(nd.force) < want)
			s.tried++
			n++
			if o.ok && len(o.broken) > 0 {
				res.Random = n
				r, _ := s.found(res, o)
				return r, n
			}
			if len(nd.force) >= want || len(o.decs) == 0 || s.tried >= s.o.Budget {
				break
			}
			c := o.decs[r.IntN(len(o.decs))]
			nd.force = append(nd.force, c.choice(c.alt[r.IntN(len(c.alt))]))
		}
		if n-looked >= chunk {
			looked = n
			if s.o.Progress != nil {
				s.o.Progress(Progress{Tried: s.tried, Best: s.bestDiff})
			}
			if s.err = s.stop(); s.err != nil {
				return nil, n
			}
		}
	}
	return nil, n
}
