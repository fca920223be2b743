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
// before and after the room came in, per follower. With
// INFLIGHT_SERVE_CHILD_CPUPROFILE=/tmp/serve.prof the server also writes
// its heap with the room in to /tmp/serve.prof.heap.
//
//	go test ./serve -run '^$' -bench FollowerMemory -benchtime 1x
//	INFLIGHT_FOLLOWERS=40 go test ./serve -run '^$' -bench FollowerMemory -benchtime 1x
func BenchmarkFollowerMemory(b *testing.B) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv(followersEnv)); err == nil && v > 0 {
		n = v
	}
	pk := newKey(b)
	c := startChild(b, writeKeys(b, pk), "")
	title, _ := thursday(b)
	key := newKey(b)
	pres := room(b, c.addr, "pat", pk, 1, title)[0]
	// the stage a while into the incident, paused: the room's frames
	// hold still while it is measured
	pres.keys(b, "+", "+", " ")
	pres.mustSee(b, wait, "playing 60×")
	pres.keys(b, " ")
	pres.mustSee(b, wait, "paused")
	// one follower of each size first: the stage's frames for the two
	// sizes are drawn once for the room, not per follower
	warm := room(b, c.addr, "follow", key, 2, "FOLLOWING")
	b.ResetTimer()
	var heapPer, rssPer float64
	for range b.N {
		h0, r0 := c.mem(b)
		fol := room(b, c.addr, "follow", key, n, "FOLLOWING")
		h1, r1 := c.mem(b)
		heapPer += (float64(h1) - float64(h0)) / float64(n)
		rssPer += (float64(r1) - float64(r0)) / float64(n)
		if os.Getenv(childProfileEnv) != "" {
			fmt.Fprintln(c.stdin, "heapprofile")
			if line, _ := c.out.ReadString('\n'); strings.TrimSpace(line) != "ok" {
				b.Fatalf("heapprofile: %q", line)
			}
		}
		b.StopTimer()
		leave(fol)
		b.StartTimer()
	}
	b.ReportMetric(heapPer/float64(b.N)/(1<<10), "heap-KB/follower")
	b.ReportMetric(rssPer/float64(b.N)/(1<<10), "RSS-KB/follower")
	b.ReportMetric(float64(n), "followers")
	leave(warm)
	leave([]*term{pres})
}
