package engine

import (
	"encoding"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Explorer is an explorable run: a tree of branches of one incident, each
// seekable and forkable, and a cursor on one of them. It keeps checkpoints,
// not history: seeking restores the nearest checkpoint and replays at most
// Every events; events for the timeline are regenerated the same way.
// An Explorer is not safe for concurrent use; each session owns its own.
type Explorer struct {
	Spec     *Spec
	Seed     uint64
	Set      []Setting // applied from the start, on every branch
	Every    int64     // events between checkpoints
	branches []*Branch
	cur      *Branch
	k        *walker // the cursor's line and world
	w        *World  // the state at the cursor (k.w)
	nextID   int

	acct  Account // its limits (zero: unbounded), pool and checkpoint memory held
	meter *Meter  // set while Run runs
	epm   int64   // events per message from a probe, 0 until needed
}

// Branch is one line of history: its parent's events up to ForkPos, then
// its own, from knob changes and/or a forced decision at that moment.
type Branch struct {
	ID       int
	Name     string
	Parent   *Branch
	ForkPos  int64
	ForkAt   Time
	Changes  []Setting
	Override *DecisionOverride
	Faults   []Fault // forced from the fork on

	cps []checkpoint // own checkpoints, ascending pos; cps[0] is the fork point
	// cpMu serialises clones of the checkpoints, which an explorer and its
	// Clone (a job off the UI goroutine) share: World.Clone writes the
	// world it copies (a fresh owner, so that its own writes copy too).
	cpMu     *sync.Mutex
	frontier *World
	hash     *hashSink // hashing the frontier's events, nil until first extension
	done     bool
	series   Series
}

type checkpoint struct {
	pos    int64
	w      *World
	hstate []byte // the trace hash's state at pos, when known
	hlast  Time
}

// Sample is one point of the chart: the counts after event Pos.
type Sample struct {
	Pos      int64
	T        Time
	Queue    int32
	InFlight int32
	DLQ      int32
	Effects  int64
}

// Series is a branch's chart data, decimated to at most maxSamples points.
// Each point holds the highest values its stretch of events reached, not
// only the state at its first event, so that the chart's peaks are the
// run's whatever the decimation.
type Series struct {
	Samples []Sample
	stride  int64
}

const maxSamples = 4096

// raise lifts s's values to at least o's.
func (s *Sample) raise(o Sample) {
	s.Queue, s.InFlight = max(s.Queue, o.Queue), max(s.InFlight, o.InFlight)
	s.DLQ, s.Effects = max(s.DLQ, o.DLQ), max(s.Effects, o.Effects)
}

func (s *Series) add(w *World) {
	if s.stride == 0 {
		s.stride = 1
	}
	waiting, taken := w.fam.Counts(w)
	now := Sample{w.Pos, w.Now, int32(waiting), int32(taken), int32(w.DLQLen()), w.Stats.Effects}
	if n := len(s.Samples); n > 0 && w.Pos-s.Samples[n-1].Pos < s.stride {
		s.Samples[n-1].raise(now)
		return
	}
	s.Samples = append(s.Samples, now)
	if len(s.Samples) >= maxSamples {
		j := 0
		for i := 0; i < len(s.Samples); i += 2 {
			s.Samples[j] = s.Samples[i]
			if i+1 < len(s.Samples) {
				s.Samples[j].raise(s.Samples[i+1])
			}
			j++
		}
		s.Samples = s.Samples[:j]
		s.stride *= 2
	}
}

// NewExplorer starts an explorable run on the main branch, cursor at 0.
func NewExplorer(spec *Spec, seed uint64, set []Setting) (*Explorer, error) {
	w, err := NewWorld(spec, seed, set)
	if err != nil {
		return nil, err
	}
	x := &Explorer{Spec: spec, Seed: seed, Set: set, Every: 16384}
	b := &Branch{ID: 0, Name: "main", frontier: w.Clone(), hash: newHashSink(nil), cpMu: new(sync.Mutex)}
	b.cps = []checkpoint{{pos: 0, w: w.Clone(), hstate: marshalHash(b.hash), hlast: 0}}
	x.branches = []*Branch{b}
	x.cur = b
	x.k = &walker{path: []*Branch{b}, w: w, x: x}
	x.w = w
	x.nextID = 1
	return x, nil
}

func marshalHash(h *hashSink) []byte {
	h.flush()
	st, err := h.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err) // sha256 always marshals
	}
	return st
}

func restoreHash(st []byte, last Time) *hashSink {
	h := newHashSink(nil)
	if err := h.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic(err)
	}
	h.last = last
	return h
}

// World is the state at the cursor. Callers must not change it.
func (x *Explorer) World() *World { return x.w }

// Pos is the cursor: the number of events behind it.
func (x *Explorer) Pos() int64 { return x.w.Pos }

// Branch is the branch under the cursor.
func (x *Explorer) Branch() *Branch { return x.cur }

// Branches lists every branch in creation order.
func (x *Explorer) Branches() []*Branch { return x.branches }

// Path lists the branch and its ancestors, root first.
func (b *Branch) Path() []*Branch {
	var out []*Branch
	for c := b; c != nil; c = c.Parent {
		out = append([]*Branch{c}, out...)
	}
	return out
}

// Done reports whether the branch has been played to its end.
func (b *Branch) Done() bool { return b.done }

