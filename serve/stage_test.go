package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
)

// Tests of presenter mode over SSH: the stage lives in the server, and
// followers see what the presenter sees.

// grid is the session's screen as a w×h terminal shows it.
func (tm *term) grid(w, h int) string {
	tm.mu.Lock()
	out := string(tm.out)
	tm.mu.Unlock()
	v := newVT(w, h)
	v.write(out)
	return v.String()
}

// settled waits until the w×h screen holds every one of subs, and
// returns it.
func (tm *term) settled(t testing.TB, w, h int, subs ...string) string {
	t.Helper()
	return settle(t, tm, func() string { return tm.grid(w, h) }, subs, nil)
}

// settledWithout waits until the w×h screen holds every one of subs and
// none of gone, and returns it.
func (tm *term) settledWithout(t testing.TB, w, h int, gone []string, subs ...string) string {
	t.Helper()
	return settle(t, tm, func() string { return tm.grid(w, h) }, subs, gone)
}

// settle waits until the screen grid reads holds every one of subs and
// none of gone, and returns it; it reads the grid again each time tm's
// output grows. The test names what the screen comes to show: a quiet
// period would guess when a busy machine has drawn it.
func settle(t testing.TB, tm *term, grid func() string, subs, gone []string) string {
	t.Helper()
	var g string
	holds := func() bool {
		g = grid()
		for _, s := range subs {
			if !strings.Contains(g, s) {
				return false
			}
		}
		for _, s := range gone {
			if strings.Contains(g, s) {
				return false
			}
		}
		return true
	}
	if !tm.until(wait, holds) {
		t.Fatalf("the screen never came to show %q without %q:\n%s", subs, gone, g)
	}
	return g
}

// settledGolden waits until the w×h screen is the test's golden (a
// screen drawn part way differs), then compares it, so a wrong screen
// fails with its diff once the deadline has passed.
func (tm *term) settledGolden(t *testing.T, w, h int, subs ...string) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("testdata", t.Name()+".golden"))
	g := tm.settled(t, w, h, subs...)
	if err == nil {
		tm.until(wait, func() bool {
			g = tm.grid(w, h)
			return g == strings.ReplaceAll(string(want), "\r\n", "\n")
		})
	}
	golden.RequireEqual(t, []byte(g))
}

