package tui

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
	"inflight/stage"
)

// A job is engine work that may take longer than a frame (playing to the
// end, a far seek, a fork, a comparison), run off the update loop. The
// engine is not safe for concurrent use, so a job works on a clone of the
// explorer and the clone is swapped in when the job succeeds; the screen
// keeps drawing the original meanwhile. The clone shares only the
// explorer's checkpoints, which are immutable, so Update never waits for
// a job: starting one returns at once, its end comes back as a
// jobDoneMsg, and cancelling drops it while its goroutine winds down.
// Every screen starts its long moves through startJob.
type job struct {
	id    int
	label string
	meter *engine.Meter
	base  int64            // the bytes the explorer held when the clone was taken
	clone *engine.Explorer // the clone worked on
	x     *engine.Explorer // what to swap in: the clone, or a new explorer
	start time.Time
	done  chan struct{} // closed when the work has stopped
	err   error         // set before done closes

	// what the job holds of the server's, given back once by whichever
	// of its goroutine's end and its drop (a cancel) comes last
	slots   chan struct{}
	pool    *engine.Pool
	mu      sync.Mutex
	ended   bool // the goroutine is done with the clone
	dropped bool // cancelled or replaced: its clone will not be swapped in

	// apply finishes the move in Update once the clone is in place; fail
	// reports an error (a budget refusal, a fork the engine refused).
	apply func(m *Model)
	fail  func(m *Model, err error)
	opens *stage.Screen // the stage's screen it opens (openScreen), kept on stage meanwhile

	waiting atomic.Bool  // queued for one of the server's work slots
	slot    bool         // holds a slot (the working goroutine's)
	queued  []tea.KeyMsg // keys typed meanwhile, answered when it ends
	refused string       // a key refused because the queue was full
	shown   bool         // its progress line is drawn: it outlived a tick

	// line, when set, is the progress line's text (a hunt's branches),
	// drawn instead of the events played; such a job needs a work slot
	// as soon as it runs past slotWait.
	line func() string

	gate chan struct{} // a test's: the goroutine waits for it to close before working
}

// maxQueued is how many keys typed during a job wait for it; more are
// refused with a hint.
const maxQueued = 8

// jobDoneMsg says job id has stopped; a message for any job but the
// current one is stale (cancelled, or replaced) and dropped.
type jobDoneMsg struct{ id int }

// jobTickMsg redraws job id's progress.
type jobTickMsg struct{ id int }

// slotWait is how long a job under a server runs before it can need a
// work slot: a short move never queues behind long jobs.
const slotWait = 30 * time.Millisecond

// jobRunner runs a session's jobs: one at a time, each on a clone of
// the explorer, paced under the server's work slots, its clone's memory
// charged to the pool until it is swapped in or dropped.
type jobRunner struct {
	cur   *job // the long move running, nil none
	seq   int
	slots chan struct{} // the server's work slots, nil none
	pool  *engine.Pool  // the server's memory pool, nil none
	gate  chan struct{} // a test's, handed to each job: see job.gate
}

// start runs work on a clone of x as the current job and returns at once:
// its end comes back as a jobDoneMsg.
func (r *jobRunner) start(x *engine.Explorer, label string, total int64, work func(x *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error), apply func(m *Model), fail func(m *Model, err error)) *job {
	return r.startLine(x, label, nil, total, work, apply, fail)
}

// startLine is start with a progress line of the job's own (nil: the
// events played).
func (r *jobRunner) startLine(x *engine.Explorer, label string, line func() string, total int64, work func(x *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error), apply func(m *Model), fail func(m *Model, err error)) *job {
	r.cancel()
	r.seq++
	c := x.Clone()
	j := &job{id: r.seq, label: label, meter: engine.NewMeter(), base: x.Bytes(), clone: c, x: c,
		start: time.Now(), done: make(chan struct{}), apply: apply, fail: fail, line: line,
		slots: r.slots, pool: r.pool, gate: r.gate}
	j.meter.SetTotal(total)
	j.meter.Pace = r.pacer(j)
	go j.run(work)
	r.cur = j
	return j
}

// startJob runs work on a clone of the explorer. work returns the explorer
// to swap in (the clone it was given, or a new one it opened under the
// job's meter; nil for work that only read, whose clone is dropped) and
// its own error. total is the expected number of events,
// for the progress bar (0: unknown). Every screen starts its long moves
// here.
func (m *Model) startJob(label string, total int64, work func(x *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error), apply func(m *Model), fail func(m *Model, err error)) tea.Cmd {
	m.play.pause()
	j := m.jobs.start(m.x, label, total, work, apply, fail)
	return tea.Batch(j.wait(), jobTick(j.id))
}

