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
