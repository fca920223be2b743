package engine

import (
	"bufio"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"sort"
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

	cps      []checkpoint // own checkpoints, ascending pos; cps[0] is the fork point
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
type Series struct {
	Samples []Sample
	stride  int64
}

const maxSamples = 4096

func (s *Series) add(w *World) {
	if s.stride == 0 {
		s.stride = 1
	}
	if n := len(s.Samples); n > 0 && w.Pos-s.Samples[n-1].Pos < s.stride {
		return
	}
	waiting, taken := w.visible, len(w.leased)
	if w.fam != nil {
		waiting, taken = w.fam.Counts(w)
	}
	s.Samples = append(s.Samples, Sample{w.Pos, w.Now, int32(waiting), int32(taken), int32(w.dlqLen), w.S.Effects})
	if len(s.Samples) >= maxSamples {
		j := 0
		for i := 0; i < len(s.Samples); i += 2 {
			s.Samples[j] = s.Samples[i]
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
	b := &Branch{ID: 0, Name: "main", frontier: w.Clone(), hash: newHashSink(nil)}
	b.cps = []checkpoint{{pos: 0, w: w.Clone(), hstate: marshalHash(b.hash), hlast: 0}}
	x.branches = []*Branch{b}
	x.cur = b
	x.k = &walker{path: []*Branch{b}, w: w}
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
		if !f.Step(sink) {
			b.done = true
			break
		}
		if f.Pos%x.Every == 0 {
			b.cps = append(b.cps, checkpoint{pos: f.Pos, w: f.Clone(), hstate: marshalHash(b.hash), hlast: b.hash.last})
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
	if cp.hstate == nil {
		// a fork's first checkpoint keeps no hash: take the line's hash at
		// the fork point and play the fork's own events on from there
		h := x.hashAt(b.Parent, cp.pos)
		w := cp.w.Clone()
		for w.Pos < pos && w.Step(h) {
		}
		return h
	}
	h := restoreHash(cp.hstate, cp.hlast)
	w := cp.w.Clone()
	for w.Pos < pos && w.Step(h) {
	}
	return h
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
	k := &walker{path: path, seg: seg, w: cp.w.Clone()}
	for k.w.Pos < pos && k.w.Step(nil) {
	}
	return k
}

func (k *walker) step(sink Sink) bool {
	// a loop: a fork of a fork may branch at the very same event
	for k.seg+1 < len(k.path) && k.w.Pos == k.path[k.seg+1].ForkPos {
		k.seg++
		k.w = k.path[k.seg].cps[0].w.Clone()
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
		w.Override(*o.Override)
	}
	name := o.Name
	if name == "" {
		name = fmt.Sprintf("fork%d", x.nextID)
	}
	b := &Branch{ID: x.nextID, Name: name, Parent: parent, ForkPos: o.Pos, ForkAt: max(o.At, w.Now),
		Changes: append([]Setting(nil), o.Set...), Override: o.Override, frontier: w.Clone()}
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
	x.k = &walker{path: b.Path(), w: w}
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
	bw := bufio.NewWriter(out)
	ts := &traceSink{enc: json.NewEncoder(bw)}
	k := x.walkerAt(b, 0)
	for k.step(ts) && ts.err == nil {
	}
	if ts.err != nil {
		return ts.err
	}
	return bw.Flush()
}
