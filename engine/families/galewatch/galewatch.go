// Package galewatch is the incident family of lesson 036's Galewatch: 1,240
// wind turbines, one reading each every two seconds (620 a second), written
// straight to a database whose unique key is (turbine, reading timestamp).
// No broker anywhere.
//
// A write that times out (write_timeout_p) did land; only its answer was
// lost, so the turbine sends the same reading again a minute later, and
// the unique key throws the copy away: at-least-once in hardware, made
// exactly-once by a primary key. Every write, first or retry, makes one
// recorded decision: is its answer lost?
//
// The window: the key's idea of identity is a turbine and its clock. At
// 10:05:00 a daemon steps one turbine's clock (T0417) by clock_step (−6 s
// by default): its next three genuine readings carry the stamps of its
// previous three, collide with them, and are thrown away as duplicates —
// three genuine readings lost, none stored twice.
//
// A turbine does not re-send for ever: it keeps a reading for re-sending
// until retry_deadline (10 minutes by default) after the reading was
// taken, and a re-send that would fall later is dropped (give_up). The
// lesson's runs never come near it (a reading would need ten lost answers
// in a row); with every answer lost (write_timeout_p=1) it is what ends
// the run. A deadline a fork lowers also stops re-sends already queued,
// and a turbine sends one reading at most 65,535 times (the trace's
// 16-bit attempt number: a deadline past about 45 days acts as that).
//
// The unique index is kept per turbine as arithmetic runs of stamps (first
// stamp, count, the 2 s period): a turbine whose clock behaves is one run,
// so the whole table clones as two 1,240-entry arrays plus the few runs a
// stepped clock starts. A checkpoint never copies 372,000 keys.
package galewatch

import (
	"fmt"
	"math"
	"slices"

	"inflight/engine"
)

// The fleet and its schedule.
const (
	Turbines         = 1240
	Period           = 2 * engine.Second
	Window           = 10 * engine.Minute
	PerTurbine       = int(Window / Period) // 300 readings each
	Readings         = Turbines * PerTurbine
	RetryAfter       = engine.Minute
	StepAfter        = 5 * engine.Minute // the daemon acts at 10:05:00
	Stepped    int16 = 416               // T0417
)

// StreamTimeout draws whether a write's answer is lost, per (reading,
// attempt): "timeout".
const StreamTimeout engine.Stream = 0x74696d656f7574

// DecTimeout is the family's decision: is this write's answer lost?
const DecTimeout = engine.FamilyDecision

// The family's own event kinds.
const (
	KindReject    = engine.FamilyKind + iota // a retried copy rejected by the unique key
	KindCollision                            // a genuine reading rejected: its key is taken
	KindClockStep                            // the daemon steps a turbine's clock
	KindGiveUp                               // the turbine drops a reading it would re-send past retry_deadline
)

var kindNames = []string{"reject", "collision", "clock_step", "give_up"}

type op uint8

const (
	opReading   op = iota // genuine reading A
	opRetry               // re-send of reading A, attempt D
	opClockStep           // the daemon
	opGiveUp              // reading A, attempt D: no re-send within the deadline
)

// run is an arithmetic run of stored stamps: first, first+Period, … (n).
type run struct {
	turbine int16
	first   engine.Time
	n       int32
}

type retry struct {
	reading int32
	stamp   engine.Time
	attempt uint16
	at      engine.Time
}

type note struct {
	reading int32
	stamp   engine.Time
	at      engine.Time
}

// Family is the galewatch system's state: plain data, deep-copied by Clone.
type Family struct {
	k        *Knobs                // the knobs in force (BindKnobs)
	curFirst [Turbines]engine.Time // each turbine's current run of stored stamps
	curN     [Turbines]int32
	older    []run // runs a turbine left behind (a stepped clock)
	skew     engine.Duration
	stepped  bool

	next    int32   // the next genuine reading
	retries []retry // re-sends due, in time order from rhead (a queue: each is due a minute after its timeout)
	rhead   int

	rows, retriesSent, retriesRejected, collisions, timeouts, gaveUp int64

	rejected  [16]note // recent rejected copies
	nRejected int
	collided  [8]note
	nCollided int
	watch     [12]note // the stepped turbine's recent writes (reading -1: a retry)
	watchOK   [12]bool
	nWatch    int
}

// New builds the family (the incidents registry calls it).
func New(p *engine.Params) engine.Family { return &Family{} }

