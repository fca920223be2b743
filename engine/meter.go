package engine

import (
	"sync"
	"sync/atomic"
)

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

// settle ends work done under m, deferred: the events it played, and the
// abort the meter raised (a cancel, a budget) as the work's error; any
// other panic goes on.
func (m *Meter) settle(err *error) {
	m.done.Store(m.n)
	if r := recover(); r != nil {
		a, ok := r.(abort)
		if !ok {
			panic(r)
		}
		*err = a.err
	}
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
