package serve

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// childPresentersEnv gives the child server of the load tests its
// presenter keys file, and childStageEnv its --stage URL.
const (
	childPresentersEnv = "INFLIGHT_SERVE_CHILD_PRESENTERS"
	childStageEnv      = "INFLIGHT_SERVE_CHILD_STAGE"
)

// child is a workshop server in a process of its own, so that its CPU
// time is measured apart from the clients'.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	addr  string
}

// startChild starts a child server with presenters as its presenter keys
// file and, when stage is not "", its stage carried through that Redis.
func startChild(t testing.TB, presenters, stage string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+filepath.Join(t.TempDir(), "host"),
		childPresentersEnv+"="+presenters, childStageEnv+"="+stage)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard // one log line per connect: 200 of them
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, out: bufio.NewReader(out)}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	addr, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	c.addr = strings.TrimSpace(addr)
	return c
}

// cpu is the CPU time the child has used so far (getrusage, user+system).
func (c *child) cpu(t testing.TB) time.Duration {
	t.Helper()
	fmt.Fprintln(c.stdin, "cpu")
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(n)
}

// cores is the child's CPU use over d of wall time, in cores.
func (c *child) cores(t *testing.T, d time.Duration) float64 {
	t.Helper()
	c0, t0 := c.cpu(t), time.Now()
	time.Sleep(d) // the measurement's window, the point: no wait for anything
	return float64(c.cpu(t)-c0) / float64(time.Since(t0))
}

// room opens n sessions as user, half at 80×24 and half at 120×40, and
// waits until each shows every one of subs.
func room(t testing.TB, addr, user string, key gossh.Signer, n int, subs ...string) []*term {
	t.Helper()
	var terms []*term
	for i := range n {
		c, err := dial(addr, user, key)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		w, h := 80, 24
		if i%2 == 1 {
			w, h = 120, 40
		}
		tm, err := openTerm(c, w, h)
		if err != nil {
			t.Fatal(err)
		}
		terms = append(terms, tm)
	}
	for _, tm := range terms {
		tm.mustSee(t, wait, subs...)
	}
	return terms
}

func leave(terms []*term) {
	for _, tm := range terms {
		tm.send("q")
	}
	for _, tm := range terms {
		tm.ended(wait)
	}
}

// TestStageLoad measures the README's capacity table: the server's CPU
// (getrusage of its own process over wall time) with a room of idle
// attendees, the same room following a presenter who plays at 60×, and
// attendees each playing their own explorer at 60×. It runs only when
// asked, with the room's size:
//
//	INFLIGHT_STAGE_LOAD=200 go test ./serve -run TestStageLoad -v -timeout 20m
func TestStageLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("INFLIGHT_STAGE_LOAD"))
	if n <= 0 {
		t.Skip("set INFLIGHT_STAGE_LOAD=N to measure a room of N")
	}
	const measure = 10 * time.Second
	pk := newKey(t)
	c := startChild(t, writeKeys(t, pk), "")
	title, _ := thursday(t)
	key := newKey(t)

	idle := room(t, c.addr, "load", key, n, title)
	// Kept: a measurement's lead-in (the tail of n connections' setup
	// out of the idle figure), not a wait for something to happen; this
	// opt-in test asserts CPU time, never wall time.
	time.Sleep(2 * time.Second)
	cIdle := c.cores(t, measure)
	t.Logf("%d idle attendees: %.3f cores", n, cIdle)
	leave(idle)

	pres := room(t, c.addr, "pat", pk, 1, title)[0]
	fol := room(t, c.addr, "follow", key, n, "FOLLOWING")
	pres.keys(t, "+", "+", " ")
	pres.mustSee(t, wait, "playing 60×")
	for _, tm := range fol {
		tm.mustSee(t, wait, "playing 60×")
	}
	cFollow := c.cores(t, measure)
	pres.mustSee(t, wait, "playing 60×") // still playing: the branch did not end while measured
	t.Logf("%d followers, the presenter playing at 60×: %.3f cores", n, cFollow)
	leave(fol)
	leave([]*term{pres})

	k := max(1, n/10)
	alone := room(t, c.addr, "load", key, k, title)
	for _, tm := range alone {
		tm.keys(t, "+", "+", " ")
	}
	for _, tm := range alone {
		tm.mustSee(t, wait, "playing 60×")
	}
	cAlone := c.cores(t, measure)
	t.Logf("%d attendees each playing alone at 60×: %.3f cores", k, cAlone)
	leave(alone)

	t.Logf("attendees per core: idle %.0f, following %.0f, exploring alone %.0f",
		float64(n)/max(cIdle, 0.001), float64(n)/max(cFollow, 0.001), float64(k)/max(cAlone, 0.001))
	if cFollow > 0.5 && n >= 200 {
		t.Errorf("%d followers used %.2f cores; the target is half of one", n, cFollow)
	}
}
