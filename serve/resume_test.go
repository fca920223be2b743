package serve

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// forkedHeader is the header after `]`, `f`, `60s`, `enter` on thursday:
// the branch, named by its change, at the bookmark's moment.
const forkedHeader = "⎇ main ▸ visibility_timeout=60s @19:52:00"

// forkAndList forks as an attendee would and opens the branch list.
func forkAndList(t *testing.T, tm *term) {
	t.Helper()
	tm.send("]")
	tm.mustSee(t, wait, "19:52:00")
	tm.send("f")
	tm.mustSee(t, wait, "Fork a branch here")
	tm.send("60s")
	tm.send(keyEnter)
	tm.mustSee(t, wait, forkedHeader)
	tm.send("b")
	tm.mustSee(t, wait, "Branches", "you are here")
}

// waitKept waits until the server keeps the work of key k logged in as
// user.
func waitKept(t *testing.T, s *testServer, k gossh.Signer, user string) {
	t.Helper()
	id := keyID(k.PublicKey(), user)
	hang := time.NewTimer(wait)
	defer hang.Stop()
	for {
		more := s.kept.putting()
		if s.kept.has(id) {
			return
		}
		select {
		case <-more:
		case <-hang.C:
			t.Fatalf("no work kept for the key after %s", wait)
		}
	}
}

// quit ends tm's session with ctrl+c, which quits from any screen.
func quit(t *testing.T, tm *term) {
	t.Helper()
	tm.send("\x03")
	if _, ok := tm.ended(wait); !ok {
		t.Fatal("ctrl+c did not end the session")
	}
}

// settledFresh waits for a fresh explorer's first screen and checks that
// nothing was restored in it.
func settledFresh(t *testing.T, tm *term, title, start string) {
	t.Helper()
	tm.mustSee(t, wait, title, start, "⎇ main")
	if s := tm.screen(); strings.Contains(s, "welcome back") || strings.Contains(s, "visibility_timeout=60s @") {
		t.Fatalf("a fresh session shows restored work:\n%s", tail(s, 2000))
	}
}

// An attendee whose connection drops reconnects with the same key and
// finds their branch, its name, the cursor's moment and the branch list
// open; another key finds nothing of it; after the grace period (an
// injected clock moved past it) the key finds nothing either, and the
// process holds nothing of it.
func TestReconnectKeepsWork(t *testing.T) {
	s := startServer(t, Config{KeepFor: time.Minute}, nil)
	var shift atomic.Int64 // the store's clock: a fixed instant, moved by the test alone
	at := time.Date(2026, 12, 2, 19, 40, 0, 0, time.UTC)
	s.kept.setClock(func() time.Time { return at.Add(time.Duration(shift.Load())) })
	title, start := thursday(t)
	key := newKey(t)

	c := mustDial(t, s.addr, "alice", key)
	forkAndList(t, mustTerm(t, c, 120, 40))
	c.Close() // the client dies: no q, no goodbye
	waitKept(t, s, key, "alice")

	// another key: the lesson's start, nothing of alice's
	other := mustTerm(t, mustDial(t, s.addr, "bob", newKey(t)), 120, 40)
	settledFresh(t, other, title, clock(start))
	quit(t, other)

	tm := mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40)
	tm.mustSee(t, wait, "welcome back: your branch is restored", forkedHeader, "Branches", "you are here")
	tm.mark()
	tm.send("\x1b") // the list closed, b lists the branch again
	tm.mustSee(t, wait, "Queue")
	tm.mark()
	tm.send("b")
	tm.mustSee(t, wait, "Branches", "main ▸ visibility_timeout=60s @19:52:00  you are here")
	if s.kept.len() != 0 {
		t.Fatal("the work is still kept after it was restored")
	}

	// once more, and this time the reconnect comes after the grace period
	quit(t, tm)
	waitKept(t, s, key, "alice")
	shift.Store(int64(time.Minute + time.Second))
	if n := s.kept.len(); n != 0 {
		t.Fatalf("%d works kept past the grace period", n)
	}
	late := mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40)
	settledFresh(t, late, title, clock(start))
	quit(t, late)
}

// A reconnect the server has not noticed the old connection of (the
// client's wifi went: no FIN, no reply) takes that session over: the old
// connection, which no longer answers a keepalive, is closed and its
// work comes to the new one. A follow@ session of the same key is another
// login and stays.
func TestReconnectTakesOverADeadConnection(t *testing.T) {
	s := startServer(t, Config{}, nil)
	key := newKey(t)
	wifi := startFreezer(t, s.addr)
	old := mustTerm(t, mustDial(t, wifi.addr, "alice", key), 120, 40)
	forkAndList(t, old)
	fol := mustTerm(t, mustDial(t, s.addr, "follow", key), 100, 30)
	fol.mustSee(t, wait, "FOLLOW")
	wifi.freeze() // nothing more through, either way; nothing closed

	tm := mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40)
	tm.mustSee(t, wait, "welcome back: your branch is restored", forkedHeader)
	if l := s.logs.String(); !strings.Contains(l, "taking over a dropped connection") {
		t.Fatalf("no takeover logged:\n%s", l)
	}
	select {
	case <-fol.done:
		t.Fatal("the key's follow@ session was ended too")
	default:
	}
	quit(t, tm)
	quit(t, fol)
}

// Two live sessions of one key and login (a second terminal, a shared
// key) both stay: the second starts fresh, and the first's work is kept
// when it ends, for the next.
func TestReconnectLeavesALiveSession(t *testing.T) {
	s := startServer(t, Config{}, nil)
	title, start := thursday(t)
	key := newKey(t)
	first := mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40)
	forkAndList(t, first)
	second := mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40)
	settledFresh(t, second, title, clock(start))
	select {
	case <-first.done:
		t.Fatal("a live session was taken over")
	default:
	}
	quit(t, first)
	waitKept(t, s, key, "alice")
	quit(t, second) // fresh: leaves nothing, the first's stays
	third := mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40)
	third.mustSee(t, wait, "welcome back: your branch is restored", forkedHeader)
	quit(t, third)
}

// freezer is a TCP relay to a server that can stop relaying without
// closing anything, as a client's network going away looks to the server.
type freezer struct {
	addr   string
	frozen chan struct{}
	once   sync.Once
}

func startFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{addr: ln.Addr().String(), frozen: make(chan struct{})}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	relay := func(dst, src net.Conn) {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			select {
			case <-f.frozen:
				<-done // hold both ends open, relaying nothing
				return
			default:
			}
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				dst.Close()
				return
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			wg.Add(2)
			go relay(up, c)
			go relay(c, up)
		}
	}()
	t.Cleanup(func() {
		f.freeze()
		close(done)
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return f
}

// freeze stops the relay.
func (f *freezer) freeze() { f.once.Do(func() { close(f.frozen) }) }

// --keep-for 0 (KeepFor < 0) keeps nothing.
func TestReconnectKeepsNothingWhenOff(t *testing.T) {
	s := startServer(t, Config{KeepFor: -1}, nil)
	if s.kept != nil {
		t.Fatal("a store with KeepFor < 0")
	}
	title, start := thursday(t)
	key := newKey(t)
	c := mustDial(t, s.addr, "alice", key)
	tm := mustTerm(t, c, 120, 40)
	forkAndList(t, tm)
	quit(t, tm)
	settledFresh(t, mustTerm(t, mustDial(t, s.addr, "alice", key), 120, 40), title, clock(start))
}
