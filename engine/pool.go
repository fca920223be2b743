package engine

import "sync/atomic"

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
