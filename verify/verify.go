// Package verify runs the lesson's real cashback test against real
// systems and compares it with the simulator: a Redis stream and consumer
// group, a SQLite wallet database in a temporary folder, and a consumer
// process that really dies between its COMMIT and its XACK and is
// restarted. Which deliveries die is taken from the simulator's own trace,
// so reality and the model see the same crashes and their figures must be
// equal, not just alike.
package verify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"
)

// Amount is what each event credits, in rupees: the model's too
// (TestModelSchedule pins the model's balance to it).
const Amount = 100

// Options configure a verify run.
type Options struct {
	Redis   string  // a running server's address; "" starts a private redis-server
	Events  int     // stream entries
	CrashP  float64 // chance a delivery dies after its commit, before its XACK
	Seed    uint64  // the simulator's seed, when SeedSet
	SeedSet bool

	// Consumer is the command that runs one consumer process; the
	// environment variable ConsumerEnv is added to it. It must reach
	// ConsumerMain (the inflight binary: `inflight verify`; a test binary:
	// its TestMain).
	Consumer []string

	Model Model // nil: NewModel(Events, CrashP, Seed, SeedSet)

	// OTLP is an OTLP/HTTP endpoint (see ParseEndpoint) the real test's
	// spans are sent to: the parent's XADDs and the consumers' work. "":
	// no spans.
	OTLP string

	Out      io.Writer // the report
	Log      io.Writer // progress: a bar when Terminal, else plain lines
	Terminal bool      // Log is a terminal
}

// Side is one dedupe setting's outcome, real and modelled.
type Side struct {
	Dedupe      bool
	Expected    int64 // events × 100
	Actual      int64 // the real wallet's balance
	Crashes     int64 // real consumer deaths
	Restarts    int   // consumer processes started
	Processed   int64 // rows in the real processed table (dedupe)
	Pending     int64 // real pending entries at the end (want 0)
	Redelivered int64 // entries pending when a consumer was restarted (XPENDING), each delivered again
	Model       ModelRun
	RealCrashes []Crash
	Elapsed     time.Duration
	Problems    []string // why reality and model disagree; empty: they agree
}

// Result is a whole run.
type Result struct {
	Sides   []Side
	Seed    uint64
	Model   string
	Redis   string // address
	Version string // redis-server --version, private servers only
	Elapsed time.Duration
}

// Agree reports whether reality and model agree on both sides.
func (r *Result) Agree() bool {
	for _, s := range r.Sides {
		if len(s.Problems) > 0 {
			return false
		}
	}
	return len(r.Sides) > 0
}

