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
	{Name: "repair",
		Doc: "run the repair script now (christmas-friday's operator runs it when the fortieth lands): it gives every dead letter its missing field and redrives it to the tail of the queue, so a message that raised KeyError goes through"},
	{Name: "no_script",
		Doc: "the repair script does not run on this branch (christmas-friday's operator stands down): the forty stay in the drawer unless you redrive or repair them"},
	{Name: "purge",
		Doc: "PurgeQueue: delete every message in the queue now, the visible ones and those in flight (SQS deletes in-flight messages too; it may take up to 60 s, the model deletes at once); the dead letter queue is a queue of its own and keeps its letters; a worker on a purged message works on and its ack deletes nothing; a purged message whose email never left is lost"},
	{Name: "crash", Arg: "WORKER", NeedsArg: true, Repeat: engine.RepeatPerTarget,
		Doc: "kill the worker now (crash=B2): its handler stops where it is, the message it held stays invisible until its lease expires, and the supervisor restarts it after restart_after"},
	{Name: "wedge", Arg: "WORKER", NeedsArg: true, Repeat: engine.RepeatPerTarget,
		Doc: "the worker's provider call never returns (wedge=B2): the call in flight now, or else the next one it makes. The process is alive, so the supervisor never restarts it: it is stuck for good (crash=B2 ends it). Without a heartbeat its lease runs out and the message goes to another worker; with one, the renewal thread cannot tell a wedged call from a slow one and holds the lease for ever"},
	{Name: "workers", Arg: "+N/-N", NeedsArg: true, Repeat: engine.RepeatAdds,
		Doc: "start N more workers now (workers=+2, on the last box, polling at once; at most 64 ever), or stop N (workers=-2): idle ones first, the newest first, then dead ones (not restarted), then busy ones once their message is done (a graceful stop: a wedged one never gets there); at least one stays"},
}

// The Aux of the queue's wedge event: who wedged the call.
const (
	wedgeByChance   = 0 // wedge_p
	wedgeByOperator = 1 // wedge=W on a call in flight
	wedgeArmed      = 2 // wedge=W on a worker not calling: its next call (Msg -1)
)

// maxWorkers is the most workers a queue has: the dispatcher's idle mask
// is 64 bits.
const maxWorkers = 64

// ActionSpecs lists the queue's operator actions.
func (q *Family) ActionSpecs() []engine.ActionSpec {
	if q.script {
		return actionSpecs
	}
	return noScriptSpecs
}

// noScriptSpecs are the actions of an incident that runs no repair script.
var noScriptSpecs = func() []engine.ActionSpec {
	var out []engine.ActionSpec
	for _, a := range actionSpecs {
		if a.Name != "no_script" {
			out = append(out, a)
		}
	}
	return out
}()

// CheckAction refuses an argument the queue cannot take.
func (q *Family) CheckAction(w *engine.World, a engine.Action) error {
	switch a.Name {
	case "redrive":
		if a.Arg != "" && a.Arg != "unfinished" {
			return fmt.Errorf("action %q: redrive takes all the dead letters, or =unfinished for those whose work was never done", a.String())
		}
	case "no_script":
		if !hasScript(w.Spec()) {
			return fmt.Errorf("action %q: incident %s runs no repair script", a.String(), w.Spec().ID)
		}
		if q.scriptOff {
			return fmt.Errorf("action %q: the repair script is stood down already", a.String())
		}
	case "crash", "wedge":
		wi := q.worker(a.Arg)
		if wi < 0 {
			return fmt.Errorf("action %q: incident %s has no worker %q (its workers are %s)", a.String(), w.Spec().ID, a.Arg, q.workerNames(w))
		}
	case "workers":
		n, err := q.workersArg(a.Arg)
		if err != nil {
			return err
		}
		if n > 0 && len(q.workers)+n > maxWorkers {
			return fmt.Errorf("action %q: %d workers started and %d more is more than %d", a.String(), len(q.workers), n, maxWorkers)
		}
		if have := q.inService(); n < 0 && have+n < 1 {
			return fmt.Errorf("action %q: %s in service, and stopping %d leaves none (at least one stays)", a.String(), plural(have, "worker"), -n)
		}
	}
	return nil
}

