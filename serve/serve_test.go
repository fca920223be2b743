package serve

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// wait is a backstop for one step of a session, generous because the
// race detector (and a machine busy with other work) is slow: 20 s, 60 s
// under -race.
const wait = 20 * time.Second * (1 + (raceSlowdown-1)/2)

func exitStatus(err error) int {
	var ee *gossh.ExitError
	if errors.As(err, &ee) {
		return ee.ExitStatus()
	}
	if err == nil {
		return 0
	}
	return -1
}

func TestPTYSessionGetsItsOwnSizedExplorer(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	a := mustTerm(t, mustDial(t, s.addr, "alice", newKey(t)), 100, 30)
	b := mustTerm(t, mustDial(t, s.addr, "bob", newKey(t)), 72, 20)
	a.mustSee(t, wait, "fake explorer 100x30 count=0")
	b.mustSee(t, wait, "fake explorer 72x20 count=0")
	a.send("++")
	a.mustSee(t, wait, "count=2")
	b.send("+")
	b.mustSee(t, wait, "count=1")
	if err := b.sess.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	b.mustSee(t, wait, "fake explorer 120x40 count=1")
	a.send("q")
	if err, ok := a.ended(wait); !ok || err != nil {
		t.Fatalf("q: ended=%v err=%v", ok, err)
	}
	if !strings.Contains(s.logs.String(), "sessions=1") {
		t.Errorf("no session count in the log:\n%s", s.logs)
	}
}

func TestNoPTYIsRefusedPolitely(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	c := mustDial(t, s.addr, "alice", newKey(t))
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var errOut syncBuffer
	sess.Stderr = &errOut
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	err = sess.Wait()
	if exitStatus(err) != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if got := errOut.String(); !strings.Contains(got, "needs a terminal") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one friendly line", got)
	}
	if s.Sessions() != 0 {
		t.Errorf("sessions = %d", s.Sessions())
	}
}

func TestExecSubsystemsAndForwardingAreRefused(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	c := mustDial(t, s.addr, "mallory", newKey(t))

	t.Run("exec", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var errOut syncBuffer
		sess.Stderr = &errOut
		sess.RequestPty("xterm", 24, 80, nil)
		if err := sess.Run("cat /etc/passwd"); err == nil {
			t.Fatal("exec accepted")
		}
	})
	t.Run("sftp", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		if err := sess.RequestSubsystem("sftp"); err == nil {
			t.Fatal("sftp subsystem accepted")
		}
	})
	t.Run("agent", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		ok, err := sess.SendRequest("auth-agent-req@openssh.com", true, nil)
		if err != nil || ok {
			t.Fatalf("agent forwarding: ok=%v err=%v", ok, err)
		}
	})
	t.Run("local forward", func(t *testing.T) {
		if conn, err := c.Dial("tcp", s.addr); err == nil {
			conn.Close()
			t.Fatal("direct-tcpip accepted")
		}
	})
	t.Run("remote forward", func(t *testing.T) {
		if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
			ln.Close()
			t.Fatal("tcpip-forward accepted")
		}
	})
	// The connection is still good for the explorer after all that.
	tm := mustTerm(t, c, 80, 24)
	tm.mustSee(t, wait, "fake explorer")
}

func TestAuthentication(t *testing.T) {
	alice, bob, pres := newKey(t), newKey(t), newKey(t)
	t.Run("any key by default", func(t *testing.T) {
		s := startServer(t, Config{}, newFake)
		mustDial(t, s.addr, "x", alice)
		mustDial(t, s.addr, "y", bob)
	})
	t.Run("never a password", func(t *testing.T) {
		s := startServer(t, Config{}, newFake)
		_, err := gossh.Dial("tcp", s.addr, &gossh.ClientConfig{
			User: "x", Auth: []gossh.AuthMethod{gossh.Password("hunter2"), gossh.KeyboardInteractive(
				func(string, string, []string, []bool) ([]string, error) { return nil, nil })},
			HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait,
		})
		if err == nil {
			t.Fatal("password accepted")
		}
	})
	t.Run("allowlist", func(t *testing.T) {
		s := startServer(t, Config{AuthorizedKeys: writeKeys(t, alice), PresenterKeys: writeKeys(t, pres)}, newFake)
		mustDial(t, s.addr, "x", alice)
		mustDial(t, s.addr, "x", pres) // presenters need not be listed twice
		if c, err := dial(s.addr, "x", bob); err == nil {
			c.Close()
			t.Fatal("unlisted key accepted")
		}
	})
	t.Run("bad key files", func(t *testing.T) {
		dir := t.TempDir()
		empty := filepath.Join(dir, "empty")
		junk := filepath.Join(dir, "junk")
		os.WriteFile(empty, []byte("# nobody\n"), 0o600)
		os.WriteFile(junk, []byte("ssh-ed25519 AAAA-not-base64\n"), 0o600)
		for _, cfg := range []Config{
			{AuthorizedKeys: filepath.Join(dir, "missing")},
			{AuthorizedKeys: empty},
			{PresenterKeys: junk},
		} {
			cfg.HostKeyPath = filepath.Join(dir, "host")
			if _, err := New(cfg); err == nil {
				t.Errorf("%+v: no error", cfg)
			}
		}
	})
}

func TestHostKeyIsCreatedPrivateAndReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "host_ed25519")
	fp1, err := ensureHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	fp2, err := ensureHostKey(path)
	if err != nil || fp1 != fp2 {
		t.Errorf("second start: %q %v, want the same key %q", fp2, err, fp1)
	}
	// And the server presents it.
	s := startServer(t, Config{HostKeyPath: path}, newFake)
	var got string
	c, err := gossh.Dial("tcp", s.addr, &gossh.ClientConfig{
		User: "x", Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(t))},
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error {
			got = gossh.FingerprintSHA256(k)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got != fp1 {
		t.Errorf("server presented %s, want %s", got, fp1)
	}
}

func TestMaxSessions(t *testing.T) {
	pres := newKey(t)
	s := startServer(t, Config{MaxSessions: 2, PresenterKeys: writeKeys(t, pres)}, newFake)
	ca := mustDial(t, s.addr, "a", newKey(t))
	a := mustTerm(t, ca, 80, 24)
	b := mustTerm(t, mustDial(t, s.addr, "b", newKey(t)), 80, 24)
	a.mustSee(t, wait, "fake explorer")
	b.mustSee(t, wait, "fake explorer")

	cc := mustDial(t, s.addr, "c", newKey(t))
	c := mustTerm(t, cc, 80, 24)
	err, ok := c.ended(wait)
	if !ok || exitStatus(err) != 1 {
		t.Fatalf("third attendee: ended=%v err=%v", ok, err)
	}
	if got := c.errOut.String(); !strings.Contains(got, "workshop is full") {
		t.Errorf("third attendee was told %q", got)
	}
	cc.Close() // as ssh does: a connection left open holds a seat
	// The presenter always gets in.
	p := mustTerm(t, mustDial(t, s.addr, "p", pres), 80, 24)
	p.mustSee(t, wait, "fake explorer")
	p.send("q")
	p.ended(wait)

	// A seat frees up when someone leaves.
	a.send("q")
	if _, ok := a.ended(wait); !ok {
		t.Fatal("a did not leave")
	}
	ca.Close()
	waitUntil(t, func() bool { return s.Seats() == 1 })
	d := mustTerm(t, mustDial(t, s.addr, "d", newKey(t)), 80, 24)
	d.mustSee(t, wait, "fake explorer")
}

// waitUntil polls cond: for what the server signals nowhere (a seat
// freed by a connection closing, the pool's bytes given back by a job
// that ends on its own, goroutines winding down, a file its writer fills
// in the background), asking again is the only observable; it is paced
// so as not to spin a loaded machine, and wait only bounds a hang. What
// comes with a log line waits with logged instead.
func waitUntil(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logged waits until cond holds, trying it again each time the server
// logs a line: it logs a session's disconnect once it no longer counts
// it, and an expired connection's once its seat is free. wait only bounds
// a hang.
func (s *testServer) logged(t testing.TB, cond func() bool) {
	t.Helper()
	if !s.logs.until(wait, nil, cond) {
		t.Fatalf("condition not met in %s; server log:\n%s", wait, s.logs.String())
	}
}

func TestIdleTimeout(t *testing.T) {
	idle := 400 * time.Millisecond
	s := startServer(t, Config{IdleTimeout: idle}, newFake)
	busy := mustTerm(t, mustDial(t, s.addr, "busy", newKey(t)), 80, 24)
	lazy := mustTerm(t, mustDial(t, s.addr, "lazy", newKey(t)), 80, 24)
	busy.mustSee(t, wait, "fake explorer")
	lazy.mustSee(t, wait, "fake explorer")
	start := time.Now()
	stop := time.After(4 * idle)
	for typing := true; typing; {
		select {
		case <-stop:
			typing = false
		case <-time.After(idle / 4):
			busy.send("+")
		}
	}
	if _, ok := lazy.ended(0); !ok {
		t.Fatalf("idle session still open after %s", time.Since(start))
	}
	if got := lazy.errOut.String(); !strings.Contains(got, "without activity") || !strings.Contains(got, "To reconnect, run the same command again: ssh -p ") {
		t.Errorf("idle session was told %q", got)
	}
	if _, ok := busy.ended(0); ok {
		t.Fatal("a typing attendee was closed as idle")
	}
	busy.mustSee(t, wait, "count=")
}

func TestPanicEndsOnlyThatSession(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	a := mustTerm(t, mustDial(t, s.addr, "a", newKey(t)), 80, 24)
	b := mustTerm(t, mustDial(t, s.addr, "b", newKey(t)), 80, 24)
	a.mustSee(t, wait, "fake explorer")
	b.mustSee(t, wait, "fake explorer")
	a.send("p")
	if _, ok := a.ended(wait); !ok {
		t.Fatal("panicking session still open")
	}
	if got := a.errOut.String(); !strings.Contains(got, "hit a bug") {
		t.Errorf("crashed session was told %q", got)
	}
	if !strings.Contains(s.logs.String(), "fake explorer: boom") {
		t.Errorf("panic not logged:\n%s", s.logs)
	}
	b.send("+")
	b.mustSee(t, wait, "count=1")
	if n := s.Sessions(); n != 1 {
		t.Errorf("sessions = %d, want 1", n)
	}
}

func TestShutdownSaysGoodbye(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	var terms []*term
	for range 3 {
		tm := mustTerm(t, mustDial(t, s.addr, "a", newKey(t)), 80, 24)
		tm.mustSee(t, wait, "fake explorer")
		terms = append(terms, tm)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for i, tm := range terms {
		if _, ok := tm.ended(wait); !ok {
			t.Fatalf("session %d still open", i)
		}
		if got := tm.errOut.String(); !strings.Contains(got, "shutting down") {
			t.Errorf("session %d was told %q", i, got)
		}
	}
	if _, err := dial(s.addr, "late", newKey(t)); err == nil {
		t.Error("accepted a connection after shutdown")
	}
}