// Len is the number of events known on the branch so far (all of them once
// Done).
func (b *Branch) Len() int64 { return b.frontier.Pos }

// Series is the branch's chart data so far, its parent's part included.
func (b *Branch) Series() []Sample { return b.series.Samples }

// extend plays the branch's frontier forward until it reaches pos (or
// settles), checkpointing every Every events.
func (x *Explorer) extend(b *Branch, pos int64) {
	if b.done || b.frontier.Pos >= pos {
		return
	}
	if b.hash == nil {
		b.hash = x.hashAt(b, b.ForkPos)
	}
	sink := &frontierSink{hash: b.hash, series: &b.series}
	f := b.frontier
	for f.Pos < pos {
		x.tick()
		if bu := x.acct.Limits; x.meter != nil && bu.Events > 0 && f.Pos >= bu.Events {
			panic(abort{&BudgetError{What: "events", Need: f.Pos + 1, Limit: bu.Events, Raise: bu.EventsFlag, During: true}})
		}
		if !f.Step(sink) {
			b.done = true
			break
		}
		if f.Pos%x.Every == 0 {
			own := f.ownBytes()
			b.cps = append(b.cps, checkpoint{pos: f.Pos, w: f.Clone(), hstate: marshalHash(b.hash), hlast: b.hash.last})
			x.account(own)
		}
	}
}

type frontierSink struct {
	hash   *hashSink
	series *Series
}

func (s *frontierSink) Event(w *World, e *Event, d *Decision) {
	s.hash.Event(w, e, d)
	s.series.add(w)
}

// hashAt rebuilds the trace hash's state at pos on branch b.
func (x *Explorer) hashAt(b *Branch, pos int64) *hashSink {
	for pos < b.ForkPos || (b.Parent != nil && pos == b.ForkPos && b.cps[0].hstate == nil) {
		if pos == b.ForkPos && b.Parent == nil {
			break
		}
		b = b.Parent
	}
	cp := b.checkpointBefore(pos)
	var h *hashSink
	if cp.hstate == nil {
		// b's fork state, hashed by nobody yet: the line so far is the
		// parent's up to the fork point, not past it
		h = x.hashAt(b.Parent, b.ForkPos)
	} else {
		h = restoreHash(cp.hstate, cp.hlast)
	}
	w := b.clone(cp)
	for w.Pos < pos && w.Step(h) {
		x.tick()
	}
	return h
}

// clone copies checkpoint cp of b into a world of the caller's own.
func (b *Branch) clone(cp checkpoint) *World {
	b.cpMu.Lock()
	defer b.cpMu.Unlock()
	return cp.w.Clone()
}

func (b *Branch) checkpointBefore(pos int64) checkpoint {
	i := sort.Search(len(b.cps), func(i int) bool { return b.cps[i].pos > pos }) - 1
	if i < 0 {
		i = 0
	}
	return b.cps[i]
}

// walker replays a branch's line of history: its ancestors' events up to
// each fork point, then the forked state's own. A world stepped past a fork
// point would continue the parent's line, so the walker swaps in the
// child's fork state there.
type walker struct {
	path []*Branch
	seg  int
	w    *World
	x    *Explorer // metered through; nil: not metered
}

// walkerAt returns a walker whose private world is at pos on b (clipped to
// the branch's end).
func (x *Explorer) walkerAt(b *Branch, pos int64) *walker {
	path := b.Path()
	seg := owner(path, pos)
	own := path[seg]
	x.extend(own, pos)
	if pos > own.frontier.Pos {
		pos = own.frontier.Pos
	}
	cp := own.checkpointBefore(pos)
	k := &walker{path: path, seg: seg, w: own.clone(cp), x: x}
	for k.w.Pos < pos && k.w.Step(nil) {
		x.tick()
	}
	return k
}

func (k *walker) step(sink Sink) bool {
	// a loop: a fork of a fork may branch at the very same event
	for k.seg+1 < len(k.path) && k.w.Pos == k.path[k.seg+1].ForkPos {
		k.seg++
		k.w = k.path[k.seg].clone(k.path[k.seg].cps[0])
	}
	if k.x != nil {
		k.x.tick()
	}
	return k.w.Step(sink)
}

// owner is the segment of path whose state a world at pos belongs to: the
// deepest branch forked at or before pos.
func owner(path []*Branch, pos int64) int {
	seg := len(path) - 1
	for seg > 0 && pos < path[seg].ForkPos {
		seg--
	}
	return seg
}

func (x *Explorer) stateAt(b *Branch, pos int64) *World { return x.walkerAt(b, pos).w }

// WorldAt is a world of its own at event pos of branch b (clipped to the
// branch's end), played from the nearest checkpoint: the cheap start of a
// branch nobody needs to see, which a search forces faults and decisions
// on (World.Forcing) and plays to its end. Like every
// Explorer method it is for one goroutine at a time; the world it returns
// is independent of the explorer and may run on any goroutine. For many
// branches from one moment, take it once and Clone it for each: a clone
// costs a copy of the event queue, not a replay from a checkpoint. Clone
// writes the world it copies (see World.Clone), so goroutines sharing one
// take their clones under a lock, or each clones its own copy first.
func (x *Explorer) WorldAt(b *Branch, pos int64) *World { return x.stateAt(b, pos) }

