package serve

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"inflight/engine"
	"inflight/incidents"
)

// forkOrders is what an attendee types for the largest fork: f, down to
// the orders knob, clear it (ctrl+u), the new count, enter, then G.
func forkOrders(t testing.TB, n int) string {
	t.Helper()
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, k := range engine.KnobsFor(spec) {
		ok = ok || k.Name == "orders"
	}
	if !ok {
		t.Fatal("thursday has no orders knob")
	}
	// the fork form filters its knobs by name: / orders, enter
	return "f/orders" + keyEnter + "\x15" + strconv.Itoa(n) + keyEnter
}

// attackers is how many sessions try the largest fork at once: a few by
// default, INFLIGHT_ATTACKERS for the workshop's fifty.
func attackers() int {
	if n, err := strconv.Atoi(os.Getenv("INFLIGHT_ATTACKERS")); err == nil && n > 0 {
		return n
	}
	return 6
}

// TestAttack is the workshop's worst minute: sessions try the largest
// fork (orders=50000000, enter, G), or the largest one the budget lets
// through and play it to the end, while another session keeps stepping.
// That session's every key must be answered and a new session get its
// first frame (within 200 ms and a second, when INFLIGHT_ATTACK_STRICT
// asks for the measurement), q must end an attacker's session while its
// job runs, and every byte the explorers held must be given back when
// they are gone.
func TestAttack(t *testing.T) {
	title, _ := thursday(t)
	key := newKey(t)
	addr, pool, pid := attackServer(t)

	var clients []interface{ Close() error }
	dial := func(user string) *term {
		c := mustDial(t, addr, user, key)
		clients = append(clients, c)
		return mustTerm(t, c, 120, 40)
	}
	victim := dial("victim")
	victim.mustSee(t, wait, title)

	n := attackers()
	largest := forkOrders(t, 50_000_000)
	// the biggest branch the session budget lets through: thursday plays
	// 13 events a message
	within := forkOrders(t, DefaultSessionMaxEvents/14)
	var terms []*term
	for i := range n {
		tm := dial(fmt.Sprintf("attacker%d", i))
		tm.mustSee(t, wait, title)
		terms = append(terms, tm)
	}
	start := time.Now()
	for i, tm := range terms {
		if i%2 == 0 {
			tm.send(largest)
		} else {
			tm.send(within)
		}
	}
	for i, tm := range terms {
		if i%2 == 0 {
			// the largest fork is refused in one line, naming the budget
			tm.mustSee(t, wait, "refused: this branch needs ~650M events, over the", "explorer's budget of 10M (raise with --session-max-events)")
			// esc closes the form, then G on the lesson's run: G once the
			// form has gone, or the terminal's input reads esc G as alt+G
			if err := tm.key("\x1b"); err != nil {
				t.Fatal(err)
			}
			tm.send("G")
		} else {
			tm.mustSee(t, wait, "forked main")
			tm.send("G")
		}
	}
	if n > 1 {
		terms[1].mustSee(t, wait, "playing to the end")
	}

	// the victim steps to and fro, a key at a time, for a few seconds
	var lat []time.Duration
	for i := range 40 {
		k := "l"
		if i%2 == 1 {
			k = "h"
		}
		victim.mark()
		t0 := time.Now()
		victim.send(k)
		if !victim.until(wait, func() bool { return len(victim.screen()) > 0 }) {
			t.Fatalf("the victim's key %d (%s) got no frame in %s during the attack", i, k, wait)
		}
		lat = append(lat, time.Since(t0)) // read only by the opt-in strict measurement below
	}

	// a newcomer arrives mid-attack
	t0 := time.Now()
	newcomer := dial("newcomer")
	newcomer.mustSee(t, wait, title)
	first := time.Since(t0)

	// an attacker whose job is running (or waiting its turn) quits
	if n > 1 {
		quitter := terms[1]
		t0 := time.Now()
		quitter.send("q")
		if _, ok := quitter.ended(wait); !ok {
			t.Fatal("q did not end a session whose job was running")
		}
		t.Logf("q with a job running: session ended in %s", time.Since(t0).Round(time.Millisecond))
	}

	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	worst := lat[len(lat)-1]
	mem := fmt.Sprintf("pool %s in use, heap in use %.0f MB (server and clients)", engine.Bytes(pool()), mb(heapInUse()))
	if pid > 0 {
		mem = fmt.Sprintf("server RSS %.0f MB, peak %.0f MB", mb(rss(t, pid)), mb(status(t, pid, "VmHWM:")))
	}
	t.Logf("%d attackers for %s: victim key to frame p50 %s, max %s; newcomer's first frame %s; %s",
		n, time.Since(start).Round(time.Millisecond), lat[len(lat)/2].Round(time.Millisecond), worst.Round(time.Millisecond),
		first.Round(time.Millisecond), mem)
	// The promise is 200 ms for a key and 1 s for a first frame, on a
	// quiet machine: a measurement asked for (INFLIGHT_ATTACK_STRICT=1,
	// the figures in the README), not the suite's, whose verdict must not
	// depend on what else the machine runs. The suite checks that every
	// key and the newcomer got their frames (above).
	if os.Getenv("INFLIGHT_ATTACK_STRICT") != "" {
		if limit := 200 * time.Millisecond * raceSlowdown; worst > limit {
			t.Errorf("the victim waited %s for a key during the attack, over %s", worst, limit)
		}
		if limit := time.Second * raceSlowdown; first > limit {
			t.Errorf("a new session's first frame took %s during the attack, over %s", first, limit)
		}
	}

	for _, c := range clients { // everyone hangs up
		c.Close()
	}
	if pid > 0 {
		return
	}
	waitUntil(t, func() bool { return pool() == 0 })
}

