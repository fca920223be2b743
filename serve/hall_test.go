package serve

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"inflight/engine"
)

// TestHall runs a workshop as docs/workshop.md sets it up: a Redis, two
// `inflight serve --stage` processes with one host key, and haproxy with
// docs/haproxy.cfg in front (when haproxy is installed). Over SSH it
// checks that a presenter on one process moves followers on the other
// within 200 ms and plays them in step, that a question's tally counts
// answers from both, and what happens when Redis and then the
// presenter's process die.
func TestHall(t *testing.T) {
	pk := newKey(t)
	red, p1, p2, host := startHall(t, "--presenter-keys", writeKeys(t, pk))
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
	open := screenOpener(t, host)

	pres := open(p1.addr, "pat", pk, 120, 40, title, "PRESENTER")
	fol2 := open(p2.addr, "follow", newKey(t), w, h, "FOLLOWING")
	fol1 := open(p1.addr, "follow", newKey(t), w, h, "FOLLOWING")

	// (a) A key on process 1 reaches process 2's follower within 200 ms.
	// The first move also shows the stage has crossed at all.
	at := start + engine.Second
	pres.send("L")
	fol2.waitHead(t, clock(at))
	var lat []time.Duration
	for i := range 7 {
		// From at once to a person's pace: a key soon after the last
		// frame waits for the followers' next 100 ms beat. The pause is
		// the measurement's (latency at each phase of the beat, logged),
		// no wait for anything: nothing asserts on it.
		time.Sleep(time.Duration(45*i) * time.Millisecond)
		at += engine.Second
		sent := time.Now()
		pres.send("L")
		fol2.waitHead(t, clock(at))
		lat = append(lat, time.Since(sent))
	}
	fol1.waitHead(t, clock(at))

	// Followers never change the stage: one on process 2 who steps and
	// forks detaches into a copy of their own, and the stage stays where
	// the presenter put it, on both processes; F follows it again.
	fol2.send("l")
	if !fol2.until(wait, func() bool { return !strings.Contains(fol2.head(), "FOLLOWING") }) {
		t.Fatalf("l did not detach the follower:\n%s", fol2.grid())
	}
	fol2.send("f")
	fol2.send(keyEnter)
	fol2.settled(t, "main ▸ ")
	fol1.settled(t, clock(at), "FOLLOWING")
	if h := fol1.head(); !strings.Contains(h, clock(at)) || strings.Contains(h, "main ▸") {
		t.Fatalf("a follower on process 2 moved the stage on process 1: %s", h)
	}
	open(p2.addr, "follow", newKey(t), w, h, "FOLLOWING", clock(at)).send("q")
	fol2.send("F")
	fol2.waitHead(t, "FOLLOWING")
	fol2.waitHead(t, clock(at))
	slices.Sort(lat)
	// logged, not asserted: how fast is the machine's business; that each
	// move reaches the other process's follower is the test's
	t.Logf("presenter on process 1 to follower on process 2, %d moves: median %v, max %v (%v)", len(lat), lat[len(lat)/2], lat[len(lat)-1], lat)

	// Play (10×): followers on both processes run along with the
	// presenter's play, each reaching every moment the other shows, and
	// stop on the presenter's moment.
	pres.send(" ")
	fol2.mustSee(t, wait, "▶ playing")
	seen := fol1.clock(t)
	for range 5 {
		seen = fol1.waitClock(t, seen+time.Second)
		fol2.waitClock(t, seen)
	}
	pres.send(" ")
	pres.waitHead(t, "⏸ paused")
	stop := pres.clock(t)
	for _, f := range []*screen{fol1, fol2} {
		// each follower comes to the presenter's moment, paused
		f.waitHead(t, "⏸ paused")
		f.waitHead(t, fmt.Sprintf("%02d:%02d:%02d", int(stop.Hours()), int(stop.Minutes())%60, int(stop.Seconds())%60))
	}

	// (b) The presenter asks; a follower on each process answers; the
	// presenter's tally counts both.
	pres.send("e")
	pres.mustSee(t, wait, "a: ask the room")
	pres.send("5")
	pres.mustSee(t, wait, "Asking the room")
	for i, f := range []*screen{fol1, fol2} {
		f.mustSee(t, wait, "The presenter asks", "B2's call returns")
		f.send(string(rune('a' + i)))
		f.mustSee(t, wait, fmt.Sprintf("your answer: %c", 'a'+i))
	}
	pres.mustSee(t, wait, "2 attendees answered · 0 not yet")
	pres.send(keyEnter)
	pres.mustSee(t, wait, "The answer is b. 1 of 2 attendees answered it.")
	fol1.mustSee(t, wait, "You answered a; the answer is b.")
	fol2.mustSee(t, wait, "Right: the answer is b.")
	for _, s := range []*screen{pres, fol1, fol2} {
		s.send("\x1b") // the question down
	}

	// (c) Redis dies: every process keeps serving and says so to its
	// followers; the presenter moves on meanwhile; Redis comes back
	// empty on the same port, and followers catch up.
	from := fol2.written() // only what the outage brings counts
	red.kill()
	fol2.seeSince(t, from, "stage link down")
	late := open(p2.addr, "late", newKey(t), w, h, title, clock(start))
	if hp != nil {
		open(hp.addr, "later", newKey(t), w, h, title, clock(start)).send("q")
	}
	pres.keys(t, "/", "1", "9", ":", "4", "3", keyEnter)
	pres.waitHead(t, "19:43:00")
	fol1.waitHead(t, "19:43:00") // process 1's own followers never lost it
	back := time.Now()
	red = startRedis(t, red.port, hallACL...)
	fol2.waitHead(t, "19:43:00")
	t.Logf("Redis back to process 2's follower caught up: %v", time.Since(back))
	fol2.settledWithout(t, []string{"link down"}, "19:43:00")

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
	for _, s := range []*screen{pres, fol1} {
		if _, ok := s.ended(wait); !ok {
			t.Fatal("a session on the killed process did not end")
		}
	}
	if hp != nil {
		// docs/haproxy.cfg promises about 1.5 s; a loaded machine gets more.
		hp.waitReady(t, func() bool { return strings.Contains(hp.tail(20), " is DOWN") })
		// logged, not asserted: the machine's load decides how long
		t.Logf("haproxy took the killed process out in %v", time.Since(killed))
	}
	fol2.seeSince(t, from, "the presenter is away")
	again := open(entry, "follow", newKey(t), w, h, "FOLLOWING")
	again.waitHead(t, "19:43:00")
	pres = open(entry, "pat", pk, 120, 40, "PRESENTER")
	pres.waitHead(t, "19:43:00") // where it stood, not the start
	pres.send("L")
	for _, f := range []*screen{fol2, again} {
		f.waitHead(t, "19:43:01")
		f.settledWithout(t, []string{"away"}, "19:43:01")
	}
	for _, s := range []*screen{pres, fol2, again, late} {
		s.send("\x03")
		s.ended(wait)
	}
}

// hallACL gives the stage a Redis user confined to the hall's keys and
// channel, as docs/workshop.md suggests for a Redis that is shared.
var hallACL = []string{"--user", "inflight", "on", ">hall-pass", "~hall:*", "&hall:*", "+@all", "-@dangerous"}
