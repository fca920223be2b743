package serve

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// TestHall runs a workshop as docs/workshop.md sets it up: a Redis, two
// `inflight serve --stage` processes with one host key, and haproxy with
// docs/haproxy.cfg in front (when haproxy is installed). Over SSH it
// checks that a presenter on one process moves followers on the other
// within 200 ms, that a question's tally counts answers from both, and
// what happens when Redis and then the presenter's process die.
func TestHall(t *testing.T) {
	red := startRedis(t, 0, hallACL...) // skips without redis-server
	bin := buildInflight(t)
	dir := t.TempDir()
	hostKey := filepath.Join(dir, "host_ed25519")
	pk := newKey(t)
	presenters := writeKeys(t, pk)
	stage := fmt.Sprintf("redis://inflight:hall-pass@%s/0?key=hall", loopback(red.port))
	args := []string{"--stage", stage, "--host-key", hostKey, "--presenter-keys", presenters}
	// The first process writes the host key; the second reads the same.
	p1 := startServe(t, "serve1", nil, bin, args...)
	p2 := startServe(t, "serve2", nil, bin, args...)
	host := hostKeyOf(t, hostKey)
	hp := startHAProxy(t, p1.addr, p2.addr)
	if hp == nil {
		t.Log("haproxy is not installed (Debian/Ubuntu: apt-get install haproxy): its part is skipped, attendees reconnect to the live process directly")
	} else {
		// Whichever process haproxy picks, ssh sees the same host key.
		for range 4 {
			dialAs(t, hp.addr, "peek", newKey(t), host).Close()
		}
	}
	title, start := thursday(t)
	const w, h = 100, 30

	pres := mustTerm(t, dialAs(t, p1.addr, "pat", pk, host), 120, 40)
	pres.mustSee(t, wait, title, "PRESENTER")
	fol2 := mustTerm(t, dialAs(t, p2.addr, "follow", newKey(t), host), w, h)
	fol2.mustSee(t, wait, "FOLLOWING")
	fol1 := mustTerm(t, dialAs(t, p1.addr, "follow", newKey(t), host), w, h)
	fol1.mustSee(t, wait, "FOLLOWING")

	// (a) A key on process 1 reaches process 2's follower within 200 ms.
	// The first move also shows the stage has crossed at all.
	at := start + engine.Second
	pres.send("L")
	fol2.head(t, w, h, clock(at), wait)
	var lat []time.Duration
	for i := range 7 {
		// From at once to a person's pace: a key soon after the last
		// frame waits for the followers' next 100 ms beat.
		time.Sleep(time.Duration(45*i) * time.Millisecond)
		at += engine.Second
		sent := time.Now()
		pres.send("L")
		fol2.head(t, w, h, clock(at), wait)
		lat = append(lat, time.Since(sent))
	}
	fol1.head(t, w, h, clock(at), wait)
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	median, worst := sorted[len(sorted)/2], sorted[len(sorted)-1]
	t.Logf("presenter on process 1 to follower on process 2, %d moves: %v; median %v, max %v", len(lat), lat, median, worst)
	// The median is the requirement; one slow move on a loaded machine
	// (a GC, a descheduled process) gets more room.
	if median > 200*time.Millisecond || worst > time.Second*raceSlowdown {
		t.Errorf("key to the other process's follower: median %v (want ≤ 200ms), max %v", median, worst)
	}

	// (b) The presenter asks; a follower on each process answers; the
	// presenter's tally counts both.
	pres.send("e")
	pres.mustSee(t, wait, "a: ask the room")
	pres.send("5")
	pres.mustSee(t, wait, "Asking the room")
	for i, f := range []*term{fol1, fol2} {
		f.mustSee(t, wait, "The presenter asks", "B2's call returns")
		f.send(string(rune('a' + i)))
		f.mustSee(t, wait, fmt.Sprintf("your answer: %c", 'a'+i))
	}
	pres.mustSee(t, wait, "2 followers answered · 0 not yet")
	pres.send(keyEnter)
	pres.mustSee(t, wait, "The answer is b. 1 of 2 followers answered it.")
	fol1.mustSee(t, wait, "You answered a; the answer is b.")
	fol2.mustSee(t, wait, "Right: the answer is b.")
	pres.send("\x1b") // the question down
	fol1.send("\x1b")
	fol2.send("\x1b")

	// (c) Redis dies: every process keeps serving and says so to its
	// followers; the presenter moves on meanwhile; Redis comes back
	// empty on the same port, and followers catch up.
	from := fol2.written() // it said so before Redis first answered, too
	red.kill()
	fol2.seeSince(t, from, "stage connection lost")
	late := mustTerm(t, dialAs(t, p2.addr, "late", newKey(t), host), w, h)
	late.mustSee(t, wait, title, clock(start))
	if hp != nil {
		lb := mustTerm(t, dialAs(t, hp.addr, "later", newKey(t), host), w, h)
		lb.mustSee(t, wait, title, clock(start))
		lb.send("q")
	}
	pres.keys(t, "/", "1", "9", ":", "4", "3", keyEnter)
	pres.head(t, 120, 40, "19:43:00", wait)
	fol1.head(t, w, h, "19:43:00", wait) // process 1's own followers never lost it
	back := time.Now()
	red = startRedis(t, red.port, hallACL...)
	fol2.head(t, w, h, "19:43:00", wait)
	t.Logf("Redis back to process 2's follower caught up: %v", time.Since(back))
	if g := fol2.settled(t, w, h, "19:43:00"); strings.Contains(g, "connection lost") {
		t.Fatalf("the follower still says the connection is lost:\n%s", g)
	}

	// (d) The presenter's process dies. Its attendees run ssh again and
	// reach the other process (through haproxy, which must notice);
	// the presenter resumes the stage there.
	entry := p2.addr
	if hp != nil {
		entry = hp.addr
	}
	from = fol2.written()
	killed := time.Now()
	p1.kill()
	for _, tm := range []*term{pres, fol1} {
		if _, ok := tm.ended(wait); !ok {
			t.Fatal("a session on the killed process did not end")
		}
	}
	if hp != nil {
		// docs/haproxy.cfg promises about 1.5 s; a loaded machine gets more.
		hp.waitReady(t, func() bool { return strings.Contains(hp.tail(20), " is DOWN") })
		d := time.Since(killed)
		t.Logf("haproxy took the killed process out in %v", d)
		if d > 4*time.Second {
			t.Errorf("haproxy took %v to take the killed process out (docs/haproxy.cfg: about 1.5 s)", d)
		}
	}
	fol2.seeSince(t, from, "the presenter is away")
	again := mustTerm(t, dialAs(t, entry, "follow", newKey(t), host), w, h)
	again.mustSee(t, wait, "FOLLOWING")
	again.head(t, w, h, "19:43:00", wait)
	pres = mustTerm(t, dialAs(t, entry, "pat", pk, host), 120, 40)
	pres.mustSee(t, wait, "PRESENTER")
	pres.head(t, 120, 40, "19:43:00", wait) // where it stood, not the start
	pres.send("L")
	for _, f := range []*term{fol2, again} {
		f.head(t, w, h, "19:43:01", wait)
		if g := f.settled(t, w, h, "19:43:01"); strings.Contains(g, "away") {
			t.Fatalf("a follower still says the presenter is away:\n%s", g)
		}
	}
	for _, tm := range []*term{pres, fol2, again, late} {
		tm.send("\x03")
		tm.ended(wait)
	}
}

// written is how much output has come so far, for seeSince.
func (tm *term) written() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return len(tm.out)
}

// seeSince waits until the output after the first from bytes holds s.
// Unlike mark it keeps the output, so the screen can still be drawn.
func (tm *term) seeSince(t testing.TB, from int, s string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		tm.mu.Lock()
		out := ansi.Strip(string(tm.out[from:]))
		tm.mu.Unlock()
		if strings.Contains(out, s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on screen after %s; tail:\n%s", s, wait, out[max(0, len(out)-2000):])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hallACL gives the stage a Redis user confined to the hall's keys and
// channel, as docs/workshop.md suggests for a Redis that is shared.
var hallACL = []string{"--user", "inflight", "on", ">hall-pass", "~hall:*", "&hall:*", "+@all", "-@dangerous"}

// head waits until the first line of the w×h screen holds s.
func (tm *term) head(t testing.TB, w, h int, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	seen := -1
	for {
		if n := tm.written(); n != seen {
			seen = n
			if first, _, _ := strings.Cut(tm.grid(w, h), "\n"); strings.Contains(first, s) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q at the top of the screen after %s:\n%s", s, d, tm.grid(w, h))
		}
		time.Sleep(2 * time.Millisecond)
	}
}