// startJobLine is startJob for work that plays worlds of its own (a
// hunt's branches): line is its progress line, and it calls the meter's
// Pace between pieces of work.
func (m *Model) startJobLine(label string, line func() string, work func(x *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error), apply func(m *Model), fail func(m *Model, err error)) tea.Cmd {
	m.play.pause()
	j := m.jobs.startLine(m.x, label, line, 0, work, apply, fail)
	return tea.Batch(j.wait(), jobTick(j.id))
}

// run does the work on the job's own goroutine. A panic in the engine
// becomes the job's error rather than taking down every session.
func (j *job) run(work func(x *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error)) {
	defer j.end()
	defer func() {
		if r := recover(); r != nil {
			j.err = fmt.Errorf("the explorer hit a bug doing this (%v); nothing was changed", r)
		}
	}()
	if j.gate != nil {
		<-j.gate
	}
	var out *engine.Explorer
	var werr error
	c := j.clone
	if err := c.Run(j.meter, func() { out, werr = work(c, j.meter) }); err != nil {
		j.err = err
		return
	}
	if werr != nil {
		j.err = werr
		return
	}
	j.x = out
}

// slotAfterPaces is how much work (in Paces, each 256 events: 20,480
// events, a few milliseconds) a job under a server does before it can
// need a work slot; it needs one once it has also run past slotWait. A short move on a busy (or race-checked) machine, slow but small,
// so never queues behind long jobs.
const slotAfterPaces = 80

// pacer is the job's Pace: past slotAfterPaces, a job under a server
// with few work slots waits for one (cancel still works while it waits),
// and a working job yields now and then so other sessions' keys are
// answered between its slices.
func (r *jobRunner) pacer(j *job) func() error {
	slots := r.slots
	n := 0
	return func() error {
		n++
		if slots != nil && !j.slot && (n > slotAfterPaces || j.line != nil) && time.Since(j.start) > slotWait {
			j.waiting.Store(true)
			select {
			case slots <- struct{}{}:
				j.slot = true
			case <-j.meter.Cancelled():
				j.waiting.Store(false)
				return engine.ErrCancelled
			}
			j.waiting.Store(false)
		}
		if n%16 == 0 {
			runtime.Gosched()
		}
		return nil
	}
}

// wait delivers the job's end to Update.
func (j *job) wait() tea.Cmd {
	return func() tea.Msg {
		<-j.done
		return jobDoneMsg{id: j.id}
	}
}

func jobTick(id int) tea.Cmd {
	return tea.Tick(frame*2, func(time.Time) tea.Msg { return jobTickMsg{id: id} })
}

// end is the job goroutine's last act: a job already dropped gives back
// what it holds now, as nobody will finish it.
func (j *job) end() {
	j.mu.Lock()
	j.ended = true
	drop := j.dropped
	j.mu.Unlock()
	if drop {
		j.release(false)
	}
	close(j.done)
}

// drop is a cancel's side, on the update loop: the job's result will not
// be used, and what it holds is given back now if its goroutine has
// ended, else by the goroutine when it does. Nothing waits.
func (j *job) drop() {
	j.mu.Lock()
	j.dropped = true
	ended := j.ended
	j.mu.Unlock()
	if ended {
		j.release(false)
	}
}

// release gives back the job's work slot and, unless its clone was
// swapped in, the memory the clone added to the server's pool. It runs
// once the goroutine is done with the clone.
func (j *job) release(kept bool) {
	if j.slot {
		<-j.slots
		j.slot = false
	}
	if j.pool == nil {
		return
	}
	switch {
	case !kept:
		j.pool.Release(max(0, j.clone.Bytes()-j.base))
	case j.x != j.clone:
		// a new explorer replaces the old one and its clone
		j.pool.Release(j.clone.Bytes())
	}
}

