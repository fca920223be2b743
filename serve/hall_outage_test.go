package serve

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// words is a screen with its runs of spaces and line breaks as one space:
// a sentence wrapped over lines reads whole.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// waitWords waits until the screen, read as words, matches re, and
// returns the match's groups; it wakes when output comes (term.until).
func (s *screen) waitWords(t testing.TB, re *regexp.Regexp) []string {
	t.Helper()
	var m []string
	if !s.until(wait, func() bool { m = re.FindStringSubmatch(words(s.grid())); return m != nil }) {
		t.Fatalf("the screen never showed %q:\n%s", re, s.grid())
	}
	return m
}

// TestHallOutageNews stops the hall's Redis while the presenter plays on
// process 1 and starts it again, and checks what each session on each
// process is told, during the outage and after it, over SSH at 80×24
// and 120×40: process 2's followers that the stage stopped reaching them
// at a moment and since when, process 1's that they follow live and the
// room is split, the presenter that followers elsewhere cannot see the
// stage; an attendee on their own copy that it is their own copy; once
// Redis is back, each says so once (process 2: caught up from T to T′),
// and then the normal state.
func TestHallOutageNews(t *testing.T) {
	pk := newKey(t)
	red, p1, p2, host := startHall(t, "--presenter-keys", writeKeys(t, pk))
	title, _ := thursday(t)
	open := screenOpener(t, host)
	pres := open(p1.addr, "pat", pk, 120, 40, title, "PRESENTER")
	small1 := open(p1.addr, "follow", newKey(t), 80, 24, "FOLLOWING")
	big1 := open(p1.addr, "follow", newKey(t), 120, 40, "FOLLOWING")
	small2 := open(p2.addr, "follow", newKey(t), 80, 24, "FOLLOWING")
	big2 := open(p2.addr, "follow", newKey(t), 120, 40, "FOLLOWING")
	own2 := open(p2.addr, "follow", newKey(t), 80, 24, "FOLLOWING")
	own2.send("l") // a step: their own copy
	own2.waitWords(t, regexp.MustCompile(`\[own copy`))
	on1, on2 := []*screen{small1, big1}, []*screen{small2, big2}

	// the presenter plays at 30×; every follower plays along
	pres.send("+")
	pres.waitWords(t, regexp.MustCompile(`30×`))
	pres.send(" ")
	pres.waitWords(t, regexp.MustCompile(`playing 30×|▶ 30×`))
	for _, f := range append(on1, on2...) {
		f.waitWords(t, regexp.MustCompile(`playing 30×|▶ 30×`))
	}

	red.kill()
	// process 2: stopped at T, since a wall time, and it stays at T
	stopped := regexp.MustCompile(`stage link down: the stage stopped reaching this server at (\d\d:\d\d:\d\d) \(since (\d\d:\d\d:\d\d)\) and goes on when the link is back`)
	var at time.Duration
	for i, f := range on2 {
		m := f.waitWords(t, stopped)
		if i > 0 && hms(m[1]) != at {
			t.Fatalf("process 2's followers stopped at different moments: %v and %s", at, m[1])
		}
		at = hms(m[1])
		if c := f.clock(t); c != at {
			t.Fatalf("the stage stopped at %s, but the header shows %v:\n%s", m[1], c, f.grid())
		}
	}
	// process 1: live, the room split; the presenter told
	split := regexp.MustCompile(`following live · stage link down since \d\d:\d\d:\d\d: the hall's other servers cannot hear the presenter \(the room is split\)`)
	for _, f := range on1 {
		f.waitWords(t, split)
		if !f.until(wait, func() bool { return f.clock(t) >= at+30*time.Second }) { // plays on past where process 2 stopped
			t.Fatalf("process 1's follower did not play on past %v:\n%s", at+30*time.Second, f.grid())
		}
	}
	pres.waitWords(t, regexp.MustCompile(`stage link down: followers on other servers cannot see the stage \(the room is split\)`))
	for _, f := range on2 {
		if c := f.clock(t); c != at || !stopped.MatchString(words(f.grid())) {
			t.Fatalf("process 2's follower moved while the link was down (stopped at %v):\n%s", at, f.grid())
		}
	}
	if g := own2.grid(); !strings.Contains(g, "[own copy") || strings.Contains(g, "FOLLOWING") || strings.Contains(g, "stage link") {
		t.Fatalf("an attendee on their own copy is not told so, or told of a stage they do not see:\n%s", g)
	}

	// Redis back (empty): process 2 catches up, from T to where the
	// presenter is, and says so once; process 1 says the room is whole.
	red = startRedis(t, red.port, hallACL...)
	back := regexp.MustCompile(`stage link back: caught up from (\d\d:\d\d:\d\d) to (\d\d:\d\d:\d\d)`)
	for _, f := range on2 {
		m := f.waitWords(t, back)
		if hms(m[1]) != at || hms(m[2]) <= at+30*time.Second {
			t.Fatalf("caught up from %s to %s; stopped at %v and the presenter played on past %v", m[1], m[2], at, at+30*time.Second)
		}
	}
	for _, f := range on1 {
		f.waitWords(t, regexp.MustCompile(`stage link back: the hall's other servers follow the presenter again`))
	}
	pres.waitWords(t, regexp.MustCompile(`stage link back: followers on other servers see the stage again`))

	// then the normal state: the presenter pauses, and every follower
	// shows the presenter's moment with no word of the link
	pres.send(" ")
	if !pres.until(wait, func() bool { return strings.Contains(pres.head(), "⏸") }) {
		t.Fatalf("the presenter did not pause:\n%s", pres.grid())
	}
	stop := pres.clock(t)
	for _, f := range append(on1, on2...) {
		if !f.until(wait, func() bool {
			g := f.grid()
			return f.clock(t) == stop && strings.Contains(g, "FOLLOWING") && !strings.Contains(g, "stage link") && !strings.Contains(g, "room is split")
		}) {
			t.Fatalf("a follower did not come back to the normal stage at %v:\n%s", stop, f.grid())
		}
	}
	if g := own2.grid(); !strings.Contains(g, "[own copy") || strings.Contains(g, "stage link") {
		t.Fatalf("the own-copy attendee's screen changed with the link:\n%s", g)
	}
	for _, s := range append(append(on1, on2...), pres, own2) {
		s.send("\x03")
		s.ended(wait)
	}
}
