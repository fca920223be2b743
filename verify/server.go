package verify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNoRedisServer says no redis-server is installed to start a private
// one; its text tells how to install it.
var ErrNoRedisServer = errors.New("redis-server is not installed: install it (Debian/Ubuntu: apt-get install redis-server) or pass --redis ADDR of a running server")

// server is a private redis-server on a free loopback port, with no
// persistence, in its own directory.
type server struct {
	Addr    string
	Version string
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
}

// redisVersion is `redis-server --version`, trimmed, or "".
func redisVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// startServer starts redis-server in dir and waits until it answers PING.
// The free port is found by binding :0 and closing it, so another process
// may take it first: then another port is tried.
func startServer(ctx context.Context, dir string) (*server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNoRedisServer
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startServerOnce(ctx, bin, filepath.Join(dir, fmt.Sprintf("redis-%d", attempt)))
		if err == nil {
			s.Version = redisVersion(bin)
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lastErr = err
	}
	return nil, lastErr
}

func startServerOnce(ctx context.Context, bin, dir string) (*server, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), exited: make(chan struct{}), logPath: filepath.Join(dir, "redis.log")}
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own descriptor
	s.cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no")
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// Its own process group (a terminal's ^C reaches us, and we stop it
	// and anything it started), and on Linux killed if we die without
	// stopping it.
	s.cmd.SysProcAttr = childProcAttr()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()

	rdb := newClient(s.Addr)
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("redis-server on %s exited at start: %s", s.Addr, s.tail())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		default:
		}
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		err := rdb.Ping(pctx).Err()
		var info string
		if err == nil {
			info, err = rdb.Info(pctx, "server").Result()
		}
		cancel()
		if err == nil {
			// Ours, and not another server that took the port first?
			if !strings.Contains(info, "process_id:"+strconv.Itoa(s.cmd.Process.Pid)+"\r\n") {
				s.Stop()
				return nil, fmt.Errorf("port %d was taken by another server", port)
			}
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("redis-server on %s did not answer PING: %s", s.Addr, s.tail())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *server) tail() string {
	b, _ := os.ReadFile(s.logPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// Stop ends the server and everything in its process group: SIGTERM to
// the group, SIGKILL to what is left once the server has exited (or after
// 3 s), so nothing it started outlives it.
func (s *server) Stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = signalGroup(s.cmd.Process, false)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
	}
	_ = signalGroup(s.cmd.Process, true)
	<-s.exited
}
