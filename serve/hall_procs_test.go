package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The processes of TestHall: the inflight binary as a user runs it, a
// private redis-server and haproxy with the project's docs/haproxy.cfg.

// proc is a child process whose output goes to a file, shown when the
// test fails.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	out    *procLog
	exited chan struct{}
}

// procLog writes a process's output to its log file, waking whoever
// waits for a line (grown).
type procLog struct {
	mu   sync.Mutex
	f    *os.File
	grew chan struct{}
}

func (l *procLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
	return l.f.Write(b)
}

// grown is closed when more output comes after the call.
func (l *procLog) grown() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.grew == nil {
		l.grew = make(chan struct{})
	}
	return l.grew
}

// startProc starts bin with args and env (nil: this process's); it is
// killed at cleanup if still running.
func startProc(t *testing.T, name string, env []string, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, log: filepath.Join(t.TempDir(), name+".log"), exited: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.out = &procLog{f: f}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out // through a pipe, so a line wakes waitReady
	p.cmd.WaitDelay = time.Second             // a grandchild holding the pipe does not hold Wait
	p.cmd.SysProcAttr = hallProcAttr()
	if err := p.cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("%s: %v", name, err)
	}
	go func() { p.cmd.Wait(); f.Close(); close(p.exited) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s's output (%s):\n%s", name, strings.Join(p.cmd.Args, " "), p.tail(40))
		}
	})
	return p
}

// kill ends the process at once (SIGKILL: no goodbyes, as a crash or a
// pulled plug) and waits for it.
func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *proc) tail(n int) string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitReady waits until ready says yes, trying it again each time the
// process writes a line (a server logs that it listens once it does) and
// when it exits; it fails if the process exits first, or hangs past wait.
func (p *proc) waitReady(t *testing.T, ready func() bool) {
	t.Helper()
	hang := time.NewTimer(wait)
	defer hang.Stop()
	for {
		more := p.out.grown() // before ready, so a line between the two wakes us
		if ready() {
			return
		}
		select {
		case <-more:
		case <-p.exited:
			if !ready() {
				t.Fatalf("%s exited at start:\n%s", p.name, p.tail(20))
			}
			return
		case <-hang.C:
			t.Fatalf("%s not ready after %s:\n%s", p.name, wait, p.tail(20))
		}
	}
}

