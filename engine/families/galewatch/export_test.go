package galewatch

import "inflight/engine"

// The stamp store, opened for the external tests (this file is compiled
// only with them).

// OlderRuns are the runs of stamps the turbines left behind.
func (g *Family) OlderRuns() []int32 {
	var n []int32
	for _, r := range g.older {
		n = append(n, r.n)
	}
	return n
}

// SetOlderRunLen writes run i's length in place.
func (g *Family) SetOlderRunLen(i int, n int32) { g.older[i].n = n }

// Store stores stamp for turbine t.
func (g *Family) Store(t int, stamp engine.Time) { g.insert(t, stamp) }

// Stored reports whether turbine t has stored stamp.
func (g *Family) Stored(t int, stamp engine.Time) bool { return g.has(t, stamp) }

// ReadingsText is the queue pane title's count of lost answers.
func ReadingsText(n int) string { return readings(n) }
