package serve

import (
	"fmt"
	"path/filepath"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// startHall starts a redis-server with its user confined to the hall's
// keys (hallACL) and two `inflight serve --stage` processes on it, args
// added to each, with one host key: the first process writes it, the
// second reads the same. It skips without redis-server.
func startHall(t *testing.T, args ...string) (red *redisProc, p1, p2 *serveProc, host gossh.PublicKey) {
	t.Helper()
	red = startRedis(t, 0, hallACL...)
	bin := buildInflight(t)
	hostKey := filepath.Join(t.TempDir(), "host_ed25519")
	stage := fmt.Sprintf("redis://inflight:hall-pass@%s/0?key=hall", loopback(red.port))
	args = append([]string{"--stage", stage, "--host-key", hostKey}, args...)
	p1 = startServe(t, "serve1", nil, bin, args...)
	p2 = startServe(t, "serve2", nil, bin, args...)
	return red, p1, p2, hostKeyOf(t, hostKey)
}
