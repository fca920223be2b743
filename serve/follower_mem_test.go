package serve

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// mem is the child's live heap after a collection and its resident set.
func (c *child) mem(t testing.TB) (heap, rss uint64) {
	t.Helper()
	fmt.Fprintln(c.stdin, "mem")
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(line, &heap, &rss); err != nil {
		t.Fatalf("mem: %q: %v", line, err)
	}
	return heap, rss
}

// followersEnv sets how many followers BenchmarkFollowerMemory opens.
const followersEnv = "INFLIGHT_FOLLOWERS"

// BenchmarkFollowerMemory is what a follower costs the server: a server
// in a process of its own, a presenter on its stage, and a room of
// followers over SSH, half at 80×24 and half at 120×40, each showing the
// stage; the server's live heap (after a collection) and resident set
// before and after the room came in, per follower, with the stage paused
// and then playing at 60×. With
// INFLIGHT_SERVE_CHILD_CPUPROFILE=/tmp/serve.prof the server also writes
// its heap with the room in to /tmp/serve.prof.heap.
//
//	go test ./serve -run '^$' -bench FollowerMemory -benchtime 1x
//	INFLIGHT_FOLLOWERS=40 go test ./serve -run '^$' -bench FollowerMemory -benchtime 1x
func BenchmarkFollowerMemory(b *testing.B) { roomMemory(b, "follow", "FOLLOWING") }

// BenchmarkAttendeeMemory is the same for a room of attendees each with an
// explorer of their own, idle at the start.
func BenchmarkAttendeeMemory(b *testing.B) { roomMemory(b, "load", "") }

// roomMemory measures a room of INFLIGHT_FOLLOWERS (200) sessions as user,
// each seeing see (the title when "").
func roomMemory(b *testing.B, user, see string) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv(followersEnv)); err == nil && v > 0 {
		n = v
	}
	pk := newKey(b)
	c := startChild(b, writeKeys(b, pk), "")
	title, _ := thursday(b)
	if see == "" {
		see = title
	}
	key := newKey(b)
	pres := room(b, c.addr, "pat", pk, 1, title)[0]
	// the stage a while into the incident, paused: the room's frames
	// hold still while it is measured
	// (at 80 columns the header keeps the title and shows "▶ 60×", "⏸ 60×")
	pres.keys(b, "+", "+", " ")
	pres.mustSee(b, wait, "▶ 60×")
	pres.keys(b, " ")
	pres.mustSee(b, wait, "⏸ 60×")
	// one session of each size first: the stage's frames for the two
	// sizes are drawn once for the room, not per follower
	warm := room(b, c.addr, user, key, 2, see)
	b.ResetTimer()
	var heapPer, rssPer, heapPlaying, rssPlaying float64
	var before uint64
	for range b.N {
		h0, r0 := c.mem(b)
		before = r0
		sessions := room(b, c.addr, user, key, n, see)
		h1, r1 := c.mem(b)
		heapPer += (float64(h1) - float64(h0)) / float64(n)
		rssPer += (float64(r1) - float64(r0)) / float64(n)
		if user == "follow" { // and while the stage plays, frames going out ten a second
			pres.keys(b, " ")
			for _, tm := range sessions { // the header's play state, in words or compact
				if err := tm.waitForAny(wait, "playing 60×", "▶ 60×"); err != nil {
					b.Fatal(err)
				}
			}
			h2, r2 := c.mem(b)
			heapPlaying += (float64(h2) - float64(h0)) / float64(n)
			rssPlaying += (float64(r2) - float64(r0)) / float64(n)
			pres.keys(b, " ")
			pres.mustSee(b, wait, "⏸ 60×")
		}
		if os.Getenv(childProfileEnv) != "" {
			fmt.Fprintln(c.stdin, "heapprofile")
			if line, _ := c.out.ReadString('\n'); strings.TrimSpace(line) != "ok" {
				b.Fatalf("heapprofile: %q", line)
			}
		}
		b.StopTimer()
		leave(sessions)
		b.StartTimer()
	}
	b.ReportMetric(heapPer/float64(b.N)/(1<<10), "heap-KB/session")
	b.ReportMetric(rssPer/float64(b.N)/(1<<10), "RSS-KB/session")
	if user == "follow" {
		b.ReportMetric(heapPlaying/float64(b.N)/(1<<10), "heap-KB/session-playing")
		b.ReportMetric(rssPlaying/float64(b.N)/(1<<10), "RSS-KB/session-playing")
	}
	b.ReportMetric(float64(before)/(1<<20), "RSS-MB-before")
	b.ReportMetric(float64(n), "sessions")
	leave(warm)
	leave([]*term{pres})
}

