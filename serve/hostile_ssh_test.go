package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/tui"
)

// The hostile suite: what an attendee can send over SSH to take the room
// down, each against a workshop server of its own in a separate process
// (so that its memory is its own, and a server that dies fails the test
// instead of ending it), while another attendee keeps pressing keys.
//
//	go test -race ./serve -run Hostile -v
//
// logs each attack's server peak RSS and the other attendee's key to
// frame latencies: the figures of the closing note.

// Backstops, not promises. The server's budget is 256 MB an attendee and
// 2 GB in all; under the race detector every byte costs more.
const (
	// hostileRSSBound is what a server under one attack may reach.
	hostileRSSBound = (512 << 20) * (1 + (raceSlowdown-1)/2)
	// hostileKillAt is where the watchdog kills a runaway server, far
	// from what the machine can take.
	hostileKillAt = 3 << 30
	// floodChanges is the window-change flood's size.
	floodChanges = 10_000
)

const (
	// hostileHunt is issue 20's hunt: thursday-fixed with 30,000 orders,
	// at its end; g, x, enter hunts from its start.
	hostileHunt = "thursday-fixed@1+orders=30000#end.0e73d855"
	// hostileEscapes names its fork with OSC 52 (a clipboard write) and
	// OSC 0 (the window title); hostileClear with a clear-screen.
	hostileEscapes = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;n1=%1b%5d52%3bc%3bZXZpbA%3d%3d%07%1b%5d0%3bpwned%07"
	hostileClear   = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;n1=%1b%5b2Jx"
	hostileClean   = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec"
)

// hostile is a workshop server in a child process, its resident memory
// watched.
type hostile struct {
	addr string
	pid  int
	logs *syncBuffer
	died chan struct{} // closed when the process has exited

	mu     sync.Mutex
	peak   uint64 // the highest RSS seen since the last mark
	killed uint64 // the RSS at which the watchdog killed it; 0 not
}

func startHostile(t *testing.T) *hostile {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+filepath.Join(t.TempDir(), "host"))
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{logs: &syncBuffer{}, died: make(chan struct{})}
	child.Stderr = h.logs
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	h.pid = child.Process.Pid
	go func() { child.Wait(); close(h.died) }()
	stop := make(chan struct{})
	watched := make(chan struct{})
	go h.watch(child.Process, stop, watched)
	t.Cleanup(func() {
		close(stop)
		<-watched
		stdin.Close() // the child shuts down politely
		select {
		case <-h.died:
		case <-time.After(wait):
			child.Process.Kill()
			<-h.died
			t.Errorf("the server did not stop within %s of being asked", wait)
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(h.logs.String(), 4000))
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the server did not start: %v\n%s", err, h.logs.String())
	}
	h.addr = strings.TrimSpace(line)
	return h
}

// watch samples the server's RSS until stop, keeping the peak, and kills
// the server past hostileKillAt.
func (h *hostile) watch(p *os.Process, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-h.died:
			return
		case <-tick.C:
		}
		r, ok := procRSS(h.pid)
		if !ok {
			continue
		}
		h.mu.Lock()
		h.peak = max(h.peak, r)
		if r > hostileKillAt && h.killed == 0 {
			h.killed = r
			p.Kill()
		}
		h.mu.Unlock()
	}
}

// procRSS is a process's resident memory, from /proc; false once it is gone.
func procRSS(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb uint64
		if n, _ := fmt.Sscanf(line, "VmRSS: %d kB", &kb); n == 1 {
			return kb << 10, true
		}
	}
	return 0, false
}

// mark starts a new peak from the RSS now.
func (h *hostile) mark() {
	r, _ := procRSS(h.pid)
	h.mu.Lock()
	h.peak = r
	h.mu.Unlock()
}

func (h *hostile) peakRSS() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.peak
}

