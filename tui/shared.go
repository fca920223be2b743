package tui

import (
	"runtime"

	"inflight/engine"
)

// Budgets for an explorer in one's own terminal: a workshop laptop's.
// A thursday branch of about a million and a half orders fits.
const (
	DefaultMaxEvents = 20_000_000
	DefaultMaxMemory = 1 << 30
)

// DefaultBudget is the explorer's budget when none is given, with the
// flags of `inflight explore` and `open` that raise it.
func DefaultBudget() engine.Limits {
	return engine.Limits{Events: DefaultMaxEvents, Bytes: DefaultMaxMemory, EventsFlag: "--max-events", BytesFlag: "--max-memory-mb"}
}

// Shared is what the sessions of one process share: each explorer's
// budget, the memory pool all of them draw on, the slots for long jobs
// and the whole-run charts. A workshop server makes one for every
// session; the explorer in a terminal gets one of its own.
type Shared struct {
	Budget engine.Limits
	Pool   *engine.Pool  // nil: no limit across sessions
	slots  chan struct{} // long jobs at once; nil: no limit
	charts *chartCache
	gate   chan struct{} // a test's, handed to the jobs of every Model built on it (job.gate)
}

// NewShared makes the shared part: budget for each explorer, pool across
// them (nil: none) and at most jobs long jobs running at once (<= 0: no
// limit).
func NewShared(budget engine.Limits, pool *engine.Pool, jobs int) *Shared {
	sh := &Shared{Budget: budget, Pool: pool, charts: newChartCache()}
	if jobs > 0 {
		sh.slots = make(chan struct{}, jobs)
	}
	return sh
}

// ServerJobs is the default number of long jobs a server runs at once:
// one core is kept for answering keys.
func ServerJobs() int { return max(1, runtime.NumCPU()-1) }
