package tui

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// The chart covers a branch's whole run: a headless pass plays the branch
// to its end apart from the explorer (one world, no checkpoints), and the
// chart is drawn once it has (most runs within the first frame), on an
// axis that is the run's from then on. Passes are shared, per
// incident, seed, settings and forks, by every session of the process, so
// a workshop's attendees pay for the lesson's run once.

// chartData is one branch's whole-run chart, filled in by its pass.
type chartData struct {
	mu      sync.Mutex
	samples []engine.Sample
	end     engine.Time // the last event, once done
	done    bool
	err     error // the pass stopped early (the budget)
	used    time.Time
	meter   *engine.Meter // the pass's, to stop it
	ready   chan struct{} // closed when done
}

// view is the chart as far as it is known.
func (d *chartData) view() (samples []engine.Sample, end engine.Time, done bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.samples, d.end, d.done
}

func (d *chartData) publish(s []engine.Sample) {
	d.mu.Lock()
	d.samples = s
	d.mu.Unlock()
}

// chartCache holds the charts of the process's branches, the least
// recently used dropped past chartKeep.
type chartCache struct {
	mu sync.Mutex
	m  map[chartKey]*chartData
}

const chartKeep = 256

type chartKey struct {
	spec *engine.Spec
	seed uint64
	line string // settings and forks
}

func newChartCache() *chartCache { return &chartCache{m: map[chartKey]*chartData{}} }

// get returns the chart for k, and whether the caller must start its pass.
func (c *chartCache) get(k chartKey) (*chartData, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.m[k]; ok {
		d.mu.Lock()
		d.used = time.Now()
		d.mu.Unlock()
		return d, false
	}
	if len(c.m) >= chartKeep {
		var oldest chartKey
		var t time.Time
		for k, d := range c.m {
			d.mu.Lock()
			if d.done && (t.IsZero() || d.used.Before(t)) {
				oldest, t = k, d.used
			}
			d.mu.Unlock()
		}
		if !t.IsZero() {
			delete(c.m, oldest)
		}
	}
	d := &chartData{used: time.Now(), ready: make(chan struct{})}
	c.m[k] = d
	return d, true
}

// peek returns the chart for k if there is one.
func (c *chartCache) peek(k chartKey) (*chartData, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[k]
	return d, ok
}

// drop forgets chart d.
func (c *chartCache) drop(d *chartData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if e == d {
			delete(c.m, k)
		}
	}
}

// chartKeyOf names branch b's run: its incident, seed, settings and forks.
func chartKeyOf(x *engine.Explorer, b *engine.Branch) chartKey {
	var s strings.Builder
	for _, st := range x.Set {
		fmt.Fprintf(&s, "+%s=%s", st.Knob, st.Value)
	}
	for _, c := range b.Path()[1:] {
		fmt.Fprintf(&s, "/%d@%d", c.ForkPos, c.ForkAt)
		for _, st := range c.Changes {
			fmt.Fprintf(&s, "+%s=%s", st.Knob, st.Value)
		}
		if o := c.Override; o != nil {
			fmt.Fprintf(&s, "!%d=%d", o.Index, o.Value)
		}
	}
	return chartKey{spec: x.Spec, seed: x.Seed, line: s.String()}
}

// chartTickMsg redraws a chart that is still filling in.
type chartTickMsg struct{ d *chartData }

// chartWatch is a session's side of the whole-run charts: the chart of
// the branch on screen, and the passes the session started (when it ends,
// those still running are stopped and forgotten; another session needing
// one starts it again).
type chartWatch struct {
	cur    *chartData // the whole-run chart of the branch under the cursor
	curFor chartKey   // the branch it is for
	passes []*chartData
}

// view is the chart of x's branch as far as it is known.
func (c *chartWatch) view(x *engine.Explorer) chartView {
	if c.cur == nil || c.curFor != chartKeyOf(x, x.Branch()) {
		// a job has just swapped the branch: its own series until the
		// next update looks its chart up
		return chartView{samples: x.Branch().Series()}
	}
	s, end, done := c.cur.view()
	return chartView{samples: s, end: end, done: done}
}