// explorersEnv sets how many attendees BenchmarkExplorerMemory opens.
const explorersEnv = "INFLIGHT_EXPLORERS"

// BenchmarkExplorerMemory is what an exploring attendee costs the server:
// a room of INFLIGHT_EXPLORERS (20) attendees over SSH, half at 80×24 and
// half at 120×40, each with an explorer of its own that goes to the first
// bookmark, steps, forks there, opens a message's life story, closes it
// and opens the comparison of main and the fork (which plays both to
// their end); the server's live heap (after a collection) and resident
// set per attendee, idle once connected and then with all that held.
//
//	go test ./serve -run '^$' -bench ExplorerMemory -benchtime 1x
func BenchmarkExplorerMemory(b *testing.B) {
	n := 20
	if v, err := strconv.Atoi(os.Getenv(explorersEnv)); err == nil && v > 0 {
		n = v
	}
	c := startChild(b, writeKeys(b, newKey(b)), "")
	title, _ := thursday(b)
	key := newKey(b)
	warm := room(b, c.addr, "load", key, 2, title)
	explore(b, warm)
	b.ResetTimer()
	var heapIdle, rssIdle, heapWork, rssWork float64
	var before uint64
	for range b.N {
		h0, r0 := c.mem(b)
		before = r0
		sessions := room(b, c.addr, "load", key, n, title)
		h1, r1 := c.mem(b)
		explore(b, sessions)
		h2, r2 := c.mem(b)
		heapIdle += (float64(h1) - float64(h0)) / float64(n)
		rssIdle += (float64(r1) - float64(r0)) / float64(n)
		heapWork += (float64(h2) - float64(h0)) / float64(n)
		rssWork += (float64(r2) - float64(r0)) / float64(n)
		b.StopTimer()
		ctrlC(sessions)
		b.StartTimer()
	}
	b.ReportMetric(heapIdle/float64(b.N)/(1<<20), "heap-MB/session-idle")
	b.ReportMetric(rssIdle/float64(b.N)/(1<<20), "RSS-MB/session-idle")
	b.ReportMetric(heapWork/float64(b.N)/(1<<20), "heap-MB/session-exploring")
	b.ReportMetric(rssWork/float64(b.N)/(1<<20), "RSS-MB/session-exploring")
	b.ReportMetric(float64(before)/(1<<20), "RSS-MB-before")
	b.ReportMetric(float64(n), "sessions")
	ctrlC(warm)
}

// explore takes each session through the first bookmark, a step, a fork,
// a life story and a comparison, each key once the one before has shown
// its effect on every session.
func explore(t testing.TB, sessions []*term) {
	t.Helper()
	screens := make([]*screen, len(sessions))
	for i, tm := range sessions {
		screens[i] = newScreen(tm, 80, 24) // room's sizes
		if i%2 == 1 {
			screens[i] = newScreen(tm, 120, 40)
		}
	}
	step := func(keys, see, gone string) {
		t.Helper()
		for _, s := range screens {
			if err := s.send(keys); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range screens {
			if !s.until(wait, func() bool {
				g := s.grid()
				return strings.Contains(g, see) && (gone == "" || !strings.Contains(g, gone))
			}) {
				t.Fatalf("no %q after %q:\n%s", see, keys, s.grid())
			}
		}
	}
	step("]", "19:52:00", "")
	step("L", "19:52:01", "")
	step("f", "enter creates the branch", "")
	step(keyEnter, "main ▸", "enter creates the branch")
	step(keyEnter, "Life story of", "")
	step("\x1b", "19:52:01", "Life story of")
	step("c", "Compare", "")
}

// ctrlC ends sessions with ctrl-c, which quits whatever screen is open (q
// closes the comparison first).
func ctrlC(sessions []*term) {
	for _, tm := range sessions {
		tm.send("\x03")
	}
	for _, tm := range sessions {
		tm.ended(wait)
	}
}