// DefaultRetryDeadline is how long after taking a reading a turbine still
// re-sends it, unless a run sets retry_deadline.
const DefaultRetryDeadline = 10 * engine.Minute

// Clone deep-copies the state: the arrays by value, the two slices.
func (g *Family) Clone() engine.Family {
	c := *g
	c.older = slices.Clone(g.older)
	c.retries = slices.Clone(g.retries[g.rhead:])
	c.rhead = 0
	return &c
}

func offset(t int) engine.Duration { return engine.Duration(t) * Period / Turbines }

// readingAt is when reading r is taken, by the true clock.
func readingAt(start engine.Time, r int32) engine.Time {
	return start + engine.Time(int(r)/Turbines)*Period + offset(int(r)%Turbines)
}

// Start schedules the first reading and the daemon.
func (g *Family) Start(w *engine.World) {
	w.Schedule(w.Now, engine.FamilyStep{Op: uint8(opReading), Item: 0}, false)
	w.Schedule(w.Now+StepAfter, engine.FamilyStep{Op: uint8(opClockStep)}, false)
}

// Step runs one step: one event, at most one decision.
func (g *Family) Step(w *engine.World, s engine.FamilyStep) {
	switch op(s.Op) {
	case opReading:
		g.reading(w, s.Item)
	case opRetry:
		g.retry(w, s.Item, s.Gen)
	case opClockStep:
		g.clockStep(w)
	case opGiveUp:
		g.giveUp(w, s.Item, s.Gen)
	}
}

// has reports whether the unique index holds (t, stamp).
func (g *Family) has(t int, stamp engine.Time) bool {
	in := func(first engine.Time, n int32) bool {
		d := stamp - first
		return n > 0 && d >= 0 && d%Period == 0 && d/Period < engine.Time(n)
	}
	if in(g.curFirst[t], g.curN[t]) {
		return true
	}
	for _, r := range g.older {
		if int(r.turbine) == t && in(r.first, r.n) {
			return true
		}
	}
	return false
}

func (g *Family) insert(t int, stamp engine.Time) {
	g.rows++
	switch {
	case g.curN[t] > 0 && stamp == g.curFirst[t]+engine.Time(g.curN[t])*Period:
		g.curN[t]++
	case g.curN[t] == 0:
		g.curFirst[t], g.curN[t] = stamp, 1
	default:
		g.older = append(g.older, run{turbine: int16(t), first: g.curFirst[t], n: g.curN[t]})
		g.curFirst[t], g.curN[t] = stamp, 1
	}
}

// lost decides whether this write's answer is lost.
func (g *Family) lost(w *engine.World, r int32, attempt uint16) bool {
	natural := int64(0)
	if engine.Chance(w.Draw(StreamTimeout, uint64(r), uint64(attempt)), g.k.WriteTimeoutP) {
		natural = 1
	}
	return w.Decide(DecTimeout, r, -1, attempt, natural, 0, 1) == 1
}

func (g *Family) reading(w *engine.World, r int32) {
	t := int(r) % Turbines
	stamp := w.Now
	if int16(t) == Stepped {
		stamp += g.skew
	}
	id := w.Truth().NewMessage()
	if id != r {
		panic(fmt.Sprintf("galewatch: message %d for reading %d", id, r))
	}
	start := w.Spec().Start
	if g.next = r + 1; int(g.next) < Readings {
		w.Schedule(readingAt(start, g.next), engine.FamilyStep{Op: uint8(opReading), Item: g.next}, false)
	}
	w.Stats.Count(1, 0, 0)
	lost := g.lost(w, r, 1)
	if g.has(t, stamp) {
		g.collisions++
		g.collided[g.nCollided%len(g.collided)] = note{r, stamp, w.Now}
		g.nCollided++
		g.watchWrite(t, note{r, stamp, w.Now}, false)
		g.settle(w, r, stamp, 1, lost)
		w.Emit(KindCollision, r, -1, 1, int64(stamp), int64(t))
		return
	}
	g.insert(t, stamp)
	w.Truth().Effect(r)
	g.watchWrite(t, note{r, stamp, w.Now}, true)
	g.settle(w, r, stamp, 1, lost)
	w.Emit(engine.EvEffect, r, -1, 1, int64(stamp), int64(t))
}

