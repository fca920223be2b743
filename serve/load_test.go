package serve

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	gossh "golang.org/x/crypto/ssh"
)

// cycles is how many connect/disconnect cycles TestCycles runs: 500 by
// default, INFLIGHT_SOAK_CYCLES for a longer soak.
func cycles() int {
	if n, err := strconv.Atoi(os.Getenv("INFLIGHT_SOAK_CYCLES")); err == nil && n > 0 {
		return n
	}
	return 500 / raceSlowdown // the race detector's run: fewer, as concurrent
}

// TestCycles connects and disconnects attendees over and over, a third
// of them cut off mid-frame (the TCP connection closed as the first frame
// arrives), some mid-handshake, and checks that no goroutine is left
// behind and that the heap comes back near where it started.
func TestCycles(t *testing.T) {
	s := startServer(t, Config{MaxSessions: 64}, nil)
	title, _ := thursday(t)
	key := newKey(t)
	// Warm up once so lazily built state (incident bundle, styles) counts
	// in the baseline, then take it.
	if err := cycle(s.addr, key, title, 0); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return s.Sessions() == 0 })
	before := heap()
	ignore := goleak.IgnoreCurrent()

	n := cycles()
	const par = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := cycle(s.addr, key, title, i); err != nil {
					errs <- fmt.Errorf("cycle %d: %w", i, err)
				}
			}
		}()
	}
	for i := 1; i <= n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitUntil(t, func() bool { return s.Sessions() == 0 })
	goleak.VerifyNone(t, ignore)
	after := heap()
	t.Logf("%d cycles: heap %.1f MB before, %.1f MB after", n, mb(before), mb(after))
	if after > before+8<<20 {
		t.Errorf("heap grew from %.1f MB to %.1f MB over %d cycles", mb(before), mb(after), n)
	}
}

func heap() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// cycle is one attendee's visit, ended one of four ways by i: quitting,
// hanging up, the TCP connection cut as the first frame arrives, or cut
// in the middle of the SSH handshake.
func cycle(addr string, key gossh.Signer, title string, i int) error {
	raw, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		return err
	}
	defer raw.Close()
	if i%7 == 3 {
		raw.Write([]byte("SSH-2.0-half\r\n"))
		return nil // cut mid-handshake
	}
	cc, chans, reqs, err := gossh.NewClientConn(raw, addr, &gossh.ClientConfig{
		User: "cycler", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		return err
	}
	c := gossh.NewClient(cc, chans, reqs)
	defer c.Close()
	tm, err := openTerm(c, 80, 24)
	if err != nil {
		return err
	}
	switch i % 3 {
	case 0: // dropped mid-frame
		for t0 := time.Now(); tm.firstByte() == 0; time.Sleep(time.Millisecond) {
			if time.Since(t0) > wait {
				return fmt.Errorf("no first frame")
			}
		}
		raw.Close()
		return nil
	case 1: // quits
		if err := tm.waitFor(wait, title); err != nil {
			return err
		}
		tm.send("q")
		if _, ok := tm.ended(wait); !ok {
			return fmt.Errorf("q did not end the session")
		}
	default: // hangs up
		if err := tm.waitFor(wait, title); err != nil {
			return err
		}
		tm.close()
	}
	return nil
}

// childEnv makes the test binary a bare workshop server for TestLoad, so
// the server's memory is measured apart from the clients'.
const childEnv = "INFLIGHT_SERVE_CHILD"

// childProfileEnv names a file for the child server's CPU profile, e.g.
// INFLIGHT_SERVE_CHILD_CPUPROFILE=/tmp/serve.prof with TestStageLoad.
const childProfileEnv = "INFLIGHT_SERVE_CHILD_CPUPROFILE"

func runChildServer() int {
	if p := os.Getenv(childProfileEnv); p != "" { // where the server's time goes under load
		runtime.MemProfileRate = 1 << 10 // and, finely, its memory (the "heapprofile" command)
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	s, err := New(Config{HostKeyPath: os.Getenv(childEnv), MaxSessions: 100000, PresenterKeys: os.Getenv(childPresentersEnv),
		Stage: os.Getenv(childStageEnv)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(ln.Addr())
	go func() { // stdin closing is the parent saying stop; "cpu" asks for the CPU time used
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				break
			}
			switch strings.TrimSpace(line) {
			case "cpu":
				fmt.Println(int64(cpuTime()))
			case "mem": // the live heap after a collection and the resident set, in bytes
				fmt.Println(heap(), selfRSS())
			case "heapprofile": // where the live heap is, to childProfileEnv's file with ".heap"
				runtime.GC()
				if f, err := os.Create(os.Getenv(childProfileEnv) + ".heap"); err == nil {
					pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
				fmt.Println("ok")
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}()
	if err := s.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestLoad measures what docs/workshop.md quotes: the server's memory per
// idle session and the time from dialling to the first frame, in a
// separate server process. It runs only when asked:
//
//	INFLIGHT_LOAD=100 go test ./serve -run TestLoad -v
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("INFLIGHT_LOAD"))
	if n <= 0 {
		t.Skip("set INFLIGHT_LOAD=N to open N sessions and measure")
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+filepath.Join(t.TempDir(), "host"))
	stdin, _ := child.StdinPipe()
	out, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); child.Wait() }()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr = strings.TrimSpace(addr)
	title, _ := thursday(t)
	key := newKey(t)

	rss0 := rss(t, child.Process.Pid)
	var firsts []time.Duration
	var terms []*term
	for i := range n {
		t0 := time.Now()
		c, err := dial(addr, "load", key)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tm, err := openTerm(c, 120, 40)
		if err != nil {
			t.Fatal(err)
		}
		if err := tm.waitFor(wait, title); err != nil {
			t.Fatal(err)
		}
		firsts = append(firsts, time.Since(t0))
		terms = append(terms, tm)
		if i == 0 {
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(time.Second)
	rss1 := rss(t, child.Process.Pid)
	sort.Slice(firsts, func(i, j int) bool { return firsts[i] < firsts[j] })
	t.Logf("%d idle sessions: server RSS %.1f MB → %.1f MB, %.2f MB per session", n, mb(rss0), mb(rss1), mb(rss1-rss0)/float64(n))
	t.Logf("dial to first frame: p50 %s, p95 %s, max %s", firsts[len(firsts)/2].Round(time.Millisecond),
		firsts[len(firsts)*95/100].Round(time.Millisecond), firsts[len(firsts)-1].Round(time.Millisecond))

	// Everyone steps at once, about a key a second each, to see how an
	// active room feels: the time from a key to its frame.
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for i, tm := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				time.Sleep(time.Duration(700+(j*137+i*61)%600) * time.Millisecond)
				tm.mark()
				t0 := time.Now()
				tm.send("l")
				for len(tm.screen()) == 0 && time.Since(t0) < wait {
					time.Sleep(time.Millisecond)
				}
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("%d sessions stepping about once a second: key to frame p50 %s, p95 %s, max %s", n,
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*95/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
}

// rss is a process's resident memory, from /proc.
func rss(t testing.TB, pid int) uint64 {
	n, err := rssOf(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// selfRSS is this process's resident memory, 0 where /proc is not there.
func selfRSS() uint64 {
	n, _ := rssOf("/proc/self/status")
	return n
}

func rssOf(status string) (uint64, error) {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("%s: no VmRSS", status)
}