// lives fails the test if the server has died (or was killed), or grew
// past hostileRSSBound since the last mark.
func (h *hostile) lives(t *testing.T, what string) {
	t.Helper()
	h.mu.Lock()
	killed, peak := h.killed, h.peak
	h.mu.Unlock()
	if killed > 0 {
		t.Fatalf("%s: the server passed %.0f MB and the test killed it", what, mb(killed))
	}
	select {
	case <-h.died:
		t.Fatalf("%s: the server died:\n%s", what, tail(h.logs.String(), 2000))
	default:
	}
	if peak > hostileRSSBound {
		t.Errorf("%s: the server's RSS peaked at %.0f MB, over the backstop of %.0f MB", what, mb(peak), mb(hostileRSSBound))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// victim is the other attendee: each press of L moves its clock a second
// on, and it waits for that clock on its screen.
type victim struct {
	h     *hostile
	tm    *term
	start engine.Time
	n     int
	lat   []time.Duration
}

func newVictim(t *testing.T, h *hostile) *victim {
	t.Helper()
	title, start := thursday(t)
	tm := mustTerm(t, mustDial(t, h.addr, "victim", newKey(t)), 120, 40)
	tm.mustSee(t, wait, title, clock(start))
	return &victim{h: h, tm: tm, start: start}
}

// keys presses L n times, each once the last one's frame came.
func (v *victim) keys(t *testing.T, n int) {
	t.Helper()
	for range n {
		v.n++
		v.tm.mark()
		t0 := time.Now()
		if err := v.tm.send("L"); err != nil {
			t.Fatalf("the other attendee's key %d: %v", v.n, err)
		}
		if err := v.tm.waitFor(wait, clock(v.start+engine.Time(v.n)*engine.Second)); err != nil {
			v.h.lives(t, fmt.Sprintf("the other attendee's key %d", v.n)) // says why, if it is the server
			t.Fatalf("the other attendee's key %d was not answered: %v", v.n, err)
		}
		v.lat = append(v.lat, time.Since(t0))
	}
}

// during presses keys until attack returns, and a few after; attack runs
// in a goroutine of its own, so it reports rather than fails.
func (v *victim) during(t *testing.T, attack func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- attack() }()
	for {
		v.keys(t, 1)
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			v.keys(t, 3)
			return
		default:
		}
	}
}

func (v *victim) figures() string {
	if len(v.lat) == 0 {
		return "no keys"
	}
	l := append([]time.Duration(nil), v.lat...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return fmt.Sprintf("%d keys, p50 %s, max %s", len(l), l[len(l)/2].Round(time.Millisecond), l[len(l)-1].Round(time.Millisecond))
}

// clampNote is what the explorer says under a frame clamped from w×h.
func clampNote(w, h int) string {
	return fmt.Sprintf("terminal %d×%d is larger than inflight draws; drawing %d×%d", w, h, min(w, tui.MaxWidth), min(h, tui.MaxHeight))
}

// TestHostile is issue 20's attacks over SSH: each must leave the server
// alive, within its memory, and the other attendee's keys answered.
func TestHostile(t *testing.T) {
	attack := func(name string, run func(t *testing.T, h *hostile, v *victim)) {
		t.Run(name, func(t *testing.T) {
			h := startHostile(t)
			v := newVictim(t, h)
			h.mark()
			run(t, h, v)
			h.lives(t, name)
			t.Logf("%s: server RSS peak %.0f MB; the other attendee's key to frame: %s", name, mb(h.peakRSS()), v.figures())
		})
	}

	attack("pty 65535x65535", func(t *testing.T, h *hostile, v *victim) {
		key := newKey(t)
		v.during(t, func() error {
			c, err := dial(h.addr, "attacker", key)
			if err != nil {
				return err
			}
			t.Cleanup(func() { c.Close() })
			a, err := openTerm(c, 65535, 65535)
			if err != nil {
				return err
			}
			return a.waitFor(wait, clampNote(65535, 65535))
		})
	})

	attack("window-change to 65535x65535", func(t *testing.T, h *hostile, v *victim) {
		a := mustTerm(t, mustDial(t, h.addr, "attacker", newKey(t)), 80, 24)
		a.mustSee(t, wait, "quit")
		v.during(t, func() error {
			if err := a.sess.WindowChange(65535, 65535); err != nil {
				return err
			}
			return a.waitFor(wait, clampNote(65535, 65535))
		})
	})

	attack("window-change flood", func(t *testing.T, h *hostile, v *victim) {
		a := mustTerm(t, mustDial(t, h.addr, "attacker", newKey(t)), 80, 24)
		a.mustSee(t, wait, "quit")
		v.during(t, func() error {
			for i := range floodChanges {
				// sizes all over, the huge ones too
				if err := a.sess.WindowChange(1+i*104729%65535, 1+i*7919%65535); err != nil {
					return fmt.Errorf("window change %d: %w", i, err)
				}
			}
			if err := a.sess.WindowChange(55, 777); err != nil { // the last size wins
				return err
			}
			return a.waitFor(wait, clampNote(777, 55))
		})
	})

	attack("hunt under serve", func(t *testing.T, h *hostile, v *victim) {
		a := execTerm(t, mustDial(t, h.addr, "attacker", newKey(t)), "open "+hostileHunt)
		a.mustSee(t, wait, "quit")
		a.send("g")
		a.send("x")
		a.mustSee(t, wait, "which promise to break?")
		a.mark()
		a.send(keyEnter)
		t0 := time.Now()
		v.during(t, func() error {
			// the hunt runs to its end (a break found, or none), stops at
			// the budget, or is refused up front, in one line
			return a.waitForAny(2*wait, "hunt: ", "is broken by the run as it stands", "budget", "refused")
		})
		t.Logf("after %s the hunt's attendee sees: %q", time.Since(t0).Round(time.Millisecond),
			lastLine(a.screen(), "hunt", "budget", "refused"))
		a.close()
	})

	attack("escape code", func(t *testing.T, h *hostile, v *victim) {
		c := mustDial(t, h.addr, "attacker", newKey(t))
		clean := execTerm(t, c, "open "+hostileClean)
		title, _ := thursday(t)
		clean.mustSee(t, wait, title, "quit")
		clears := bytes.Count(clean.raw(), []byte("\x1b[2J"))
		clean.close()
		var seen []string
		v.during(t, func() error {
			for _, code := range []string{hostileEscapes, hostileClear} {
				a := execTerm(t, c, "open "+code)
				// refused in one line, or opened with its name cleaned
				if err := a.waitForAny(wait, "quit", "\x00ended"); err != nil {
					return err
				}
				out := append(a.raw(), a.errOut.String()...)
				for _, bad := range []string{"\x1b]52", "\x1b]0;", "\x07"} {
					if bytes.Contains(out, []byte(bad)) {
						t.Errorf("%s: %q reached the attendee's terminal", code, bad)
					}
				}
				if n := bytes.Count(out, []byte("\x1b[2J")); n > clears {
					t.Errorf("%s: %d clear-screens reached the terminal; a clean code's session gets %d", code, n, clears)
				}
				seen = append(seen, lastLine(a.screen()+"\n"+a.errOut.String(), "inflight", "refused", "⎇"))
				a.close()
			}
			return nil
		})
		t.Logf("the codes' attendee sees: %q", seen)
	})
}

// raw is the output so far with its escape sequences.
func (tm *term) raw() []byte {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return append([]byte(nil), tm.out...)
}

// waitForAny waits until the output holds one of subs; "\x00ended" stands
// for the session's end.
func (tm *term) waitForAny(d time.Duration, subs ...string) error {
	seen := func() bool {
		s := tm.screen()
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
			if sub == "\x00ended" {
				select {
				case <-tm.done:
					return true
				default:
				}
			}
		}
		return false
	}
	if tm.until(d, seen) {
		return nil
	}
	return fmt.Errorf("none of %q on screen after %s; tail:\n%s", subs, d, tail(tm.screen(), 2000))
}

