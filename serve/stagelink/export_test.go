//go:build unix

package stagelink

import "testing"

// For serve_test.go, which is outside the package (serve imports this one).
var (
	StartRedis = startRedis
	WaitFor    = waitFor
	Retry      = retry
	OpenRaw    = openRaw
)

// SyncBuf is a log buffer safe for the server and the test at once.
type SyncBuf = syncBuf

func (r *redisProc) Addr() string { return r.addr() }
func (r *redisProc) Kill()        { r.kill() }

// WatchLog has t's WaitFor wake when b is written to.
func WatchLog(t testing.TB, b *SyncBuf) { watch(t, b.grown) }
