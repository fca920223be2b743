package engine

import (
	"errors"
	"fmt"
)

// Budget bounds the work one run may do, so that a model that could loop
// for ever (every delivery crashes, every write times out) still ends: the
// run stops at the budget and its summary says so. `inflight run`, the
// explorer and the server all stop by the same rule.
type Budget struct {
	// Events is the most events a run may emit: 0 means DefaultBudget's,
	// a negative value means no limit.
	Events int64
	// Bytes, when positive, is the most memory the run's world may hold,
	// by its Footprint, checked every memSlice events; BytesFlag raises it.
	Bytes     int64
	BytesFlag string
}

// memSlice is how many events a run plays between looks at its world's
// footprint: a few MB of growth at most between two looks.
const memSlice = 1 << 16

// DefaultBudget covers the largest bundled-style run the knobs allow: the
// million-order thursday takes about 13 million events, so 50,000,000
// orders take about 650 million.
var DefaultBudget = Budget{Events: 1_000_000_000}

// Limit is the event limit the budget sets: DefaultBudget's for a zero
// budget, -1 for none.
func (b Budget) Limit() int64 {
	switch {
	case b.Events == 0:
		return DefaultBudget.Events
	case b.Events < 0:
		return -1
	}
	return b.Events
}

// Reached reports whether a run that has emitted events may emit no more.
func (b Budget) Reached(events int64) bool {
	l := b.Limit()
	return l >= 0 && events >= l
}

// StopLine is the line a run stopped by the budget ends with.
func (b Budget) StopLine() string {
	return fmt.Sprintf("stopped: event budget of %d reached (raise with --max-events)", b.Limit())
}

// Account is the one budget every piece of work draws on, events and
// memory: an explorer's checkpoints, a hunt's checkpoints and frontier, a
// headless run's world. Under a workshop server it carries the session's
// limits and the server's pool; otherwise the process's. Memory is charged
// from the state's known sizes (World.Footprint and the like), never read
// off the Go heap, so the same input is refused or stopped at the same
// point on every machine. An account is used by one goroutine at a time;
// only its pool is shared.
type Account struct {
	Limits
	Pool *Pool
	held int64
	peak int64
	// Of names the work in a refusal: "this branch" (the default), "the
	// hunt", "the run".
	Of string
}

// NewAccount is an account under l, drawing on p too (nil: no pool).
func NewAccount(l Limits, p *Pool) *Account { return &Account{Limits: l, Pool: p} }

// Held is the memory charged to the account and not yet released.
func (a *Account) Held() int64 { return a.held }

// Peak is the most memory the account has held at once.
func (a *Account) Peak() int64 { return a.peak }

// Room is how much more memory the account may take: its own limit's
// remainder and the pool's, whichever is less; -1 for no limit.
func (a *Account) Room() int64 {
	room := int64(-1)
	if a.Bytes > 0 {
		room = max(0, a.Bytes-a.held)
	}
	if p := a.Pool; p != nil && p.Bytes > 0 {
		pr := max(0, p.Bytes-p.used.Load())
		if room < 0 || pr < room {
			room = pr
		}
	}
	return room
}

// Fits refuses, up front, work estimated to run to events and to hold
// bytes more than the account holds now.
func (a *Account) Fits(events, bytes int64) error {
	switch {
	case a.Events > 0 && events > a.Events:
		return &BudgetError{What: "events", Need: events, Limit: a.Events, Raise: a.EventsFlag, Of: a.Of}
	case a.Bytes > 0 && a.held+bytes > a.Bytes:
		return &BudgetError{What: "memory", Need: a.held + bytes, Limit: a.Bytes, Raise: a.BytesFlag, Of: a.Of}
	case a.Pool != nil && a.Pool.Bytes > 0 && a.Pool.used.Load()+bytes > a.Pool.Bytes:
		return &BudgetError{What: "server memory", Need: a.held + bytes, Limit: a.Pool.Bytes, Raise: a.Pool.Flag, Of: a.Of}
	}
	return nil
}

// Charge takes n bytes; past the account's limit or the pool's it returns
// the *BudgetError that stops the work (the bytes stay charged until
// released, as the memory they stand for is still held).
func (a *Account) Charge(n int64) error {
	a.held += n
	a.peak = max(a.peak, a.held)
	if a.Pool != nil {
		a.Pool.used.Add(n)
	}
	return a.over()
}

// Check is Charge's test without charging: whether n bytes more would
// take the account past its limit or the pool's, as work that holds state
// of its own (a run's world) measures it. Its error is a stop.
func (a *Account) Check(n int64) error {
	if a.Bytes > 0 && a.held+n > a.Bytes {
		return &BudgetError{What: "memory", Need: a.held + n, Limit: a.Bytes, Raise: a.BytesFlag, During: true, Of: a.Of}
	}
	if p := a.Pool; p != nil && p.Bytes > 0 && p.used.Load()+n > p.Bytes {
		return &BudgetError{What: "server memory", Need: a.held + n, Limit: p.Bytes, Raise: p.Flag, During: true, Of: a.Of}
	}
	return nil
}

func (a *Account) over() error {
	if a.Bytes > 0 && a.held > a.Bytes {
		return &BudgetError{What: "memory", Need: a.held, Limit: a.Bytes, Raise: a.BytesFlag, During: true, Of: a.Of}
	}
	if p := a.Pool; p != nil && p.Bytes > 0 && p.used.Load() > p.Bytes {
		return &BudgetError{What: "server memory", Need: a.held, Limit: p.Bytes, Raise: p.Flag, During: true, Of: a.Of}
	}
	return nil
}

// Release gives back n of the bytes charged.
func (a *Account) Release(n int64) {
	n = min(n, a.held)
	a.held -= n
	if a.Pool != nil {
		a.Pool.Release(n)
	}
}

// ReleaseAll gives back everything the account holds, when its work ends.
func (a *Account) ReleaseAll() { a.Release(a.held) }

// Footprint estimates the memory w holds on its own, beyond what it
// shares with the worlds it was cloned from or to: what a checkpoint of
// it would keep, or, for a world that was never cloned, all of it. It is
// computed from the state's sizes, so it is the same on every machine.
func (w *World) Footprint() int64 { return w.ownBytes() }

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