// lastLine is the last line of s holding one of subs, for the log.
func lastLine(s string, subs ...string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		for _, sub := range subs {
			if strings.Contains(lines[i], sub) {
				return strings.TrimSpace(lines[i])
			}
		}
	}
	return ""
}

// sizeCounter is a stand-in explorer that counts the sizes it is given
// and draws the last.
type sizeCounter struct {
	n    *atomic.Int64
	w, h int
}

func (f sizeCounter) Init() tea.Cmd { return nil }

func (f sizeCounter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.n.Add(1)
		f.w, f.h = msg.Width, msg.Height
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return f, tea.Quit
		}
	}
	return f, nil
}

func (f sizeCounter) View() string { return fmt.Sprintf("size %dx%d.", f.w, f.h) }

// TestHostileResizeFloodCoalesced: a flood of window changes reaches the
// explorer as at most one size a beat, the latest winning, and leaves no
// goroutine behind (TestMain's goleak checks the package).
func TestHostileResizeFloodCoalesced(t *testing.T) {
	var sizes atomic.Int64
	s := startServer(t, Config{}, func(tui.Options) (tea.Model, error) { return sizeCounter{n: &sizes}, nil })
	t0 := time.Now()
	a := mustTerm(t, mustDial(t, s.addr, "flood", newKey(t)), 80, 24)
	a.mustSee(t, wait, "size 80x24.")
	for i := range floodChanges {
		if err := a.sess.WindowChange(1+i%100, 1+i%300); err != nil {
			t.Fatalf("window change %d: %v", i, err)
		}
	}
	if err := a.sess.WindowChange(1234, 4321); err != nil { // height, width
		t.Fatal(err)
	}
	a.mustSee(t, wait, "size 4321x1234.")
	elapsed := time.Since(t0)
	// one at once, then at most one a beat
	most := 1 + int64(elapsed/resizeBeat)
	got := sizes.Load()
	t.Logf("%d window changes in %s reached the explorer as %d sizes (at most %d)", floodChanges+1, elapsed.Round(time.Millisecond), got, most)
	if got > most {
		t.Errorf("%d sizes reached the explorer in %s: more than one a beat (%d)", got, elapsed, most)
	}
	a.close()
	if _, ok := a.ended(wait); !ok {
		t.Fatal("the session did not end")
	}
	s.logged(t, func() bool { return s.Sessions() == 0 })
}
