package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/stage"
)

// bigRun is thursday with 300,000 orders: G is about 4M events, far
// more than a frame.
func bigRun(t *testing.T) Model {
	t.Helper()
	return newTest(t, Options{Set: []engine.Setting{{Knob: "orders", Value: "300000"}}}, 120, 40)
}

// send sends one key and, while a job runs, the tick a frame later that
// draws its progress line, as the program would. Update never waits for
// a job, so nothing here waits either (BenchmarkJobEsc times a key).
func send(t *testing.T, m Model, k string) (Model, tea.Cmd) {
	t.Helper()
	nm, cmd := m.Update(keyMsg(k))
	m = nm.(Model)
	if j := m.jobs.cur; j != nil {
		nm, _ = m.Update(jobTickMsg{id: j.id})
		m = nm.(Model)
	}
	return m, cmd
}

// gated holds the goroutine of every job m starts at its start, until
// the returned func is called: a test then knows the job has not ended.
func gated(m Model) (Model, func()) {
	g := make(chan struct{})
	m.jobs.gate = g
	var once sync.Once
	return m, func() { once.Do(func() { close(g) }) }
}

func TestJobRunsOffUpdateAndEscCancels(t *testing.T) {
	m := bigRun(t)
	pos := m.x.Pos()
	x0 := m.x
	nm, _ := m.Update(keyMsg("G"))
	m = nm.(Model)
	j := m.jobs.cur
	if j == nil {
		t.Fatal("G on 300,000 orders finished inside Update")
	}
	if strings.Contains(m.View(), "esc cancels") {
		t.Fatalf("a progress line before the job's first tick:\n%s", m.View())
	}
	nm, _ = m.Update(jobTickMsg{id: j.id}) // a frame later
	m = nm.(Model)
	v := m.View()
	if !strings.Contains(v, "playing to the end") || !strings.Contains(v, "esc cancels") || !strings.Contains(v, "events") {
		t.Fatalf("no progress line while G runs:\n%s", v)
	}
	m, _ = send(t, m, "esc")
	if m.jobs.cur != nil || m.x != x0 || m.x.Pos() != pos {
		t.Fatalf("esc: job %v, explorer swapped %v, pos %d (was %d)", m.jobs.cur, m.x != x0, m.x.Pos(), pos)
	}
	if m.flash != "cancelled: playing to the end" {
		t.Errorf("flash %q", m.flash)
	}
	// the explorer is usable at once, beside the job winding down
	m = press(m, "l")
	if m.x.Pos() != pos+1 {
		t.Fatalf("l after cancel: pos %d", m.x.Pos())
	}
	// the job's late message is stale and changes nothing
	<-j.done
	nm, _ = m.Update(jobDoneMsg{id: j.id})
	if m2 := nm.(Model); m2.x != m.x || m2.x.Pos() != pos+1 || m2.flash != m.flash {
		t.Fatal("a cancelled job's result was applied")
	}
}

// A cancel does not wait for the job: with its goroutine held at its
// start, esc still answers, and the job's memory goes back to the pool
// once the goroutine ends.
func TestCancelDoesNotWait(t *testing.T) {
	m, release := gated(bigRun(t))
	pool := &engine.Pool{}
	m.jobs.pool = pool
	nm, _ := m.Update(keyMsg("G"))
	m = nm.(Model)
	j := m.jobs.cur
	if j == nil {
		t.Fatal("no job")
	}
	nm, _ = m.Update(keyMsg("esc")) // would never return if it waited
	m = nm.(Model)
	select {
	case <-j.done:
		t.Fatal("the job ended while held")
	default:
	}
	if m.jobs.cur != nil || m.flash != "cancelled: playing to the end" {
		t.Fatalf("esc: job %v, flash %q", m.jobs.cur, m.flash)
	}
	release()
	<-j.done
	if pool.Used() != 0 {
		t.Errorf("the cancelled job left %d bytes in the pool", pool.Used())
	}
}

func TestKeysAnsweredWhileJobRuns(t *testing.T) {
	m := bigRun(t)
	m, _ = send(t, m, "G")
	if m.jobs.cur == nil {
		t.Fatal("no job")
	}
	m, _ = send(t, m, "g") // a move waits for the job
	m, _ = send(t, m, "?") // help answers at once
	if !m.help.ShowAll {
		t.Error("? did not toggle the help while a job runs")
	}
	if !strings.Contains(m.View(), "1 key(s) wait") {
		t.Errorf("the waiting key is not shown:\n%s", m.View())
	}
	for range maxQueued + 2 {
		m, _ = send(t, m, "l")
	}
	if !strings.Contains(m.View(), fmt.Sprintf("l refused: %d keys wait", maxQueued)) {
		t.Errorf("no refusal once the queue is full:\n%s", m.View())
	}
	m = settle(m)
	// G played to the end, then g took the cursor back, then the queued ls
	if !m.x.Branch().Done() || m.x.Pos() != maxQueued-1 {
		t.Fatalf("after the job: done %v, pos %d, want %d", m.x.Branch().Done(), m.x.Pos(), maxQueued-1)
	}
}

func TestQuitWhileJobRuns(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m := bigRun(t)
		m, _ = send(t, m, "G")
		j := m.jobs.cur
		if j == nil {
			t.Fatal("no job")
		}
		m, cmd := send(t, m, k)
		if cmd == nil {
			t.Fatalf("%s while a job runs: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s while a job runs does not quit", k)
		}
		select {
		case <-j.meter.Cancelled():
		default:
			t.Fatalf("%s left the job running", k)
		}
		if m.jobs.cur != nil {
			t.Fatal("job still set")
		}
		<-j.done
	}
}

