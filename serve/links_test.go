package serve

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// TestBannerHintsAtSSHKeygen: the banner, which OpenSSH prints before it
// authenticates, tells an attendee without a key how to make one; a
// client offering no key at all sees it too.
func TestBannerHintsAtSSHKeygen(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	for _, auth := range [][]gossh.AuthMethod{nil, {gossh.PublicKeys(newKey(t))}} {
		var banner syncBuffer
		c, err := gossh.Dial("tcp", s.addr, &gossh.ClientConfig{
			User: "alice", Auth: auth, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait,
			BannerCallback: func(msg string) error { banner.Write([]byte(msg)); return nil },
		})
		if err == nil {
			c.Close()
		}
		if (err == nil) != (auth != nil) {
			t.Errorf("%d auth methods: dial error %v", len(auth), err)
		}
		if got := banner.String(); !strings.Contains(got, "No SSH key? Run: ssh-keygen -t ed25519") {
			t.Errorf("%d auth methods: banner %q", len(auth), got)
		}
	}
}

// TestRejectedKeyIsLogged: a key not on the allowlist is logged by its
// fingerprint, with the user and address, and never the key itself.
func TestRejectedKeyIsLogged(t *testing.T) {
	alice, mallory := newKey(t), newKey(t)
	s := startServer(t, Config{AuthorizedKeys: writeKeys(t, alice)}, newFake)
	if c, err := dial(s.addr, "mal", mallory); err == nil {
		c.Close()
		t.Fatal("unlisted key accepted")
	}
	mustDial(t, s.addr, "alice", alice)
	logs := s.logs.String()
	line := ""
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "rejected key") {
			if line != "" {
				t.Errorf("two lines for one key:\n%s", logs)
			}
			line = l
		}
	}
	for _, want := range []string{gossh.FingerprintSHA256(mallory.PublicKey()), "user=mal", "remote=127.0.0.1:"} {
		if !strings.Contains(line, want) {
			t.Errorf("rejected-key line %q lacks %q", line, want)
		}
	}
	if strings.Contains(logs, "rejected key key="+gossh.FingerprintSHA256(alice.PublicKey())) {
		t.Errorf("the accepted key was logged as rejected:\n%s", logs)
	}
	material := strings.Fields(string(gossh.MarshalAuthorizedKey(mallory.PublicKey())))[1]
	if strings.Contains(logs, material) || strings.Contains(logs, material[len(material)-20:]) {
		t.Errorf("the key itself is in the log:\n%s", logs)
	}
}

// TestSessionlessConnectionTakesASeat: an authenticated connection that
// opens no session (ssh -N) counts toward --max-sessions, and is closed
// after the idle timeout like a session with nothing in or out (not a
// minute later); its seat is then free.
func TestSessionlessConnectionTakesASeat(t *testing.T) {
	idle := time.Second * raceSlowdown
	s := startServer(t, Config{MaxSessions: 1, IdleTimeout: idle}, newFake)
	quiet := mustDial(t, s.addr, "quiet", newKey(t))
	if n := s.Seats(); n != 1 || s.Sessions() != 0 {
		t.Fatalf("seats %d, sessions %d; want the connection in a seat of its own", n, s.Sessions())
	}
	closed := make(chan struct{})
	go func() { quiet.Wait(); close(closed) }() //nolint:errcheck

	c := mustDial(t, s.addr, "late", newKey(t))
	late := mustTerm(t, c, 80, 24)
	err, ok := late.ended(wait)
	if !ok || exitStatus(err) != 1 || !strings.Contains(late.errOut.String(), "workshop is full") {
		t.Fatalf("second connection: ended=%v err=%v stderr %q; want the workshop full", ok, err, late.errOut.String())
	}
	c.Close()

	// the timer that closed it is the idle timeout, as its line says (how
	// long it took is the machine's business)
	select {
	case <-closed:
	case <-time.After(wait + idle):
		t.Fatal("the sessionless connection was never closed")
	}
	if !strings.Contains(s.logs.String(), "why=\"no session for "+idle.String()) {
		t.Errorf("no disconnect line naming the idle timeout for it:\n%s", s.logs)
	}
	s.logged(t, func() bool { return s.Seats() == 0 })
	mustTerm(t, mustDial(t, s.addr, "next", newKey(t)), 80, 24).mustSee(t, wait, "fake explorer")
}

// TestSessionlessConnectionWhenFull: a connection that authenticates
// into a full workshop and opens no session is closed after a short
// grace, not the idle timeout; the one holding the seat stays.
func TestSessionlessConnectionWhenFull(t *testing.T) {
	// an idle timeout no test waits for: a close is the grace's
	idle := time.Hour
	s := startServer(t, Config{MaxSessions: 1, IdleTimeout: idle}, newFake)
	grace := 300 * time.Millisecond * raceSlowdown
	s.links.mu.Lock()
	s.links.grace = grace
	s.links.mu.Unlock()
	first := mustDial(t, s.addr, "first", newKey(t))
	extra := mustDial(t, s.addr, "extra", newKey(t))
	closed := make(chan struct{})
	go func() { extra.Wait(); close(closed) }() //nolint:errcheck
	select {
	case <-closed:
	case <-time.After(wait):
		t.Fatalf("the connection into a full workshop was not closed within %s (grace %s, idle timeout %s)", wait, grace, idle)
	}
	if !strings.Contains(s.logs.String(), "why=\"no session for "+grace.String()) {
		t.Errorf("no disconnect line naming the grace:\n%s", s.logs)
	}
	if _, _, err := first.SendRequest("keepalive@openssh.com", true, nil); err != nil {
		t.Errorf("the connection holding the seat was closed too: %v", err)
	}
	if n := s.Seats(); n != 1 {
		t.Errorf("seats %d, want 1", n)
	}
}
