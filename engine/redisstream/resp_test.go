package redisstream

// A private redis-server and a minimal RESP2 client for the differential
// test. The client is written here rather than taken from go-redis on
// purpose: the test must see reply shapes exactly as the server sends them
// (a nil array and an empty array are different replies of XREADGROUP; a
// per-consumer count in XPENDING is a bulk string, not an integer), which
// go-redis's typed helpers normalise away; and it keeps the shared go.mod
// free of a dependency that only this test would use.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RESP2 values: bulk strings, simple strings, errors, integers (int64),
// null bulk, null array and arrays ([]any).
type (
	bulk    string
	simple  string
	respErr string
	nilBulk struct{}
	nilArr  struct{}
)

type respConn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dialRESP(addr string) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

// do sends one command and reads its reply. A Redis error reply is a
// respErr value, not a Go error; the Go error is for I/O and protocol faults.
func (rc *respConn) do(args ...string) (any, error) {
	_ = rc.c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(rc.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(rc.w, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := rc.w.Flush(); err != nil {
		return nil, err
	}
	return rc.read()
}

func (rc *respConn) read() (any, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, fmt.Errorf("empty RESP line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return simple(body), nil
	case '-':
		return respErr(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nilBulk{}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		return bulk(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nilArr{}, nil
		}
		arr := make([]any, n)
		for i := range arr {
			if arr[i], err = rc.read(); err != nil {
				return nil, err
			}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unknown RESP type %q", line)
}

// render prints a reply tree in one canonical line, so that model and
// server replies compare as strings and mismatches read easily.
func render(v any) string {
	switch x := v.(type) {
	case bulk:
		return strconv.Quote(string(x))
	case simple:
		return "+" + string(x)
	case respErr:
		return "-" + string(x)
	case int64:
		return ":" + strconv.FormatInt(x, 10)
	case nilBulk:
		return "nil"
	case nilArr:
		return "nil*"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("?%T(%v)", v, v)
}

// startRedis starts a private redis-server on a free loopback port and
// returns a connection to it; the server is killed when the test ends. The
// port is found by binding :0 and closing it, so another process may take
// it first: then the server fails to bind and another port is tried.
func startRedis(t testing.TB) (*respConn, string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("install redis-server (apt-get install -y redis-server)")
	}
	out, _ := exec.Command(bin, "--version").Output()
	version := strings.TrimSpace(string(out))
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		rc, err := startRedisOnce(t, bin)
		if err == nil {
			return rc, version
		}
		lastErr = err
	}
	t.Fatal(lastErr)
	return nil, ""
}

func startRedisOnce(t testing.TB, bin string) (*respConn, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no")
	logf, err := os.Create(dir + "/redis.log")
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if rc, err := dialRESP(addr); err == nil {
			if r, err := rc.do("PING"); err == nil && r == simple("PONG") {
				// Ours, not another server that took the port first?
				// (Redis reports the directory after chdir: symlinks resolved.)
				got, _ := rc.do("CONFIG", "GET", "dir")
				real, _ := filepath.EvalSymlinks(dir)
				if arr, ok := got.([]any); !ok || len(arr) != 2 || (arr[1] != bulk(dir) && arr[1] != bulk(real)) {
					rc.c.Close()
					stop()
					return nil, fmt.Errorf("port %d was taken by another server (dir %v)", port, render(got))
				}
				t.Cleanup(func() { rc.c.Close(); stop() })
				return rc, nil
			}
			rc.c.Close()
		}
		if time.Now().After(deadline) {
			stop()
			log, _ := os.ReadFile(dir + "/redis.log")
			return nil, fmt.Errorf("redis-server on %s did not answer PING:\n%s", addr, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