// Run runs the test, dedupe=False then dedupe=True, and writes the
// lesson's lines to o.Out. An error means the test could not run (no
// redis-server: ErrNoRedisServer); disagreement is in the Result.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if len(o.Consumer) == 0 {
		return nil, errors.New("verify: no consumer command")
	}
	producer := ""
	if o.OTLP != "" {
		endpoint, err := ParseEndpoint(o.OTLP)
		if err != nil {
			return nil, fmt.Errorf("--otlp %q: %w", o.OTLP, err)
		}
		o.OTLP, producer = endpoint, instanceID()
	}
	model := o.Model
	seed := o.Seed
	if model == nil {
		var err error
		if model, seed, err = NewModel(o.Events, o.CrashP, o.Seed, o.SeedSet); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "inflight-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	res := &Result{Seed: seed, Model: model.Describe(), Redis: o.Redis}
	if o.Redis == "" {
		srv, err := startServer(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer srv.Stop()
		res.Redis, res.Version = srv.Addr, srv.Version
	}
	rdb := newClient(res.Redis)
	defer rdb.Close()
	// a command waiting on the server does not watch ctx: closing the
	// client on an interruption ends it at once
	defer context.AfterFunc(ctx, func() { rdb.Close() })()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis at %s: %w", res.Redis, err)
	}
	where := "private " + res.Version
	if o.Redis != "" {
		where = "given server"
	}
	fmt.Fprintf(o.Out, "redis %s (%s); SQLite wallet in a temporary folder; %s\n", res.Redis, where, res.Model)
	fmt.Fprintf(o.Out, "%d events of ₹%d to u1, crash_p %g after COMMIT before XACK, XREADGROUP COUNT %d\n", o.Events, Amount, o.CrashP, Batch)

	bar := newProgress(o.Log, o.Terminal, 2*o.Events)
	defer bar.stop()
	// A fresh suffix: a given server may hold other runs' keys.
	var rb [4]byte
	rand.Read(rb[:])
	run := hex.EncodeToString(rb[:])
	for i, dedupe := range []bool{false, true} {
		mr, err := model.Run(dedupe)
		if err != nil {
			return nil, err
		}
		bar.base = i * o.Events
		// the producer's spans of each run under a resource of its own,
		// which names the run
		var spans *tracer
		if o.OTLP != "" {
			if spans, err = newTracer(o.OTLP, "cashback-producer", producer, sideName(dedupe)); err != nil {
				return nil, err
			}
		}
		side, err := runSide(ctx, o, rdb, spans, dir, run, dedupe, mr, bar)
		if err == nil {
			err = spans.shutdown()
		}
		spans.shutdown() // after an error too
		if err != nil {
			return nil, err
		}
		res.Sides = append(res.Sides, side)
		bar.println(fmt.Sprintf("%s done: %d crashes, %d consumer processes, %.2fs", dedupeLabel(dedupe), side.Crashes, side.Restarts, side.Elapsed.Seconds()))
	}
	bar.stop()
	for _, s := range res.Sides {
		fmt.Fprintln(o.Out, s.Line())
	}
	for _, s := range res.Sides {
		for _, p := range s.Problems {
			fmt.Fprintf(o.Out, "  %s: %s\n", dedupeLabel(s.Dedupe), p)
		}
	}
	res.Elapsed = time.Since(start)
	if res.Agree() {
		fmt.Fprintf(o.Out, "reality and model agree (%.1fs)\n", res.Elapsed.Seconds())
	} else {
		fmt.Fprintf(o.Out, "reality and model DISAGREE (%.1fs)\n", res.Elapsed.Seconds())
	}
	return res, nil
}

func dedupeLabel(d bool) string {
	if d {
		return "dedupe=True"
	}
	return "dedupe=False"
}

// Line is the lesson's line with the simulator's figures beside it.
func (s *Side) Line() string {
	label := dedupeLabel(s.Dedupe) + ":"
	verdict := "agree"
	if len(s.Problems) > 0 {
		verdict = "DISAGREE"
	}
	return fmt.Sprintf("%-13s crashes=%-4d expected balance=%d  actual=%-8d  simulator: crashes=%-4d balance=%-8d %s",
		label, s.Crashes, s.Expected, s.Actual, s.Model.NCrash, s.Model.Balance, verdict)
}