// Goto moves the cursor to pos on the current branch. Seeking is a
// checkpoint restore plus a replay of at most Every events.
func (x *Explorer) Goto(pos int64) {
	if pos < 0 {
		pos = 0
	}
	cur := x.k.w.Pos
	switch {
	case pos == cur:
	case pos > cur && pos-cur <= x.Every:
		// short hops forward: keep stepping the cursor's own world, and
		// the frontier with it so that checkpoints exist to come back to
		for x.k.w.Pos < pos {
			x.extend(x.k.path[x.k.seg], x.k.w.Pos+1)
			if !x.k.step(nil) {
				break
			}
		}
	default:
		x.k = x.walkerAt(x.cur, pos)
	}
	x.w = x.k.w
}

// Step moves the cursor n events (negative: back).
func (x *Explorer) Step(n int64) { x.Goto(x.w.Pos + n) }

// End moves the cursor to the end of the branch, playing it out.
func (x *Explorer) End() {
	x.extend(x.cur, 1<<62)
	x.Goto(x.cur.frontier.Pos)
}

// AtEnd reports whether the cursor is at the branch's end.
func (x *Explorer) AtEnd() bool {
	x.extend(x.cur, x.w.Pos+1)
	return x.cur.done && x.w.Pos >= x.cur.frontier.Pos
}

// PosAtTime is the number of events that happen before t on branch b:
// seeking there shows the moment t, before anything at t has happened.
func (x *Explorer) PosAtTime(b *Branch, t Time) int64 {
	return x.search(b, func(et Time) bool { return et >= t })
}

// PosAfterTime is the number of events that happen at or before t.
func (x *Explorer) PosAfterTime(b *Branch, t Time) int64 {
	return x.search(b, func(et Time) bool { return et > t })
}

// search returns the pos of the first event on b whose time satisfies pred
// (monotone), or the branch's end. Checkpoints are ordered in time, so it
// starts from the last one whose previous event fails pred.
func (x *Explorer) search(b *Branch, pred func(Time) bool) int64 {
	from := int64(0)
	path := b.Path()
	for i, c := range path {
		if i+1 < len(path) {
			x.extend(c, path[i+1].ForkPos)
		} else {
			// the target may lie beyond what is known: play on until an
			// event satisfies pred or the branch ends
			for !c.done && !pred(c.frontier.Now) {
				x.extend(c, c.frontier.Pos+x.Every)
			}
		}
		for _, cp := range c.cps {
			if i+1 < len(path) && cp.pos > path[i+1].ForkPos {
				break
			}
			if cp.pos > 0 && !pred(cp.w.Now) {
				from = cp.pos
			}
		}
	}
	k := x.walkerAt(b, from)
	for {
		var hit int64 = -1
		ok := k.step(sinkFunc(func(_ *World, e *Event, _ *Decision) {
			if pred(e.T) {
				hit = e.Pos
			}
		}))
		if hit >= 0 {
			return hit
		}
		if !ok {
			return k.w.Pos
		}
	}
}

type sinkFunc func(*World, *Event, *Decision)

func (f sinkFunc) Event(w *World, e *Event, d *Decision) { f(w, e, d) }

// SeekTime moves the cursor to the moment t (nothing at t has happened).
func (x *Explorer) SeekTime(t Time) { x.Goto(x.PosAtTime(x.cur, t)) }

// SeekTimeEnd moves the cursor past everything that happens at t.
func (x *Explorer) SeekTimeEnd(t Time) { x.Goto(x.PosAfterTime(x.cur, t)) }

// SeekBookmark moves the cursor to a bookmark's moment: past everything
// at its clock or, when it names an event kind, just past the last event
// of that kind at its clock (past everything, if there is none).
func (x *Explorer) SeekBookmark(b Bookmark) {
	end := x.PosAfterTime(x.cur, b.At)
	if b.Event == "" {
		x.Goto(end)
		return
	}
	start := x.PosAtTime(x.cur, b.At)
	x.Goto(start)
	pos := int64(-1)
	for _, e := range x.Events(start, end) {
		if x.w.KindName(e.Event.Kind) == b.Event && (b.Msg < 0 || e.Event.Msg == b.Msg) {
			pos = e.Event.Pos + 1
		}
	}
	if pos < 0 {
		pos = end
	}
	x.Goto(pos)
}

// Entry is an event with its caption and decision, for timelines.
type Entry struct {
	Event    Event
	Decision *Decision
	Caption  string
	DecText  string
}

func entryOf(w *World, e *Event, d *Decision) Entry {
	en := Entry{Event: *e, Caption: w.Caption(e, d)}
	if d != nil {
		dc := *d
		en.Decision = &dc
		en.DecText = w.DecisionText(d)
	}
	return en
}

// Events regenerates events [from, to) on the current branch.
func (x *Explorer) Events(from, to int64) []Entry { return x.EventsOn(x.cur, from, to) }

// EventsOn regenerates events [from, to) on branch b.
func (x *Explorer) EventsOn(b *Branch, from, to int64) []Entry {
	if from < 0 {
		from = 0
	}
	if to <= from {
		return nil
	}
	k := x.walkerAt(b, from)
	var out []Entry
	sink := sinkFunc(func(w *World, e *Event, d *Decision) { out = append(out, entryOf(w, e, d)) })
	for k.w.Pos < to && k.step(sink) {
	}
	return out
}

