package sqs

import (
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
)

// The queue's operator actions: what a person on call can do to it during
// the incident, as a fork (engine.FamilyActions).
var actionSpecs = []engine.ActionSpec{
	{Name: "redrive", Arg: "unfinished",
		Doc: "move the dead letters back to the tail of the queue as new messages (receive count 0): all of them, or with =unfinished only those whose work was never done (no email sent); nothing is repaired, so a message that failed fails again"},
	{Name: "crash", Arg: "WORKER", NeedsArg: true,
		Doc: "kill the worker now (crash=B2): its handler stops where it is, the message it held stays invisible until its lease expires, and the supervisor restarts it after restart_after"},
	{Name: "workers", Arg: "+N", NeedsArg: true,
		Doc: "start N more workers now (workers=+2), on the last box, polling at once; at most 64 in all"},
}

// maxWorkers is the most workers a queue has: the dispatcher's idle mask
// is 64 bits.
const maxWorkers = 64

// ActionSpecs lists the queue's operator actions.
func (q *Family) ActionSpecs() []engine.ActionSpec { return actionSpecs }

// CheckAction refuses an argument the queue cannot take.
func (q *Family) CheckAction(w *engine.World, a engine.Action) error {
	switch a.Name {
	case "redrive":
		if a.Arg != "" && a.Arg != "unfinished" {
			return fmt.Errorf("action %q: redrive takes all the dead letters, or =unfinished for those whose work was never done", a.String())
		}
	case "crash":
		if q.worker(a.Arg) < 0 {
			return fmt.Errorf("action %q: incident %s has no worker %q (its workers are %s)", a.String(), w.Spec().ID, a.Arg, q.workerNames(w))
		}
	case "workers":
		n, err := q.addCount(a.Arg)
		if err != nil {
			return err
		}
		if have := q.workerCount(w); have+n > maxWorkers {
			return fmt.Errorf("action %q: %d workers and %d more is more than %d", a.String(), have, n, maxWorkers)
		}
	}
	return nil
}

func (q *Family) addCount(arg string) (int, error) {
	if !strings.HasPrefix(arg, "+") {
		return 0, fmt.Errorf("action \"workers=%s\": want +N, the workers to add (like workers=+2); removing workers is not an action yet", arg)
	}
	n, err := strconv.Atoi(arg[1:])
	if err != nil || n < 1 || n > maxWorkers {
		return 0, fmt.Errorf("action \"workers=%s\": want +N with N from 1 to %d", arg, maxWorkers)
	}
	return n, nil
}

// worker is the index of the worker named name, or -1. Before the run
// starts its workers they are known from the incident.
func (q *Family) worker(name string) int {
	for i := range q.workers {
		if q.workers[i].Name == name {
			return i
		}
	}
	return -1
}

func (q *Family) workerCount(w *engine.World) int { return len(q.workers) }

func (q *Family) workerNames(w *engine.World) string {
	var names []string
	for _, wk := range q.workers {
		names = append(names, wk.Name)
	}
	return strings.Join(names, ", ")
}

// ActionWords tell what a checked action does on w's state.
func (q *Family) ActionWords(w *engine.World, a engine.Action) string {
	switch a.Name {
	case "redrive":
		if a.Arg == "unfinished" {
			n := 0
			for _, d := range w.Truth().DeadLetters(w.DLQLen()) {
				if d.Effects == 0 {
					n++
				}
			}
			return fmt.Sprintf("redrive %d unfinished dead letters (of %d)", n, w.DLQLen())
		}
		return fmt.Sprintf("redrive %d dead letters", w.DLQLen())
	case "crash":
		return "crash " + a.Arg
	case "workers":
		n, _ := q.addCount(a.Arg)
		return fmt.Sprintf("add %d workers", n)
	}
	return a.String()
}

// Act carries out a checked action now.
func (q *Family) Act(w *engine.World, a engine.Action) {
	switch a.Name {
	case "redrive":
		q.redrive(w, a.Arg == "unfinished")
	case "crash":
		q.operatorCrash(w, q.worker(a.Arg))
	case "workers":
		n, _ := q.addCount(a.Arg)
		q.addWorkers(w, n)
	}
}

// redrive is an operator's plain redrive: the dead letters (or only the
// unfinished ones) go back to the tail of the queue as new messages, not
// repaired. The event names no operator of the incident (-1).
func (q *Family) redrive(w *engine.World, unfinished bool) {
	var keep func(engine.DeadLetter) bool
	if unfinished {
		keep = func(d engine.DeadLetter) bool { return d.Effects == 0 }
	}
	n := w.Truth().RedriveIf(keep, func(id int32, m *engine.Msg) {
		m.Receives = 0
		r := q.rec(id)
		q.setVisible(m, r)
		q.enqueue(id, r)
	})
	w.Emit(engine.EvRedrive, -1, -1, 0, int64(n), -1)
	q.wake(w)
	w.Truth().WatchAge()
}

// operatorCrash kills worker wi where its handler stands. A worker that is
// dead or not started has nothing to kill: the action does nothing.
func (q *Family) operatorCrash(w *engine.World, wi int) {
	wk := &q.workers[wi]
	switch wk.State {
	case WBusy:
		wk.gen++ // its handler's steps still due are dropped
		q.crash(w, wi, engine.CrashOperator)
	case WIdle:
		q.idle--
		wk.gen++
		wk.State, wk.Since = WDead, w.Now
		w.Stats.Crashes++
		schedule(w, w.Now+q.k.RestartAfter, opRestart, 0, wi, 0)
		w.Emit(engine.EvCrash, -1, wi, 0, int64(w.Now+q.k.RestartAfter), engine.CrashOperator)
	}
}

// addWorkers starts n more workers on the last box, idle at once.
func (q *Family) addWorkers(w *engine.World, n int) {
	box := "W"
	if len(q.workers) > 0 {
		box = q.workers[len(q.workers)-1].Box
	}
	started := q.workers[0].State != WOff
	k := 0
	for i := range q.workers {
		if q.workers[i].Box == box {
			k++
		}
	}
	for i := 0; i < n && len(q.workers) < maxWorkers; i++ {
		k++
		name := fmt.Sprintf("%s%d", box, k)
		for q.worker(name) >= 0 {
			k++
			name = fmt.Sprintf("%s%d", box, k)
		}
		wk := Worker{Name: name, Box: box, Msg: -1, CallEnd: engine.Never}
		if started {
			wk.State, wk.Since = WIdle, w.Now
			q.idle++
		}
		q.workers = append(q.workers, wk)
	}
	w.Emit(engine.EvStart, -1, -1, 0, int64(n), 0)
	q.wake(w)
}