// runSide publishes the events, runs consumer processes until the stream
// is drained, and compares.
func runSide(ctx context.Context, o Options, rdb *redis.Client, spans *tracer, dir, run string, dedupe bool, mr ModelRun, bar *meter) (Side, error) {
	start := time.Now()
	side := Side{Dedupe: dedupe, Expected: int64(o.Events) * Amount, Model: mr}
	name := "f"
	if dedupe {
		name = "t"
	}
	key := "inflight:verify:" + run + ":" + name
	group, consumer := "wallet", "consumer-1"
	defer rdb.Del(context.Background(), key)

	dbPath := filepath.Join(dir, "wallet-"+name+".db")
	if err := createWallet(dbPath); err != nil {
		return side, fmt.Errorf("wallet database: %w", err)
	}
	if err := rdb.XGroupCreateMkStream(ctx, key, group, "0").Err(); err != nil {
		return side, fmt.Errorf("XGROUP CREATE: %w", err)
	}
	// With spans, each entry carries its producer span's context in a
	// traceparent field, and the span ends once XADD returned its id.
	var sends []trace.Span
	var adds []*redis.StringCmd
	for lo := 0; lo < o.Events; lo += 500 {
		pipe := rdb.Pipeline()
		sends, adds = sends[:0], adds[:0]
		for i := lo; i < min(lo+500, o.Events); i++ {
			values := []any{"event", "credit", "user", "u1", "amount", strconv.Itoa(Amount), "n", strconv.Itoa(i)}
			if spans != nil {
				s, tp := spans.send(key)
				sends = append(sends, s)
				values = append(values, "traceparent", tp)
			}
			adds = append(adds, pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: values}))
		}
		_, err := pipe.Exec(ctx)
		for i, s := range sends {
			spans.sent(s, adds[i])
		}
		if err != nil {
			return side, fmt.Errorf("XADD: %w", err)
		}
		if err := spans.failed(); err != nil {
			return side, err
		}
	}
	cfg := consumerConfig{Addr: rdbAddr(rdb), Key: key, Group: group, Consumer: consumer, DB: dbPath,
		Dedupe: dedupe, Batch: Batch, Crashes: mr.Crashes, OTLP: o.OTLP}
	cfgPath := filepath.Join(dir, "consumer-"+name+".json")
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		return side, err
	}

	bar.println(fmt.Sprintf("%s: %d entries in stream %s, the simulator crashes %d deliveries; running consumers", dedupeLabel(dedupe), o.Events, key, len(mr.Crashes)))
	// Each scheduled crash kills one process, so a correct run starts
	// exactly len(crashes)+1; a few more than that means a loop.
	limit := len(mr.Crashes) + 3
	for {
		if side.Restarts >= limit {
			side.Problems = append(side.Problems, fmt.Sprintf("gave up after %d consumer processes (%d crashes scheduled)", side.Restarts, len(mr.Crashes)))
			break
		}
		if side.Restarts > 0 {
			// what the restarted consumer re-reads (XREADGROUP … 0),
			// counted by Redis, not by the consumer or its spans
			p, err := rdb.XPending(ctx, key, group).Result()
			if err != nil {
				return side, fmt.Errorf("XPENDING: %w", err)
			}
			side.Redelivered += p.Count
		}
		side.Restarts++
		bar.setLabel(fmt.Sprintf("%s  crashes=%d", dedupeLabel(dedupe), side.Crashes))
		code, crashed, err := runConsumer(ctx, o.Consumer, cfgPath, bar)
		if err != nil {
			return side, err
		}
		if code == 0 {
			break
		}
		if code != ExitCrash || crashed == nil {
			return side, fmt.Errorf("consumer exited with code %d", code)
		}
		side.Crashes++
		side.RealCrashes = append(side.RealCrashes, *crashed)
	}
	var err error
	if side.Actual, side.Processed, err = readWallet(dbPath); err != nil {
		return side, fmt.Errorf("reading the wallet: %w", err)
	}
	if p, err := rdb.XPending(ctx, key, group).Result(); err == nil {
		side.Pending = p.Count
	} else {
		return side, fmt.Errorf("XPENDING: %w", err)
	}
	side.Elapsed = time.Since(start)
	side.Problems = append(side.Problems, side.compare(o.Events)...)
	return side, nil
}

func rdbAddr(r *redis.Client) string { return r.Options().Addr }

// compare checks the lesson's equalities and reality against the model.
func (s *Side) compare(events int) []string {
	var p []string
	if s.Pending != 0 {
		p = append(p, fmt.Sprintf("%d entries still pending at the end", s.Pending))
	}
	if s.Dedupe {
		if s.Actual != s.Expected {
			p = append(p, fmt.Sprintf("with dedupe the balance is %d, want exactly %d", s.Actual, s.Expected))
		}
		if s.Processed != int64(events) {
			p = append(p, fmt.Sprintf("%d processed ids, want %d", s.Processed, events))
		}
	} else if s.Actual-s.Expected != Amount*s.Crashes {
		p = append(p, fmt.Sprintf("actual − expected = %d, want %d × %d crashes = %d", s.Actual-s.Expected, Amount, s.Crashes, Amount*s.Crashes))
	}
	if s.Actual != s.Model.Balance {
		p = append(p, fmt.Sprintf("real balance %d, simulator %d", s.Actual, s.Model.Balance))
	}
	if s.Crashes != s.Model.NCrash {
		p = append(p, fmt.Sprintf("%d real crashes, simulator %d", s.Crashes, s.Model.NCrash))
	}
	if !slices.Equal(s.RealCrashes, s.Model.Crashes) {
		p = append(p, "crashed on "+crashList(s.RealCrashes)+", the simulator's schedule was "+crashList(s.Model.Crashes))
	}
	return p
}