// CheckTarget refuses a crash or a wedge of a worker that is not running
// at clock at (dead, stopped, not started: a crash would find nothing to
// kill, a wedge no call to hang), or a wedge of one wedged already. The
// hunt asks the same, so it picks only workers in service.
func (q *Family) CheckTarget(w *engine.World, a engine.Action, at engine.Time) error {
	if a.Name != "crash" && a.Name != "wedge" {
		return nil
	}
	wk := &q.workers[q.worker(a.Arg)] // checked by CheckAction
	var why string
	switch wk.State {
	case WOff:
		why = "not started yet, it starts at " + backAt(w.Spec().Workers.Start, at, "start")
	case WDead:
		// the restart its crash scheduled, restart_after then: a fork's
		// restart_after since moves only later ones
		wi := q.worker(a.Arg)
		back, ok := w.NextScheduled(func(s engine.FamilyStep) bool { return s.Op == opRestart && int(s.Actor) == wi })
		if !ok {
			back = wk.Since + q.k.RestartAfter
		}
		why = "crashed at " + wk.Since.Short() + ", down until " + backAt(back, at, "restart")
	case WGone:
		why = "stopped at " + wk.Since.Short() + " by workers=-N"
	}
	switch {
	case why != "":
		return fmt.Errorf("action %q: worker %s is not running at %s (%s)", a.String(), a.Arg, at.Short(), why)
	case a.Name == "wedge" && (wk.Wedged || wk.wedgeNext):
		return fmt.Errorf("action %q: worker %s's call is wedged already at %s", a.String(), a.Arg, at.Short())
	}
	return nil
}

// backAt is the clock a worker not running at clock at is back, and why
// it is not back yet when that is at itself.
func backAt(back, at engine.Time, what string) string {
	if back == at {
		return back.Short() + ": a fork's actions there go before its " + what
	}
	return back.Short()
}

// workersArg reads workers=+N (N to add) or workers=-N (-N: N to stop).
func (q *Family) workersArg(arg string) (int, error) {
	sign := 1
	switch {
	case strings.HasPrefix(arg, "+"):
	case strings.HasPrefix(arg, "-"):
		sign = -1
	default:
		return 0, fmt.Errorf("action \"workers=%s\": want +N to add workers or -N to stop them (like workers=+2, workers=-1)", arg)
	}
	n, err := strconv.Atoi(arg[1:])
	if err != nil || n < 1 || n > maxWorkers {
		return 0, fmt.Errorf("action \"workers=%s\": want +N or -N with N from 1 to %d", arg, maxWorkers)
	}
	return sign * n, nil
}

// inService counts the workers not stopped and not stopping.
func (q *Family) inService() int {
	n := 0
	for _, wk := range q.workers {
		if wk.State != WGone && !wk.stopping {
			n++
		}
	}
	return n
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
	case "repair":
		return fmt.Sprintf("repair and redrive %d dead letters", w.DLQLen())
	case "no_script":
		return "no repair script"
	case "purge":
		if n := len(q.leased); n > 0 {
			return fmt.Sprintf("purge %s (%d in flight)", plural(q.visible+n, "message"), n)
		}
		return "purge " + plural(q.visible, "queued message")
	case "crash":
		return "crash " + a.Arg
	case "wedge":
		if wk := q.workers[q.worker(a.Arg)]; wk.State == WBusy && wk.CallEnd != engine.Never && w.Now < wk.CallEnd {
			return "wedge " + a.Arg + "'s call"
		}
		return "wedge " + a.Arg + "'s next call"
	case "workers":
		n, _ := q.workersArg(a.Arg)
		if n < 0 {
			now, later := q.stopPlan(-n)
			return fmt.Sprintf("stop %s (%s)", plural(-n, "worker"), strings.Join(append(now, later...), ", "))
		}
		return "add " + plural(n, "worker")
	}
	return a.String()
}

// Act carries out a checked action now.
func (q *Family) Act(w *engine.World, a engine.Action) {
	switch a.Name {
	case "redrive":
		q.redrive(w, a.Arg == "unfinished")
	case "repair":
		q.repairRedrive(w, repairByAction)
	case "no_script":
		q.scriptOff = true
		w.Emit(EvScriptOff, -1, -1, 0, 0, 0)
	case "purge":
		q.purge(w)
	case "crash":
		q.operatorCrash(w, q.worker(a.Arg))
	case "wedge":
		q.operatorWedge(w, q.worker(a.Arg))
	case "workers":
		if n, _ := q.workersArg(a.Arg); n < 0 {
			q.stopWorkers(w, -n)
		} else {
			q.addWorkers(w, n)
		}
	}
}

// repairByAction is the operator a fork's repair names in its redrive
// event: no operator of the incident, nor a plain redrive (-1).
const repairByAction = -2

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
		r.Ended, r.EndedBy, r.EndedOf = EndRedriven, -1, 0
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
		id, del := wk.Msg, wk.Delivery
		q.crash(w, wi, engine.CrashOperator)
		if r := q.recs.Ptr(int(id)); r != nil && r.Ended == EndCrashed && r.EndedOf == del && r.EndedBy == int16(wi) {
			q.rec(id).Ended = EndKilled // the next delivery's caption says who
		}
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

// plural counts n things: "1 worker", "2 workers".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// hasScript reports whether spec's incident runs the repair script.
func hasScript(spec *engine.Spec) bool {
	for _, o := range spec.Operators {
		if o.Action == engine.ActionRepairRedrive {
			return true
		}
	}
	return false
}