// waitDial is waitReady for a process that says nothing once it listens
// (haproxy): dialing it is the only observable, so this retries the dial
// itself, paced so as not to spin a loaded machine; wait only bounds a
// hang.
func (p *proc) waitDial(t *testing.T, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !ready() {
		if !p.running() {
			t.Fatalf("%s exited at start:\n%s", p.name, p.tail(20))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after %s:\n%s", p.name, wait, p.tail(20))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// freePort is a loopback port nothing listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// greets reports whether addr answers a new connection with prefix, as
// SSH servers and haproxy's health check expect.
func greets(addr, prefix string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.HasPrefix(line, prefix)
}

// buildInflight builds the inflight binary, as a user would.
func buildInflight(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "inflight")
	cmd := exec.Command("go", "build", "-o", bin, "inflight")
	cmd.Dir = ".." // the module's root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// redisProc is a private redis-server on a loopback port, without
// persistence: restarted, it comes back empty, as a Redis that lost its
// data would.
type redisProc struct {
	*proc
	port int
}

// startRedis starts one on port (0: a free one) with extra arguments.
func startRedis(t *testing.T, port int, extra ...string) *redisProc {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (Debian/Ubuntu: apt-get install redis-server)")
	}
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		p := port
		if p == 0 {
			p = freePort(t)
		}
		args := append([]string{"--port", strconv.Itoa(p), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"}, extra...)
		r := &redisProc{port: p, proc: startProc(t, "redis", nil, bin, args...)}
		// its "Ready to accept connections" wakes this once it listens
		r.waitReady(t, func() bool { return !r.running() || r.pong() })
		if r.running() && r.pong() {
			return r
		}
		r.kill()
		if port != 0 || attempt == 2 { // the same port again, or out of tries
			t.Fatalf("redis-server on port %d did not start:\n%s", p, r.tail(10))
		}
	}
}

// pong reports whether this server (not another that took the port)
// answers.
func (r *redisProc) pong() bool {
	c, err := net.DialTimeout("tcp", loopback(r.port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(c, "INFO server\r\n")
	rd := bufio.NewReader(c)
	head, err := rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		return false
	}
	n, _ := strconv.Atoi(strings.TrimSpace(head[1:]))
	body := make([]byte, n)
	if _, err := io.ReadFull(rd, body); err != nil {
		return false
	}
	return bytes.Contains(body, []byte("process_id:"+strconv.Itoa(r.cmd.Process.Pid)+"\r\n"))
}

// serveProc is one `inflight serve` process.
type serveProc struct {
	*proc
	addr string
}

func startServe(t *testing.T, name string, env []string, bin string, args ...string) *serveProc {
	t.Helper()
	for attempt := 0; ; attempt++ {
		addr := loopback(freePort(t))
		p := startProc(t, name, env, bin, append([]string{"serve", "--listen", addr}, args...)...)
		p.waitReady(t, func() bool { return !p.running() || greets(addr, "SSH-2.0-") })
		if p.running() {
			return &serveProc{proc: p, addr: addr}
		}
		if attempt == 2 || !strings.Contains(p.tail(5), "address already in use") {
			t.Fatalf("%s exited at start:\n%s", name, p.tail(20))
		}
	}
}

// haproxyProc is haproxy running docs/haproxy.cfg, its bind and server
// addresses replaced by the test's.
type haproxyProc struct {
	*proc
	addr string
}

var (
	cfgBind   = regexp.MustCompile(`(?m)^(\s*bind\s+)\S+`)
	cfgServer = regexp.MustCompile(`(?m)^(\s*server\s+\S+\s+)\S+`)
)

// startHAProxy runs the documented config in front of backends, or
// returns nil when haproxy is not installed.
func startHAProxy(t *testing.T, backends ...string) *haproxyProc {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		return nil
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfgServer.FindAll(doc, -1)); n != len(backends) || len(cfgBind.FindAll(doc, -1)) != 1 {
		t.Fatalf("docs/haproxy.cfg: want one bind and %d server lines, have %d servers", len(backends), n)
	}
	for attempt := 0; ; attempt++ {
		addr := loopback(freePort(t))
		cfg := cfgBind.ReplaceAll(doc, []byte("${1}"+addr))
		i := 0
		cfg = cfgServer.ReplaceAllFunc(cfg, func(m []byte) []byte {
			sub := cfgServer.FindSubmatch(m)
			i++
			return append(append([]byte{}, sub[1]...), backends[i-1]...)
		})
		// Debian's global section logs to syslog; here, to the output.
		cfg = append([]byte("global\n\tlog stdout format raw local0\n\n"), cfg...)
		path := filepath.Join(t.TempDir(), "haproxy.cfg")
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		p := startProc(t, "haproxy", nil, bin, "-db", "-f", path)
		p.waitDial(t, func() bool { return !p.running() || greets(addr, "SSH-2.0-") })
		if p.running() {
			return &haproxyProc{proc: p, addr: addr}
		}
		if attempt == 2 || !strings.Contains(p.tail(5), "cannot bind") {
			t.Fatalf("haproxy exited at start:\n%s", p.tail(20))
		}
	}
}

// hostKeyOf reads the public half of a host key file.
func hostKeyOf(t *testing.T, path string) gossh.PublicKey {
	t.Helper()
	pem, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey()
}

// dialAs connects as user with key, accepting only host as the server's
// key: ssh's "host key changed" would fail it.
func dialAs(t *testing.T, addr, user string, key gossh.Signer, host gossh.PublicKey) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.FixedHostKey(host),
		Timeout:         10 * time.Second,
	})
	if err != nil {
		t.Fatalf("ssh %s@%s: %v", user, addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
