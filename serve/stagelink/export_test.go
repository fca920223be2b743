//go:build unix

package stagelink

// For serve_test.go, which is outside the package (serve imports this one).
var (
	StartRedis = startRedis
	WaitFor    = waitFor
	OpenRaw    = openRaw
)

// SyncBuf is a log buffer safe for the server and the test at once.
type SyncBuf = syncBuf

func (r *redisProc) Addr() string { return r.addr() }
func (r *redisProc) Kill()        { r.kill() }
