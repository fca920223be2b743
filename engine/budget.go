package engine

import "fmt"

// Budget bounds the work one run may do, so that a model that could loop
// for ever (every delivery crashes, every write times out) still ends: the
// run stops at the budget and its summary says so. `inflight run`, the
// explorer and the server all stop by the same rule.
type Budget struct {
	// Events is the most events a run may emit: 0 means DefaultBudget's,
	// a negative value means no limit.
	Events int64
}

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
