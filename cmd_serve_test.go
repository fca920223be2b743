package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// serve checks every flag before it writes anything: a bad one leaves no
// host key behind, and is a usage error (exit 2); an address it cannot
// bind is a failure (exit 1), also before any file is written.
func TestServeFlagsCheckedBeforeAnyFile(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cases := []struct {
		want int
		args []string
		says string
	}{
		{2, []string{"--listen", "notaport"}, "--listen"},
		{2, []string{"--listen", "127.0.0.1:99999"}, "65535"},
		{2, []string{"--listen", "127.0.0.1:-1"}, "--listen"},
		{2, []string{"--listen", strings.Repeat("h", 5000)}, "…"},
		{2, []string{"--max-sessions", "0"}, "--max-sessions"},
		{2, []string{"--max-sessions", strings.Repeat("9", 5000)}, "…"},
		{2, []string{"--idle-timeout", "-1s"}, "--idle-timeout"},
		{2, []string{"--idle-timeout", "soon"}, "idle-timeout"},
		{2, []string{"--authorized-keys", "/nonexistent/keys"}, "--authorized-keys"},
		{2, []string{"--presenter-keys", "/nonexistent/keys"}, "--presenter-keys"},
		{2, []string{"--stage", "http://h:6379"}, "--stage: scheme"},
		{2, []string{"--stage", "redis://:hunter2@h:0/0"}, "--stage: port"},
		{2, []string{"--stage", "rediss://:hunter2@h:6379/0?skip_verify=1"}, "only key=NAME"},
		{2, []string{"stray"}, "stray"},
		{2, []string{"--bogus"}, "--bogus"},
		{1, []string{"--listen", busy.Addr().String()}, "address already in use"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		key := filepath.Join(dir, "sub", "host_key")
		var out, errb bytes.Buffer
		code := run(append(append([]string{"serve"}, c.args...), "--host-key", key), &out, &errb)
		msg := errb.String()
		if code != c.want || !strings.Contains(msg, c.says) || strings.Count(msg, "\n") != 1 || len(msg) > 300 || strings.Contains(msg, "hunter2") {
			t.Errorf("serve %.60q: exit %d (want %d), stderr %.300q", c.args, code, c.want, msg)
		}
		left, _ := os.ReadDir(dir)
		for _, e := range left {
			t.Errorf("serve %.60q: wrote %s", c.args, e.Name())
		}
	}
}

// `inflight serve 2>&1 | tee log`, then ctrl+c: tee dies with the
// server's log pipe, yet the server says goodbye to every attendee and
// exits 0 instead of dying of SIGPIPE.
func TestServeSaysGoodbyeWithItsLogPipeClosed(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := inflight(t, "serve", "--listen", "127.0.0.1:0", "--host-key", filepath.Join(dir, "key"), "--idle-timeout", "0")
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		cmd.Process.Kill() // if the test failed before it stopped
		<-exited
	}()

	// the address it listens on, from its log
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			for _, f := range strings.Fields(sc.Text()) {
				if a, ok := strings.CutPrefix(f, "addr="); ok {
					addr <- a
					return
				}
			}
		}
	}()
	var a string
	select {
	case a = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never said where it listens")
	}

	// an attendee, with a terminal
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	client, err := gossh.Dial("tcp", a, &gossh.ClientConfig{User: "attendee", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	screen := &lockedBuffer{}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sess.Stderr = screen // where the goodbye line goes
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() {
		// answer the colour and device-attribute queries, as a terminal does
		buf := make([]byte, 32<<10)
		answered := false
		for {
			n, err := out.Read(buf)
			screen.Write(buf[:n])
			if !answered && strings.Contains(screen.String(), "\x1b[c") {
				answered = true
				in.Write([]byte("\x1b]11;rgb:1010/1010/1010\x07\x1b[?62;22c"))
			}
			if err != nil {
				return
			}
		}
	}()
	waitFor(t, func() bool { return strings.Contains(screen.String(), "step back") }, "the explorer's first frame", func() string { return fmt.Sprintf("%q", tail(screen.String())) })

	// tee dies: the log pipe has no reader any more
	r.Close()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(screen.String(), "Goodbye") }, "the goodbye line", func() string {
		select {
		case <-exited:
			return "serve exited: " + fmt.Sprint(waitErr) + "; screen ends " + fmt.Sprintf("%q", tail(screen.String()))
		default:
			return "serve still running; screen ends " + fmt.Sprintf("%q", tail(screen.String()))
		}
	})
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("serve ended with %v, want exit 0", waitErr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func waitFor(t *testing.T, ok func() bool, what string, why func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			if why != nil {
				what += ": " + why()
			}
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tail(s string) string { return s[max(0, len(s)-300):] }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