func TestStaleJobResultDropped(t *testing.T) {
	m := bigRun(t)
	m, _ = send(t, m, "G")
	first := m.jobs.cur
	m, _ = send(t, m, "esc")
	m, _ = send(t, m, "G")
	second := m.jobs.cur
	if second == nil || second.id == first.id {
		t.Fatal("no second job")
	}
	nm, _ := m.Update(jobDoneMsg{id: first.id})
	m = nm.(Model)
	if m.jobs.cur != second {
		t.Fatal("the first job's message ended the second")
	}
	m = settle(m)
	if !m.x.Branch().Done() {
		t.Fatal("the second G did not reach the end")
	}
}

func TestForkOverBudgetRefused(t *testing.T) {
	m := press(start(t), "]", "]", "]", "f")
	i := knobRow(t, m, "orders")
	m.fork.inputs[i].SetValue("50000000")
	m = press(m, "enter")
	want := "refused: this branch needs ~650M events, over the explorer's budget of 20M (raise with --max-events)"
	if m.state != stateFork || m.fork.err != want {
		t.Fatalf("state %s, err %q\nwant %q", m.state, m.fork.err, want)
	}
	if len(m.x.Branches()) != 1 {
		t.Fatal("a refused fork made a branch")
	}
	if !strings.Contains(m.View(), want) {
		t.Error("the refusal is not on screen")
	}
}

// A branch the estimate lets through is still stopped at the budget while
// it plays, with a line saying so, and the explorer is left as it was.
func TestBudgetStopsJob(t *testing.T) {
	m := bigRun(t)
	m.x.Limit(engine.Limits{Events: 100_000, EventsFlag: "--max-events"}, nil)
	x0, pos := m.x, m.x.Pos()
	m, _ = send(t, m, "G")
	m = settle(m)
	want := "stopped: this branch passed the explorer's budget of 100k events (raise with --max-events)"
	if m.x != x0 || m.x.Pos() != pos || m.flash != want {
		t.Fatalf("G past the budget: swapped %v, pos %d, flash %q", m.x != x0, m.x.Pos(), m.flash)
	}
}

func knobRow(t *testing.T, m Model, name string) int {
	t.Helper()
	for i, k := range m.fork.knobs {
		if k.Name == name {
			return i
		}
	}
	t.Fatalf("no knob %s", name)
	return -1
}

// BenchmarkJobEsc times esc while G plays a big run: Update answers
// it without waiting for the job.
func BenchmarkJobEsc(b *testing.B) {
	m := newTest(b, Options{Set: []engine.Setting{{Knob: "orders", Value: "300000"}}}, 120, 40)
	benchEsc(b, m, func(m Model) Model {
		nm, _ := m.Update(keyMsg("G"))
		return nm.(Model)
	})
}

// benchEsc times esc on the job start starts, each time afresh; the job's
// goroutine is waited for outside the timer.
func benchEsc(b *testing.B, m Model, start func(Model) Model) {
	for b.Loop() {
		b.StopTimer()
		m = start(m)
		j := m.jobs.cur
		b.StartTimer()
		nm, _ := m.Update(keyMsg("esc"))
		b.StopTimer()
		m = nm.(Model)
		<-j.done
		b.StartTimer()
	}
}

// Autoplay plays on the explorer itself, under the budget: at the budget
// it pauses with the line saying so.
func TestAutoplayStopsAtBudget(t *testing.T) {
	m := bigRun(t)
	m.x.Limit(engine.Limits{Events: 30_000, EventsFlag: "--max-events"}, nil)
	m.play.speed = len(speeds) - 1 // as fast as the engine goes
	m = press(m, "space")
	for i := 0; i < 1000 && m.play.on; i++ {
		nm, _ := m.Update(playTickMsg{gen: m.play.gen})
		m = nm.(Model)
	}
	if m.play.on || m.flash != "stopped: this branch passed the explorer's budget of 30000 events (raise with --max-events)" {
		t.Fatalf("playing %v at event %d, flash %q", m.play.on, m.x.Pos(), m.flash)
	}
	if m.x.Branch().Len() > 30_000 {
		t.Fatalf("the branch was played to event %d, past the budget", m.x.Branch().Len())
	}
}

// A follower whose job is running does not spin on the stage: it waits on
// it again once the job is done.
func TestFollowerWaitsOutJob(t *testing.T) {
	s := NewStage()
	f := newTest(t, Options{Stage: s, Follow: true, Set: []engine.Setting{{Knob: "orders", Value: "300000"}}}, 120, 40)
	endMove(f.x).run(&f)
	if f.jobs.cur == nil {
		t.Fatal("no job")
	}
	s.Publish(stage.State{Code: "x"}) // the presenter moves
	nm, cmd := f.Update(stageMsg{tag: f.follower.tag, gen: 1})
	f = nm.(Model)
	if cmd != nil {
		t.Fatal("a stage message during a job started another wait")
	}
	j := f.jobs.cur
	<-j.done
	nm, cmd = f.Update(jobDoneMsg{id: j.id})
	f = nm.(Model)
	if cmd == nil {
		t.Fatal("the follower did not wait on the stage again after the job")
	}
}