// finishJob swaps in a finished job's explorer and completes its move, or
// reports its error; then it answers the keys typed meanwhile, in order (a
// key that starts another job queues the rest behind it).
func (m *Model) finishJob(j *job) tea.Cmd {
	if m.jobs.cur == j {
		m.jobs.cur = nil
	}
	defer func() { j.queued = nil }()
	if j.err != nil {
		j.release(false)
		if j.fail != nil {
			j.fail(m, j.err)
		} else {
			m.flash = j.err.Error()
		}
	} else if j.x == nil { // it only read: the explorer stays as it was
		j.release(false)
		if j.apply != nil {
			j.apply(m)
		}
	} else {
		j.release(true)
		m.x = j.x
		if j.apply != nil {
			j.apply(m)
		}
		m.refresh(true)
	}
	var cmds []tea.Cmd
	for i, k := range j.queued {
		if m.jobs.cur != nil {
			m.jobs.cur.queued = append(m.jobs.cur.queued, j.queued[i:]...)
			break
		}
		cmds = append(cmds, m.updateKey(k))
	}
	return tea.Batch(tea.Batch(cmds...), m.follower.resume(m))
}

// cancel stops the running job, if any, without waiting for it: the
// explorer shares only immutable checkpoints with the job's clone, so it
// is usable at once, and the job's late jobDoneMsg is stale and dropped.
func (r *jobRunner) cancel() bool {
	j := r.cur
	if j == nil {
		return false
	}
	r.cur = nil
	j.meter.Cancel()
	j.drop()
	return true
}

// ticked answers job id's tick: the running job's progress line is drawn
// from its first tick on (a move done within it never shows one) and
// redrawn at the next; a stale tick ends there.
func (r *jobRunner) ticked(id int) tea.Cmd {
	if !r.current(id) {
		return nil
	}
	r.cur.shown = true
	return jobTick(id)
}

// current reports whether id is the running job's: a message for any
// other is stale (cancelled, or replaced) and dropped.
func (r *jobRunner) current(id int) bool { return r.cur != nil && r.cur.id == id }

// jobKey answers a key while a job runs: esc cancels it, q and ctrl+c
// cancel it and quit, ? still shows the keys; every other key waits for
// the job (a few of them; more are refused with a hint).
func (m *Model) jobKey(k tea.KeyMsg) tea.Cmd {
	j := m.jobs.cur
	switch {
	case key.Matches(k, m.keys.Quit):
		m.jobs.cancel()
		return tea.Quit
	case key.Matches(k, m.keys.Close):
		m.jobs.cancel()
		m.flash = "cancelled: " + j.label
		return m.follower.resume(m)
	case key.Matches(k, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		return nil
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste {
		return m.typedTogether(k)
	}
	if len(j.queued) >= maxQueued {
		j.refused = k.String()
		return nil
	}
	j.queued = append(j.queued, k)
	return nil
}

// view is the progress line of a running job, its bar in r's colours;
// "" before its first tick.
func (j *job) view(r *lipgloss.Renderer) string {
	if !j.shown {
		return ""
	}
	done, total := j.meter.Done(), j.meter.Total()
	var s string
	switch {
	case j.waiting.Load():
		s = fmt.Sprintf("%s: waiting for a turn (the server runs a few long jobs at a time)", j.label)
	case j.line != nil:
		s = j.line()
	case total > 0:
		bar := progress.New(progress.WithSolidFill("#5f87d7"), progress.WithoutPercentage(),
			progress.WithWidth(20), progress.WithColorProfile(r.ColorProfile()))
		s = fmt.Sprintf("%s %s %s/~%s events", j.label, bar.ViewAs(min(1, float64(done)/float64(total))), engine.Count(done), engine.Count(total))
	default:
		s = fmt.Sprintf("%s: %s events", j.label, engine.Count(done))
	}
	s += " · esc cancels, q quits"
	switch {
	case j.refused != "":
		s += " · " + j.refused + fmt.Sprintf(" refused: %d keys wait", maxQueued)
	case len(j.queued) > 0:
		s += fmt.Sprintf(" · %d key(s) wait", len(j.queued))
	}
	return s
}

// Release cancels the running job, if any, and gives back the memory the
// explorer and the kept ones hold in the server's pool: the session has
// ended.
func (m Model) Release() {
	m.leaveRoom() // poll_room.go
	if m.follower.left != nil {
		m.follower.left.close() // the wait on the stage ends with the session
	}
	m.jobs.cancel()
	m.charts.stop(m.shared)
	if m.shared != nil && m.shared.Pool != nil && m.x != nil {
		m.shared.Pool.Release(m.x.Bytes())
		for _, k := range m.kept { // the incidents it kept
			m.shared.Pool.Release(k.x.Bytes())
		}
	}
}