// attackServer is the server TestAttack attacks: in this process, or with
// INFLIGHT_ATTACK_RSS set, a separate server process whose memory is
// measured apart from the clients' (pid > 0).
func attackServer(t *testing.T) (addr string, pool func() int64, pid int) {
	if os.Getenv("INFLIGHT_ATTACK_RSS") == "" {
		s := startServer(t, Config{MaxSessions: 200}, nil)
		return s.addr, s.shared.Pool.Used, 0
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+filepath.Join(t.TempDir(), "host"))
	stdin, _ := child.StdinPipe()
	out, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); child.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line), func() int64 { return 0 }, child.Process.Pid
}

// status reads a figure in kB from /proc/pid/status.
func status(t testing.TB, pid int, field string) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// The server stops (as on SIGTERM) while attendees' long jobs run: every
// job is cancelled, every attendee gets the goodbye line, and no
// goroutine is left playing.
func TestShutdownDuringJobs(t *testing.T) {
	s := startServer(t, Config{}, nil)
	title, _ := thursday(t)
	within := forkOrders(t, DefaultSessionMaxEvents/14)
	var terms []*term
	for i := range 3 {
		tm := mustTerm(t, mustDial(t, s.addr, fmt.Sprintf("a%d", i), newKey(t)), 120, 40)
		tm.mustSee(t, wait, title)
		tm.send(within)
		tm.mustSee(t, wait, "forked main")
		tm.send("G")
		terms = append(terms, tm)
	}
	terms[0].mustSee(t, wait, "playing to the end")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	t0 := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("shutdown with 3 long jobs running or waiting: %s", time.Since(t0).Round(time.Millisecond))
	for i, tm := range terms {
		if _, ok := tm.ended(wait); !ok {
			t.Fatalf("session %d still open", i)
		}
		if got := tm.errOut.String(); !strings.Contains(got, "shutting down") {
			t.Errorf("session %d was told %q", i, got)
		}
	}
	waitUntil(t, func() bool { return s.shared.Pool.Used() == 0 })
}