// Last returns up to n events before the cursor that satisfy keep (nil:
// all), oldest first, searching back a checkpoint span at a time.
func (x *Explorer) Last(n int, keep func(*Entry) bool) []Entry {
	var out []Entry
	to := x.w.Pos
	for to > 0 && len(out) < n {
		from := max(0, to-x.Every)
		chunk := x.Events(from, to)
		var kept []Entry
		for i := range chunk {
			if keep == nil || keep(&chunk[i]) {
				kept = append(kept, chunk[i])
			}
		}
		out = append(kept, out...)
		to = from
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// Next returns up to n events after the cursor without moving it.
func (x *Explorer) Next(n int) []Entry { return x.Events(x.w.Pos, x.w.Pos+int64(n)) }

// NextWhere moves the cursor just past the next event satisfying keep and
// returns it; false (cursor unmoved) when there is none before the end.
func (x *Explorer) NextWhere(keep func(*Entry) bool) (Entry, bool) {
	k := x.walkerAt(x.cur, x.w.Pos)
	var hit *Entry
	sink := sinkFunc(func(w *World, e *Event, d *Decision) {
		if en := entryOf(w, e, d); keep(&en) {
			hit = &en
		}
	})
	for hit == nil {
		x.extend(k.path[k.seg], k.w.Pos+1)
		if !k.step(sink) {
			return Entry{}, false
		}
	}
	x.k, x.w = k, k.w
	return *hit, true
}

// PrevWhere moves the cursor just past the last event satisfying keep that
// lies before the cursor's latest event.
func (x *Explorer) PrevWhere(keep func(*Entry) bool) (Entry, bool) {
	to := x.w.Pos - 1
	for to > 0 {
		from := max(0, to-x.Every)
		chunk := x.Events(from, to)
		for i := len(chunk) - 1; i >= 0; i-- {
			if keep(&chunk[i]) {
				x.Goto(chunk[i].Event.Pos + 1)
				return chunk[i], true
			}
		}
		to = from
	}
	return Entry{}, false
}

// IsDecision keeps events that carry a decision.
func IsDecision(e *Entry) bool { return e.Decision != nil }

// NextDecision moves just past the next decision.
func (x *Explorer) NextDecision() (Entry, bool) { return x.NextWhere(IsDecision) }

// PrevDecision moves just past the previous decision.
func (x *Explorer) PrevDecision() (Entry, bool) { return x.PrevWhere(IsDecision) }

// ForkOptions say what a fork changes.
type ForkOptions struct {
	Name     string
	Pos      int64 // the branch point: the fork's state is the parent's at Pos
	At       Time  // when the knob changes apply (not before the state's clock)
	Set      []Setting
	Override *DecisionOverride
	Faults   []Fault // faults to force (Forcing.Faults)
}

// Fork makes a branch of the current one and moves the cursor onto it, at
// the fork point. It costs one clone of the state at Pos.
func (x *Explorer) Fork(o ForkOptions) (*Branch, error) {
	// The parent is the branch whose state the moment belongs to: on a
	// fork, a moment before its fork point belongs to an ancestor.
	k := x.k
	if o.Pos != x.w.Pos || owner(k.path, o.Pos) != k.seg {
		k = x.walkerAt(x.cur, o.Pos)
		if k.w.Pos != o.Pos {
			return nil, fmt.Errorf("fork at event %d: the branch ends at event %d", o.Pos, k.w.Pos)
		}
	}
	parent := k.path[k.seg]
	w := k.w.Clone()
	if err := w.Forcing().Faults(o.Faults...); err != nil {
		return nil, fmt.Errorf("fork at event %d: %w", o.Pos, err)
	}
	if w.Settled() && o.Override == nil {
		return nil, fmt.Errorf("fork at event %d: the run has ended there, so a change has nothing left to act on", o.Pos)
	}
	// the parent's line must be known (and hashed) up to the fork point
	for _, c := range parent.Path() {
		x.extend(c, o.Pos)
	}
	if len(o.Set) > 0 {
		if err := w.ScheduleKnobs(max(o.At, w.Now), o.Set); err != nil {
			return nil, err
		}
	}
	if o.Override != nil {
		if err := checkOverride(w, *o.Override); err != nil {
			return nil, fmt.Errorf("fork at event %d: %w", o.Pos, err)
		}
		w.Forcing().Override(*o.Override)
	}
	if err := x.budgetFits(w, x.eventsPerMessage(parent)); err != nil {
		return nil, err
	}
	name := o.Name
	switch {
	case name == "" && len(o.Faults) > 0:
		name = w.Forcing().Label(o.Set, o.Override, o.Faults, max(o.At, w.Now))
	case name == "":
		name = fmt.Sprintf("fork%d", x.nextID)
	}
	b := &Branch{ID: x.nextID, Name: name, Parent: parent, ForkPos: o.Pos, ForkAt: max(o.At, w.Now),
		Changes: append([]Setting(nil), o.Set...), Override: o.Override, Faults: slices.Clone(o.Faults), frontier: w.Clone(), cpMu: new(sync.Mutex)}
	b.cps = []checkpoint{{pos: o.Pos, w: w.Clone()}}
	for _, s := range parent.series.Samples {
		if s.Pos <= o.Pos {
			b.series.Samples = append(b.series.Samples, s)
		}
	}
	b.series.stride = parent.series.stride
	x.nextID++
	x.branches = append(x.branches, b)
	x.cur = b
	x.k = &walker{path: b.Path(), w: w, x: x}
	x.k.seg = len(x.k.path) - 1
	x.w = w
	return b, nil
}

// checkOverride makes sure a forced decision is the one made at the fork
// point (its index and kind) and that its value is one it could take.
func checkOverride(w *World, o DecisionOverride) error {
	p := w.Clone()
	var got *Decision
	for i := 0; i < 2 && got == nil; i++ { // a knob change may come first
		if !p.Step(sinkFunc(func(_ *World, _ *Event, d *Decision) {
			if d != nil {
				dc := *d
				got = &dc
			}
		})) {
			break
		}
	}
	switch {
	case got == nil:
		return fmt.Errorf("no decision is made here to force")
	case got.Index != o.Index:
		return fmt.Errorf("the decision made here is %d, not %d", got.Index, o.Index)
	case !overrideValid(got.Kind, o.Value, got.Lo, got.Hi, got.Mask):
		return fmt.Errorf("%d is not a value the %s decision can take", o.Value, got.Kind)
	}
	return nil
}

// Switch moves the cursor to branch b at the same position (clipped).
func (x *Explorer) Switch(b *Branch) {
	pos := x.w.Pos
	x.cur = b
	x.k = x.walkerAt(b, pos)
	x.w = x.k.w
}

// Summary plays branch b to its end and summarises it.
func (x *Explorer) Summary(b *Branch) Summary {
	x.extend(b, 1<<62)
	if b.hash == nil { // a fork that settled at once
		b.hash = x.hashAt(b, b.ForkPos)
	}
	h := restoreHash(marshalHash(b.hash), b.hash.last)
	return b.frontier.Summarize(h.sum())
}

// Divergence is the first event where two branches differ.
type Divergence struct {
	Pos  int64
	A, B *Entry // nil where that branch has already ended
}

// Compare finds where branches a and b first differ. Both are replayed from
// the point their histories part, so the cost is the distance from there.
func (x *Explorer) Compare(a, b *Branch) (Divergence, bool) {
	pa, pb := a.Path(), b.Path()
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	start := int64(1 << 62)
	if i < len(pa) {
		start = pa[i].ForkPos
	}
	if i < len(pb) {
		start = min(start, pb[i].ForkPos)
	}
	if start == 1<<62 {
		return Divergence{}, false // the same branch
	}
	ka, kb := x.walkerAt(a, start), x.walkerAt(b, start)
	for {
		ea, oka := next(ka)
		eb, okb := next(kb)
		if !oka && !okb {
			return Divergence{}, false
		}
		if oka != okb || ea.Event != eb.Event {
			d := Divergence{Pos: max(ka.w.Pos, kb.w.Pos) - 1}
			if oka {
				d.A = &ea
				d.Pos = ea.Event.Pos
			}
			if okb {
				d.B = &eb
				d.Pos = eb.Event.Pos
			}
			return d, true
		}
	}
}

// CompareOptions say how CompareFrom reads two branches.
type CompareOptions struct {
	From  int64                 // the event both are read from
	Limit int64                 // events read on each at most; past it, no answer
	Same  func(a, b Event) bool // whether two events count as the same
}

// CompareFrom reads a and b on from o.From, fork markers passed over, to
// the first pair of events o.Same calls different (or one branch's end).
// ok is false when none differ before both ends or o.Limit.
func (x *Explorer) CompareFrom(a, b *Branch, o CompareOptions) (d Divergence, ok bool) {
	ka, kb := x.walkerAt(a, o.From), x.walkerAt(b, o.From)
	read := func(k *walker) (Entry, bool) {
		var en Entry
		got := false
		sink := sinkFunc(func(w *World, e *Event, d *Decision) {
			if e.Kind != EvKnob {
				en, got = entryOf(w, e, d), true
			}
		})
		for !got {
			if !k.step(sink) {
				return Entry{}, false
			}
		}
		return en, true
	}
	for n := int64(0); n < o.Limit; n++ {
		ea, oka := read(ka)
		eb, okb := read(kb)
		if !oka && !okb {
			return Divergence{}, false
		}
		if oka && okb && o.Same(ea.Event, eb.Event) {
			continue
		}
		d := Divergence{Pos: o.From}
		if oka {
			d.A, d.Pos = &ea, ea.Event.Pos
		}
		if okb {
			d.B = &eb
			if !oka {
				d.Pos = eb.Event.Pos
			}
		}
		return d, true
	}
	return Divergence{}, false
}

func next(k *walker) (Entry, bool) {
	var en Entry
	got := false
	ok := k.step(sinkFunc(func(w *World, e *Event, d *Decision) {
		en = entryOf(w, e, d)
		got = true
	}))
	return en, ok && got
}

// WriteTrace writes branch b's whole trace as JSON lines, as `run --trace`
// does, replaying it from the start.
func (x *Explorer) WriteTrace(b *Branch, out io.Writer) error {
	tr := newTraceOut(out)
	k := x.walkerAt(b, 0)
	for k.step(tr.sink) && tr.sink.err == nil {
	}
	return tr.flush()
}

// --- budgets, metering and cancelling ---

// Limits bound one explorer: the events a branch may run to and the
// memory its checkpoints may hold. Zero fields are unbounded. The flags
// name the way to raise each, for the refusal line. (A headless run's
// event budget is Budget; the explorer refuses a branch before playing
// it, so it has limits of its own.)
type Limits struct {
	Events     int64
	Bytes      int64
	EventsFlag string // e.g. "--max-events"
	BytesFlag  string // e.g. "--max-memory-mb"
}

// Pool is memory shared by many explorers, a workshop server's sessions:
// every checkpoint is charged to it, and a fork that would take it past
// Bytes is refused, whatever its own explorer's budget says. Whoever drops
// an explorer gives its Bytes back with Release.
type Pool struct {
	Bytes int64
	Flag  string // how the host raises it
	used  atomic.Int64
}

// Used is the memory every explorer drawing on the pool holds.
func (p *Pool) Used() int64 { return p.used.Load() }

// Release gives back n bytes, when an explorer holding them is dropped.
func (p *Pool) Release(n int64) { p.used.Add(-n) }

// BudgetError is a fork, code or move refused because it would pass a
// budget. Its message is one line saying which budget and how to raise it.
type BudgetError struct {
	What   string // "events", "memory" or "server memory"
	Need   int64  // the estimate (or the point reached, During)
	Limit  int64
	Raise  string // the flag that raises it
	During bool   // found while playing, not estimated up front
	Of     string // the work refused: "" for an explorer's branch, "the hunt", "the run"
}

func (e *BudgetError) Error() string {
	raise := ""
	if e.Raise != "" {
		raise = " (raise with " + e.Raise + ")"
	}
	if e.Of != "" {
		return e.workError(raise)
	}
	switch {
	case e.What == "server memory":
		return fmt.Sprintf("refused: the server's memory for all sessions (%s) is in use; try again in a while%s", Bytes(e.Limit), raise)
	case e.What == "memory" && e.During:
		return fmt.Sprintf("stopped: this branch passed the explorer's memory budget of %s%s", Bytes(e.Limit), raise)
	case e.What == "memory":
		return fmt.Sprintf("refused: this branch needs ~%s of memory, over the explorer's budget of %s%s", Bytes(e.Need), Bytes(e.Limit), raise)
	case e.During:
		return fmt.Sprintf("stopped: this branch passed the explorer's budget of %s events%s", Count(e.Limit), raise)
	}
	return fmt.Sprintf("refused: this branch needs ~%s events, over the explorer's budget of %s%s", Count(e.Need), Count(e.Limit), raise)
}

// workError words a refusal of work other than an explorer's branch.
func (e *BudgetError) workError(raise string) string {
	switch {
	case e.What == "server memory":
		return fmt.Sprintf("refused: the server's memory for all sessions (%s) is in use by others, so %s cannot go on; try again in a while%s", Bytes(e.Limit), e.Of, raise)
	case e.What == "memory" && e.During:
		return fmt.Sprintf("stopped: %s passed its memory budget of %s%s", e.Of, Bytes(e.Limit), raise)
	case e.What == "memory":
		return fmt.Sprintf("refused: %s needs ~%s of memory, over its budget of %s%s", e.Of, Bytes(e.Need), Bytes(e.Limit), raise)
	case e.During:
		return fmt.Sprintf("stopped: %s passed its budget of %s events%s", e.Of, Count(e.Limit), raise)
	}
	return fmt.Sprintf("refused: %s needs ~%s events, over its budget of %s%s", e.Of, Count(e.Need), Count(e.Limit), raise)
}

// ErrCancelled is the error of work stopped by Meter.Cancel.
var ErrCancelled = errors.New("cancelled")

// Count is n for people: 1406, 372k, 50M.
func Count(n int64) string {
	switch {
	case n < 100_000:
		return fmt.Sprint(n)
	case n < 10_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n < 1_000_000_000:
		return fmt.Sprintf("%dM", (n+500_000)/1_000_000)
	}
	return fmt.Sprintf("%.1fG", float64(n)/1e9)
}

// Bytes is a memory size for people: 512 MB, 1.5 GB.
func Bytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	if n < 1<<19 { // "0 MB" says nothing
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%d MB", (n+1<<19)>>20)
}

// Meter watches work an explorer does under Run: the events it has played
// so far, read from any goroutine, and a cancel flag the work checks every
// few hundred events.
type Meter struct {
	// Pace, when set, is called from the working goroutine every few
	// hundred events: its chance to wait for a turn or to stop the work
	// (with the error it returns).
	Pace func() error
	// Memory, when set, is the account work that plays a world of its
	// own (the chart's pass) draws on: it stops, with the account's
	// *BudgetError, when the world's footprint would pass it.
	Memory *Account

	n     int64 // events played, owned by the working goroutine
	done  atomic.Int64
	total atomic.Int64
	stop  atomic.Bool
	once  sync.Once
	quit  chan struct{}
}

// NewMeter returns a meter with nothing done.
func NewMeter() *Meter { return &Meter{quit: make(chan struct{})} }

// Done is the number of events played so far (updated every few hundred).
func (m *Meter) Done() int64 { return m.done.Load() }

// Total is the expected number of events, 0 when unknown.
func (m *Meter) Total() int64 { return m.total.Load() }

// SetTotal sets the expected number of events.
func (m *Meter) SetTotal(n int64) { m.total.Store(n) }

// Cancel asks the work to stop; Run then returns ErrCancelled.
func (m *Meter) Cancel() {
	m.stop.Store(true)
	m.once.Do(func() { close(m.quit) })
}

// Cancelled is closed once Cancel has been called.
func (m *Meter) Cancelled() <-chan struct{} { return m.quit }

// abort carries an error out of the engine's loops to Run.
type abort struct{ err error }

const tickMask = 255

// tick counts one event of metered work and, every tickMask+1 events,
// publishes the count and checks for a cancel.
func (x *Explorer) tick() {
	if x.meter != nil {
		x.meter.tick()
	}
}

func (m *Meter) tick() {
	m.n++
	if m.n&tickMask != 0 {
		return
	}
	m.done.Store(m.n)
	if m.stop.Load() {
		panic(abort{ErrCancelled})
	}
	if m.Pace != nil {
		if err := m.Pace(); err != nil {
			panic(abort{err})
		}
	}
}

// Run does f under meter m (nil: a meter of its own) and the explorer's
// budget and pool: f's engine work stops with a *BudgetError when a branch
// passes the budget, or ErrCancelled when m is cancelled. Outside Run no
// budget is enforced. On an error the explorer is still consistent (every
// event boundary is), but the move f was making may be half done; callers
// that want all or nothing run f on a Clone.
func (x *Explorer) Run(m *Meter, f func()) (err error) {
	if m == nil {
		m = NewMeter()
	}
	prev := x.meter
	x.meter = m
	defer func() {
		x.meter = prev
		m.done.Store(m.n)
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			err = a.err
		}
	}()
	f()
	return nil
}

// Limit sets the explorer's budget and the pool it draws on (nil: none).
func (x *Explorer) Limit(b Limits, p *Pool) { x.acct.Limits, x.acct.Pool = b, p }

// Limits are the explorer's limits.
func (x *Explorer) Limits() Limits { return x.acct.Limits }

// Pool is the pool the explorer draws on (nil: none).
func (x *Explorer) Pool() *Pool { return x.acct.Pool }

// Bytes is the checkpoint memory the explorer holds, as estimated.
func (x *Explorer) Bytes() int64 { return x.acct.held }

// account adds a new checkpoint's memory and, under Run, refuses to go on
// past the budget or the pool.
func (x *Explorer) account(n int64) {
	if x.meter == nil {
		x.acct.held += n // outside Run nothing is enforced, but all is counted
		if x.acct.Pool != nil {
			x.acct.Pool.used.Add(n)
		}
		return
	}
	if err := x.acct.Charge(n); err != nil {
		panic(abort{err})
	}
}

// ownBytes estimates what a checkpoint of w costs on top of the others:
// its leaf tables, the leaves written since the last clone (the ones w
// owns), and its private slices. A family's own state is not counted.
func (w *World) ownBytes() int64 { return w.tableBytes() + w.truth.leafBytes() }

// Clone is an independent copy of the explorer, for work done on another
// goroutine and swapped in when it completes: its own branches, frontiers,
// hashes and cursor. Checkpoints are shared; they are only ever cloned,
// and World.Clone writes the source's owner token, so the original must
// not be used for engine work while the copy is worked on.
func (x *Explorer) Clone() *Explorer {
	c := *x
	c.meter = nil
	c.branches = make([]*Branch, len(x.branches))
	of := make(map[*Branch]*Branch, len(x.branches))
	for i, b := range x.branches { // creation order: parents first
		nb := *b
		nb.Parent = of[b.Parent]
		nb.cps = append([]checkpoint(nil), b.cps...)
		nb.frontier = b.frontier.Clone()
		if b.hash != nil {
			nb.hash = restoreHash(marshalHash(b.hash), b.hash.last)
		}
		nb.series.Samples = append([]Sample(nil), b.series.Samples...)
		c.branches[i], of[b] = &nb, &nb
	}
	c.cur = of[x.cur]
	c.k = &walker{path: c.cur.Path(), seg: x.k.seg, w: x.k.w.Clone(), x: &c}
	c.w = c.k.w
	return &c
}

// messagesOf is how many messages w's line will publish: its sources'
// counts under its knobs, a fork's pending changes included.
func messagesOf(w *World) int64 {
	p := w.Knobs
	if len(w.pending) > 0 {
		_ = p.Apply(w.pending) // checked when they were scheduled
	}
	n := int64(0)
	for i := range w.spec.Sources {
		n += int64(w.spec.Sources[i].CountUnder(&p))
	}
	return n
}

// eventsPerMessage is the incident's measured cost of a message: from the
// whole main branch once it is known, else from what b has played so far,
// else from a bounded probe of the main branch's start.
func (x *Explorer) eventsPerMessage(b *Branch) int64 {
	root := x.branches[0]
	ratio := func(w *World) int64 {
		if n := int64(w.Published()); n > 0 && w.Pos > 0 {
			return max(1, (w.Pos+n/2)/n)
		}
		return 0
	}
	if root.done {
		return ratio(root.frontier)
	}
	if r := ratio(b.frontier); r > 0 && b.frontier.Pos >= probeEvents {
		return r
	}
	if x.epm == 0 {
		w := root.clone(root.cps[0])
		for w.Pos < probeEvents && w.Step(nil) {
		}
		x.epm = max(1, ratio(w))
		if w.Published() == 0 {
			x.epm = 16
		}
	}
	return x.epm
}

// probeEvents bounds the play that measures a message's cost up front.
const probeEvents = 65536

// estimate is the expected length and checkpoint memory of the line w
// is on: its messages times epm events, a checkpoint every Every events,
// each with leaf tables that grow with the messages published.
func (x *Explorer) estimate(w *World, epm int64) (events, bytes int64) {
	msgs := messagesOf(w)
	events = max(w.Pos, msgs*epm)
	cps := events / x.Every
	const ptr = int64(unsafe.Sizeof(uintptr(0)))
	perCP := int64(unsafe.Sizeof(*w)) + 64<<10 // private leaves and slices, typically
	bytes = x.acct.held + cps*(msgs/leafSize*ptr/2+perCP)
	return events, bytes
}

// budgetFits refuses, up front, a line (from world w) that would pass the
// explorer's budget or the pool.
func (x *Explorer) budgetFits(w *World, epm int64) error {
	a := &x.acct
	if a.Events <= 0 && a.Bytes <= 0 && a.Pool == nil {
		return nil
	}
	events, bytes := x.estimate(w, epm)
	return a.Fits(events, bytes-a.held)
}

// CheckBudget refuses the branch under the cursor if it would pass the
// budget: for an explorer opened with knobs set from the start.
func (x *Explorer) CheckBudget() error {
	return x.budgetFits(x.cur.frontier, x.eventsPerMessage(x.cur))
}

// EstimateLen is the expected number of events on branch b: exact once
// it has been played to its end.
func (x *Explorer) EstimateLen(b *Branch) int64 {
	if b.done {
		return b.frontier.Pos
	}
	n, _ := x.estimate(b.frontier, x.eventsPerMessage(b))
	return n
}

// --- the whole-run chart ---

// ChartStart is the state a chart pass of branch b starts from: its fork
// point (the start, for the main branch). Like every use of checkpoints it
// must not run while a clone of the explorer is being worked on.
func (x *Explorer) ChartStart(b *Branch) *World { return b.clone(b.cps[0]) }

// ChartRun plays w to its end headless (no checkpoints, no hash: the
// memory of one world) and returns its chart samples, in at most
// maxSamples points. It stops at limit events (0: none) with a
// *BudgetError, or when m is cancelled; publish, when set, gets a copy of
// the samples so far every few thousand events, for a chart that fills in.
// The samples are those a branch's own series would hold; last is the
// moment of the last event played (decimation may drop its sample).
func ChartRun(w *World, limit int64, m *Meter, publish func([]Sample)) (out []Sample, last Time, err error) {
	if m == nil {
		m = NewMeter()
	}
	defer func() {
		m.done.Store(m.n)
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			err = a.err
		}
	}()
	var s Series
	last = w.Now
	sink := sinkFunc(func(w *World, e *Event, _ *Decision) {
		s.add(w)
		last = e.T
	})
	const every = 1 << 15
	for w.Step(sink) {
		m.tick()
		if limit > 0 && w.Pos >= limit {
			return s.Samples, last, &BudgetError{What: "events", Need: w.Pos, Limit: limit, During: true}
		}
		if m.Memory != nil && w.Pos%memSlice == 0 {
			if err := m.Memory.Check(w.Footprint()); err != nil {
				return s.Samples, last, err
			}
		}
		if publish != nil && w.Pos%every == 0 {
			publish(append([]Sample(nil), s.Samples...))
		}
	}
	return s.Samples, last, nil
}