// settle schedules the re-send of a write whose answer was lost, or lets
// the reading go.
func (g *Family) settle(w *engine.World, r int32, stamp engine.Time, attempt uint16, lost bool) {
	if !lost {
		w.Truth().Done(r)
		return
	}
	g.timeouts++
	at := w.Now + RetryAfter
	if at-readingAt(w.Spec().Start, r) > g.k.RetryDeadline || attempt == math.MaxUint16 {
		// past the turbine's deadline: the reading is let go, at once (its
		// own step, since this one already has its event)
		w.Schedule(w.Now, engine.FamilyStep{Op: uint8(opGiveUp), Item: r, Gen: attempt}, false)
		return
	}
	g.retries = append(g.retries, retry{reading: r, stamp: stamp, attempt: attempt + 1, at: at})
	w.Schedule(at, engine.FamilyStep{Op: uint8(opRetry), Item: r, Gen: attempt + 1}, false)
}

func (g *Family) retry(w *engine.World, r int32, attempt uint16) {
	x := g.takeRetry(r, attempt)
	if w.Now-readingAt(w.Spec().Start, r) > g.k.RetryDeadline {
		// a fork lowered the deadline since this re-send was queued
		g.giveUp(w, r, attempt-1)
		return
	}
	t := int(r) % Turbines
	g.retriesSent++
	w.Stats.Count(1, 0, 0)
	lost := g.lost(w, r, attempt)
	if !g.has(t, x.stamp) {
		// Not reached while every first write lands; kept honest anyway.
		g.insert(t, x.stamp)
		w.Truth().Effect(r)
		g.settle(w, r, x.stamp, attempt, lost)
		w.Emit(engine.EvEffect, r, -1, attempt, int64(x.stamp), int64(t))
		return
	}
	g.retriesRejected++
	g.rejected[g.nRejected%len(g.rejected)] = note{r, x.stamp, w.Now}
	g.nRejected++
	if int16(t) == Stepped {
		g.watchWrite(t, note{-1 - r, x.stamp, w.Now}, false)
	}
	g.settle(w, r, x.stamp, attempt, lost)
	w.Emit(KindReject, r, -1, attempt, int64(x.stamp), int64(t))
}

// pending lists the re-sends still due, soonest first.
func (g *Family) pending() []retry { return g.retries[g.rhead:] }

// takeRetry removes and returns reading r's re-send for attempt. Re-sends
// fall due in the order they were queued, so it is the head but for ties
// the world broke otherwise; the queue's dead front is dropped now and then
// so a run of 372,000 re-sends stays linear.
func (g *Family) takeRetry(r int32, attempt uint16) retry {
	q := g.pending()
	i := slices.IndexFunc(q, func(x retry) bool { return x.reading == r && x.attempt == attempt })
	x := q[i]
	if i == 0 {
		g.rhead++
	} else {
		g.retries = slices.Delete(g.retries, g.rhead+i, g.rhead+i+1)
	}
	if g.rhead > 1024 && 2*g.rhead > len(g.retries) {
		g.retries = append(g.retries[:0], g.retries[g.rhead:]...)
		g.rhead = 0
	}
	return x
}

// giveUp lets reading r go after its sends (attempts) went unanswered.
func (g *Family) giveUp(w *engine.World, r int32, attempts uint16) {
	g.gaveUp++
	w.Truth().Done(r)
	w.Emit(KindGiveUp, r, -1, attempts, int64(g.k.RetryDeadline), int64(int(r)%Turbines))
}

func (g *Family) watchWrite(t int, n note, stored bool) {
	if int16(t) != Stepped {
		return
	}
	g.watch[g.nWatch%len(g.watch)] = n
	g.watchOK[g.nWatch%len(g.watchOK)] = stored
	g.nWatch++
}

func (g *Family) clockStep(w *engine.World) {
	if g.k.ClockStep == 0 {
		return
	}
	g.skew += g.k.ClockStep
	g.stepped = true
	w.Emit(KindClockStep, -1, -1, 0, int64(g.k.ClockStep), int64(Stepped))
}

// Figures: rows stored, retries and what the key did with them, and the
// genuine readings a stepped clock threw away.
func (g *Family) Figures(w *engine.World) map[string]any {
	return map[string]any{
		"turbines":         Turbines,
		"rows":             g.rows,
		"retries":          g.retriesSent,
		"retries_rejected": g.retriesRejected,
		"timeouts":         g.timeouts,
		"collisions":       g.collisions,
		"gave_up":          g.gaveUp,
		"clock_step":       engine.FormatDuration(g.k.ClockStep),
	}
}

// Counts: copies waiting to be sent again; nothing is ever "taken".
func (g *Family) Counts(w *engine.World) (waiting, taken int) { return len(g.pending()), 0 }