func crashList(cs []Crash) string {
	var b strings.Builder
	for i, c := range cs {
		if i == 8 {
			fmt.Fprintf(&b, " … (%d)", len(cs))
			break
		}
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%d/%d", c.Entry, c.Delivery)
	}
	if len(cs) == 0 {
		return "nothing"
	}
	return b.String() + " (entry/delivery)"
}

// runConsumer starts one consumer process and waits for it. It returns its
// exit code and, if it died on purpose, which delivery. The consumer runs
// in a process group of its own, killed as a whole when ctx ends and
// cleared when the consumer exits, so nothing it started lingers.
func runConsumer(ctx context.Context, command []string, cfgPath string, bar *meter) (int, *Crash, error) {
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(os.Environ(), ConsumerEnv+"="+cfgPath)
	cmd.SysProcAttr = childProcAttr()
	cmd.Cancel = func() error { return signalGroup(cmd.Process, true) }
	// a child of the consumer holding its output open must not hold us
	cmd.WaitDelay = 2 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	out := &progressReader{bar: bar}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		return 0, nil, fmt.Errorf("starting the consumer: %w", err)
	}
	err := cmd.Wait()
	_ = signalGroup(cmd.Process, true) // whatever it started
	crashed := out.result()
	if ctx.Err() != nil {
		return 0, nil, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		code := ee.ExitCode()
		if code != ExitCrash {
			return code, nil, fmt.Errorf("consumer exited with code %d: %s", code, strings.TrimSpace(stderr.String()))
		}
		return code, crashed, nil
	}
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return 0, nil, fmt.Errorf("consumer: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return 0, nil, nil
}

// progressReader reads a consumer's progress lines as it writes them:
// "a N" (entries up to N acknowledged) and "c N D" (died on delivery D of
// entry N).
type progressReader struct {
	mu      sync.Mutex
	bar     *meter
	partial []byte
	crashed *Crash
}

func (p *progressReader) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.line(string(p.partial[:i]))
		p.partial = p.partial[i+1:]
	}
	if len(p.partial) > 4096 { // not a progress line: drop it
		p.partial = p.partial[:0]
	}
	return len(b), nil
}

func (p *progressReader) line(l string) {
	f := strings.Fields(l)
	switch {
	case len(f) == 2 && f[0] == "a":
		if n, err := strconv.Atoi(f[1]); err == nil {
			p.bar.set(n + 1)
		}
	case len(f) == 3 && f[0] == "c":
		n, err1 := strconv.Atoi(f[1])
		d, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil {
			p.crashed = &Crash{Entry: n, Delivery: d}
		}
	}
}

func (p *progressReader) result() *Crash {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.partial) > 0 { // a last line without its newline
		p.line(string(p.partial))
		p.partial = nil
	}
	return p.crashed
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		q := p[:min(len(p), l.n)]
		l.n -= len(q)
		l.w.Write(q)
	}
	return len(p), nil
}

// meter shows how far the consumers got: a bar on a terminal, plain
// lines otherwise.
type meter struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	total    int
	base     int
	done     atomic.Int64
	quit     chan struct{}
	wg       sync.WaitGroup
	stopped  bool
	bar      barRenderer
	label    string // beside the bar: which side, how many crashes
}

// setLabel changes the words beside the bar.
func (p *meter) setLabel(s string) {
	p.mu.Lock()
	p.label = s
	p.mu.Unlock()
}

func (p *meter) set(n int) { p.done.Store(int64(p.base + n)) }

// println prints a plain line (cleared bar first on a terminal).
func (p *meter) println(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintln(p.w, "verify: "+s)
	if p.terminal && !p.stopped {
		p.draw()
	}
}

func (p *meter) draw() {
	fmt.Fprint(p.w, "\r"+p.bar.render(float64(p.done.Load())/float64(max(p.total, 1)))+"  "+p.label+"\x1b[K")
}

func (p *meter) stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	close(p.quit)
	p.wg.Wait()
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func newProgress(w io.Writer, terminal bool, total int) *meter {
	p := &meter{w: w, terminal: terminal, total: total, quit: make(chan struct{})}
	if !terminal {
		return p
	}
	p.bar = newBar()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.mu.Lock()
				if !p.stopped {
					p.draw()
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}