// LastPublish is when the line w is on publishes its last message, by its
// sources' schedule under its knobs: a floor for where its run ends.
func LastPublish(w *World) Time {
	p := w.Knobs
	if len(w.pending) > 0 {
		_ = p.Apply(w.pending)
	}
	var last Time
	for i := range w.spec.Sources {
		s := &w.spec.Sources[i]
		n := int64(s.CountUnder(&p))
		if n > 0 {
			last = max(last, s.Start+Time(n-1)*s.Every)
		}
	}
	return last
}

// Within is what OpenCodeWithin opens a code under.
type Within struct {
	Limits Limits
	Pool   *Pool
	Meter  *Meter // nil: one of its own
	x      *Explorer
}

// within puts an explorer OpenCode is building under in's limits and
// meter, refusing at once settings that would pass them.
func (x *Explorer) within(in []*Within) error {
	if len(in) == 0 || in[0] == nil {
		return nil
	}
	w := in[0]
	w.x = x
	x.Limit(w.Limits, w.Pool)
	if err := x.CheckBudget(); err != nil {
		return err
	}
	x.meter = w.Meter
	if x.meter == nil {
		x.meter = NewMeter()
	}
	return nil
}

// OpenCodeWithin is OpenCode under limits and a pool, metered by m (nil:
// a meter of its own): a code whose forks would pass the limits is
// refused before they are played, and one that passes them while playing
// is stopped there; cancelling m stops it too.
func OpenCodeWithin(c Code, spec *Spec, l Limits, p *Pool, m *Meter) (x *Explorer, err error) {
	in := &Within{Limits: l, Pool: p, Meter: m}
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			x, err = nil, a.err
		}
		if in.x != nil {
			in.x.meter = nil
			if err != nil && p != nil {
				p.Release(in.x.acct.held) // the explorer is dropped
			}
		}
	}()
	return OpenCode(c, spec, in)
}
