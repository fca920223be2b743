package engine

import "unsafe"

// tick counts one event of metered work and, every tickMask+1 events,
// publishes the count and checks for a cancel.
func (x *Explorer) tick() {
	if x.meter != nil {
		x.meter.tick()
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
	defer m.settle(&err)
	defer func() { x.meter = prev }()
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