// watch makes sure the branch under x's cursor has its whole-run chart,
// starting its pass if no session has yet, and keeps redrawing it while
// it fills in. The pass starts from a clone of the branch's fork state,
// an immutable checkpoint, so it may run beside any job. Nothing waits
// for the pass: the chart's ticks redraw it as it fills in.
func (c *chartWatch) watch(x *engine.Explorer, sh *Shared) tea.Cmd {
	b := x.Branch()
	k := chartKeyOf(x, b)
	if c.cur != nil && k == c.curFor {
		return nil
	}
	d, start := sh.charts.get(k)
	c.cur, c.curFor = d, k
	if start {
		// before its fork point a fork's run is its parent's
		var head []engine.Sample
		if b.Parent != nil {
			src := b.Series()
			if pd, ok := sh.charts.peek(chartKeyOf(x, b.Parent)); ok {
				if s, _, done := pd.view(); done {
					src = s
				}
			}
			for _, s := range src {
				if s.Pos <= b.ForkPos {
					head = append(head, s)
				}
			}
		}
		d.publish(head)
		d.meter = engine.NewMeter()
		d.meter.Memory = engine.NewAccount(engine.Limits{Bytes: sh.Budget.Bytes, BytesFlag: sh.Budget.BytesFlag}, sh.Pool)
		d.meter.Memory.Of = "the chart's pass"
		c.passes = append(c.passes, d)
		go runChart(d, x.ChartStart(b), head, sh.Budget.Events, sh.slots)
	}
	select {
	case <-d.ready: // charted already: drawn whole at once
		return nil
	default:
	}
	return chartTick(d)
}

// onTick redraws a chart still filling in, until it is done or no longer
// the one on screen.
func (c *chartWatch) onTick(msg chartTickMsg) tea.Cmd {
	if msg.d != c.cur {
		return nil
	}
	if _, _, done := msg.d.view(); done {
		return nil
	}
	return chartTick(msg.d)
}

// filling is the tick that keeps redrawing the chart on screen while its
// pass runs, nil when it is done.
func (c *chartWatch) filling() tea.Cmd {
	if c.cur == nil {
		return nil
	}
	if _, _, done := c.cur.view(); done {
		return nil
	}
	return chartTick(c.cur)
}

// stop stops the passes this session started that still run.
func (c *chartWatch) stop(sh *Shared) {
	for _, d := range c.passes {
		if _, _, done := d.view(); !done {
			d.meter.Cancel()
			sh.charts.drop(d)
		}
	}
	c.passes = nil
}

// runChart is a chart pass, on its own goroutine. It counts against the
// explorer's event budget (it stops there, the chart covering what it
// reached) and, under a server, waits for a work slot like a long job.
func runChart(d *chartData, w *engine.World, head []engine.Sample, limit int64, slots chan struct{}) {
	mt := d.meter
	t0, held := time.Now(), false
	n := 0
	mt.Pace = func() error {
		if slots != nil && !held && n > slotAfterPaces && time.Since(t0) > slotWait {
			select {
			case slots <- struct{}{}:
				held = true
			case <-mt.Cancelled():
				return engine.ErrCancelled
			}
		}
		if n++; n%16 == 0 {
			runtime.Gosched()
		}
		return nil
	}
	join := func(s []engine.Sample) []engine.Sample { return append(append([]engine.Sample(nil), head...), s...) }
	var samples []engine.Sample
	var last engine.Time
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("chart: %v", r)
			}
		}()
		samples, last, err = engine.ChartRun(w, limit, mt, func(s []engine.Sample) { d.publish(join(s)) })
		if err == nil {
			samples = withEnd(samples, w)
		}
	}()
	if held {
		<-slots
	}
	d.mu.Lock()
	d.samples, d.done, d.err = join(samples), true, err
	d.end = last // the last event: decimated samples may stop short of it
	d.mu.Unlock()
	close(d.ready)
}

// withEnd is a whole run's samples with the state at its end added, which
// decimation may have dropped: the chart's maxima are the run's.
func withEnd(samples []engine.Sample, w *engine.World) []engine.Sample {
	waiting, taken := w.Family().Counts(w)
	end := engine.Sample{Pos: w.Pos, T: w.Now, Queue: int32(waiting), InFlight: int32(taken), DLQ: int32(w.DLQLen()), Effects: w.Stats.Effects}
	if n := len(samples); n > 0 && samples[n-1].Pos == end.Pos {
		return samples
	}
	return append(samples, end)
}

func chartTick(d *chartData) tea.Cmd {
	return tea.Tick(frame*2, func(time.Time) tea.Msg { return chartTickMsg{d} })
}