// keys types keys in order. Runes that arrive together are split by the
// explorer (typedTogether), so they go as they come; an escape waits for
// the screen to react (key) before the next key, which would otherwise
// read as alt+key. A key that changes nothing draws nothing, so no other
// key waits: the caller waits on what the keys lead to.
func (tm *term) keys(t testing.TB, keys ...string) {
	t.Helper()
	for _, k := range keys {
		send := tm.send
		if strings.HasPrefix(k, "\x1b") {
			send = tm.key
		}
		if err := send(k); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStageSurvivesPresenterReconnect(t *testing.T) {
	pk := newKey(t)
	s := startServer(t, Config{PresenterKeys: writeKeys(t, pk)}, nil)
	title, start := thursday(t)

	fol := mustTerm(t, mustDial(t, s.addr, "follow", newKey(t)), 100, 30)
	fol.mustSee(t, wait, "nothing to follow yet", clock(start))
	// a presenter key as follow@ is a projector: it follows
	proj := mustTerm(t, mustDial(t, s.addr, "follow", pk), 80, 24)
	proj.mustSee(t, wait, "FOLLOWING")

	pc := mustDial(t, s.addr, "pat", pk)
	pres := mustTerm(t, pc, 120, 40)
	pres.mustSee(t, wait, title, "PRESENTER")
	pres.keys(t, "L", "L", "L", "+", "+", "?")
	moved := clock(start + 3*engine.Second)
	pres.mustSee(t, wait, moved, "paused 60×")
	fol.settled(t, 100, 30, moved, "paused 60×", "FOLLOWING", "next bookmark")
	if g := proj.settled(t, 80, 24, moved, "FOLLOWING"); strings.Contains(g, "PRESENTER") {
		t.Fatal("a presenter key as follow@ became a second presenter")
	}

	pc.Close()                                              // the presenter's laptop drops off the network
	fol.settled(t, 100, 30, "the presenter is away", moved) // the moment kept

	back := mustTerm(t, mustDial(t, s.addr, "pat", pk), 120, 40)
	g := back.settled(t, 120, 40, "PRESENTER", moved, "paused 60×", "next bookmark")
	if head, _, _ := strings.Cut(g, "\n"); !strings.Contains(head, moved) {
		t.Fatalf("the presenter came back to the start:\n%s", g)
	}
	fol.mark()
	back.keys(t, "L")
	fol.settledWithout(t, 100, 30, []string{"away"}, clock(start+4*engine.Second))
	for _, tm := range []*term{fol, proj, back} {
		tm.send("q")
		tm.ended(wait)
	}
}

// TestFollowersMirrorOverlays keeps goldens of a follower's screen while
// the presenter opens each screen: what the follower sees, at its size.
func TestFollowersMirrorOverlays(t *testing.T) {
	pk := newKey(t)
	s := startServer(t, Config{PresenterKeys: writeKeys(t, pk)}, nil)
	title, _ := thursday(t)
	pres := mustTerm(t, mustDial(t, s.addr, "pat", pk), 120, 40)
	pres.mustSee(t, wait, title)
	fol := mustTerm(t, mustDial(t, s.addr, "follow", newKey(t)), 80, 24)
	fol.mustSee(t, wait, "FOLLOWING")

	steps := []struct {
		name string
		keys []string
		see  []string // on the follower's screen before the golden is taken
	}{
		{"fork", []string{"]", "]", "]", "f", "4", "5", "s"}, []string{"Fork a branch here", "45s"}},
		{"compare", []string{"\r", "c"}, []string{"B − A"}},
		{"story", []string{"\x1b", "\r"}, []string{"Life story of order 14"}},
		{"exercises", []string{"\x1b", "e"}, []string{"Check your understanding"}},
		{"help", []string{"\x1b", "?"}, []string{"next bookmark", "jump to clock"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			pres.keys(t, st.keys...)
			fol.settledGolden(t, 80, 24, append(st.see, "FOLLOWING")...)
		})
	}
	for _, tm := range []*term{fol, pres} {
		tm.send("q")
		tm.ended(wait)
	}
}

func TestPresenterExemptFromIdleAndCap(t *testing.T) {
	pk := newKey(t)
	idle := 400 * time.Millisecond
	s := startServer(t, Config{MaxSessions: 1, IdleTimeout: idle, PresenterKeys: writeKeys(t, pk)}, newFake)
	pres := mustTerm(t, mustDial(t, s.addr, "pat", pk), 80, 24)
	pres.mustSee(t, wait, "fake explorer")
	a := mustTerm(t, mustDial(t, s.addr, "a", newKey(t)), 80, 24)
	a.mustSee(t, wait, "fake explorer") // the presenter takes no seat
	proj := mustTerm(t, mustDial(t, s.addr, "follow", pk), 80, 24)
	proj.mustSee(t, wait, "fake explorer") // nor does the projector
	b := mustTerm(t, mustDial(t, s.addr, "b", newKey(t)), 80, 24)
	if err, ok := b.ended(wait); !ok || exitStatus(err) != 1 {
		t.Fatalf("an attendee past the cap: ended=%v err=%v", ok, err)
	}
	if _, ok := a.ended(4 * idle); !ok {
		t.Fatal("an idle attendee was not closed")
	}
	if _, ok := pres.ended(0); ok {
		t.Fatalf("the presenter was closed as idle: %q", pres.errOut.String())
	}
	if !strings.Contains(s.logs.String(), "role=projector") {
		t.Error(fmt.Sprintf("no projector in the log:\n%s", s.logs.String()))
	}
	pres.send("q")
	pres.ended(wait)
}
