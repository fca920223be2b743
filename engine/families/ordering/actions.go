package ordering

import (
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/engine/kafka"
)

// The lag lesson's operator actions, as forks (engine.FamilyActions):
// "Add consumers (up to the partition count)", and the pitfall of
// "increasing Kafka partitions casually on a topic where per-key order
// matters".
var actionSpecs = []engine.ActionSpec{
	{Name: "consumers", Arg: "+N or -N", NeedsArg: true, Repeat: engine.RepeatAdds,
		Doc: "start N more fulfilment consumers now (consumers=+3) or stop N (consumers=-1). Each start or stop is a rebalance: the range assignor deals the partitions out again, and a partition that changes owner resumes from the group's committed offset, so its records handled since the last auto-commit are handled again. A consumer beyond the partition count gets no partition and sits idle. A stopped consumer polls no more, finishes the records it holds, commits and leaves. The group keeps 1 to 16 consumers"},
	{Name: "partitions", Arg: "N", NeedsArg: true,
		Doc: "raise the topic's partition count to N now (partitions=8, up to 1024): the producer places new records by hash(key) % N at once, so an order whose key moves gets its new events on another partition than its older ones, and the group notices and rebalances 10 s later. Kafka can only add partitions, never remove them"},
}

// maxConsumers is the most consumers the group ever has: a delivery's
// event names its consumer in four bits (deliverAux).
const maxConsumers = 16

// maxPartitions is the repartition knob's bound.
const maxPartitions = 1024

// ActionSpecs lists the family's operator actions.
func (f *Family) ActionSpecs() []engine.ActionSpec { return actionSpecs }

// CheckAction refuses what the group or the topic cannot take.
func (f *Family) CheckAction(w *engine.World, a engine.Action) error {
	switch a.Name {
	case "consumers":
		n, err := consumerDelta(a.Arg)
		if err != nil {
			return err
		}
		have := f.active()
		switch {
		case n > 0 && len(f.Cons)+n > maxConsumers:
			return fmt.Errorf("action %q: the group has had %d consumers; %d more is more than %d", a.String(), len(f.Cons), n, maxConsumers)
		case n < 0 && have+n < 1:
			return fmt.Errorf("action %q: the group has %d running consumers; stopping %d leaves none to read", a.String(), have, -n)
		}
	case "partitions":
		n, err := partitionCount(a.Arg)
		if err != nil {
			return err
		}
		if have := f.C.Partitions(Topic); n <= have {
			return fmt.Errorf("action %q: %s", a.String(), notRaised(have, n))
		}
	}
	return nil
}

// notRaised says why a partition count of n is no change on a topic of
// have.
func notRaised(have, n int) string {
	if n == have {
		return fmt.Sprintf("%s already has %d partitions", Topic, have)
	}
	return fmt.Sprintf("Kafka cannot lower a topic's partition count (%s has %d): CreatePartitions only adds; fewer partitions take a new topic, and moving the producers and consumers to it", Topic, have)
}

func consumerDelta(arg string) (int, error) {
	if arg == "" || (arg[0] != '+' && arg[0] != '-') {
		return 0, fmt.Errorf("action \"consumers=%s\": want +N to start consumers or -N to stop them (like consumers=+3)", arg)
	}
	n, err := strconv.Atoi(arg[1:])
	if err != nil || n < 1 || n > maxConsumers {
		return 0, fmt.Errorf("action \"consumers=%s\": want +N or -N with N from 1 to %d", arg, maxConsumers)
	}
	if arg[0] == '-' {
		n = -n
	}
	return n, nil
}

func partitionCount(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > maxPartitions || arg[0] == '+' {
		return 0, fmt.Errorf("action \"partitions=%s\": want the new partition count, a number from 1 to %d (like partitions=8)", arg, maxPartitions)
	}
	return n, nil
}

// active counts the consumers running and not stopping.
func (f *Family) active() int {
	n := 0
	for i := range f.Cons {
		if !f.Cons[i].Leaving && !f.Cons[i].Gone {
			n++
		}
	}
	return n
}

// ActionWords tell what a checked action does on w's state.
func (f *Family) ActionWords(w *engine.World, a engine.Action) string {
	switch a.Name {
	case "consumers":
		n, _ := consumerDelta(a.Arg)
		if n < 0 {
			return fmt.Sprintf("stop %s", plural(-n, "consumer"))
		}
		after, parts := f.active()+n, f.C.Partitions(Topic)
		if after > parts {
			return fmt.Sprintf("add %s, %d of %d idle (%d partitions)", plural(n, "consumer"), after-parts, after, parts)
		}
		return "add " + plural(n, "consumer")
	case "partitions":
		n, _ := partitionCount(a.Arg)
		have := f.C.Partitions(Topic)
		if n <= have {
			return fmt.Sprintf("partitions=%d refused: %s", n, notRaised(have, n))
		}
		if f.k.KeyNone {
			return fmt.Sprintf("raise partitions %d → %d (unkeyed: no key to move)", have, n)
		}
		moved, open := f.keysMoving(have, n)
		return fmt.Sprintf("raise partitions %d → %d: %d of %d unfinished orders' keys move", have, n, moved, open)
	}
	return a.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// keysMoving counts the orders whose shipped event has not been handled
// yet, and of those the ones whose key hash(key) % partitions sends
// elsewhere when the count goes from have to n: their new events go to
// another partition than their older ones.
func (f *Family) keysMoving(have, n int) (moved, open int) {
	for o := range f.Seen {
		if f.Seen[o] >= 3 {
			continue
		}
		open++
		key := fmt.Sprintf("order-%d", o)
		if kafka.KeyedPartition(key, have) != kafka.KeyedPartition(key, n) {
			moved++
		}
	}
	return moved, open
}

// Act carries out a checked action now. The checks were made when the
// fork was made; what changed since (a knob's repartition first) is told,
// not refused.
func (f *Family) Act(w *engine.World, a engine.Action) {
	switch a.Name {
	case "consumers":
		n, _ := consumerDelta(a.Arg)
		if n > 0 {
			f.addConsumers(w, n)
		} else {
			f.stopConsumers(w, -n)
		}
	case "partitions":
		n, _ := partitionCount(a.Arg)
		if have := f.C.Partitions(Topic); n <= have {
			w.Emit(EvRepartition, -1, -1, 0, int64(have), int64(n))
			return
		}
		f.raise(w, n)
	}
}

// newConsumer makes consumer i's client, which joins the group: a
// rebalance.
func (f *Family) newConsumer(w *engine.World, i int) consumer {
	return consumer{C: kafka.NewConsumer(f.C, int64(w.Now), kafka.ConsumerConfig{
		Group: Group, MemberID: memberID(i), Topics: []string{Topic},
		AutoOffsetReset: kafka.ResetEarliest, AutoCommit: true, AutoCommitInterval: int64(AutoCommitEvery),
	})}
}

// membersAux packs what a membership event's caption tells: the running
// consumers, the partitions and the group's generation.
func (f *Family) membersAux() int64 {
	return int64(f.active()) | int64(f.C.Partitions(Topic))<<16 | int64(f.C.Generation(Group))<<32
}

func unpackMembers(aux int64) (consumers, partitions, generation int) {
	return int(aux & 0xffff), int(aux >> 16 & 0xffff), int(aux >> 32)
}

// addConsumers starts n consumers: each joins the group at once, and the
// joins are one rebalance as the group sees it. Every member resumes its
// partitions from the committed offsets at its next poll.
func (f *Family) addConsumers(w *engine.World, n int) {
	added := 0
	for ; added < n && len(f.Cons) < maxConsumers; added++ {
		f.Cons = append(f.Cons, f.newConsumer(w, len(f.Cons)))
	}
	if added > 0 {
		f.Rebalances++
	}
	w.Emit(EvMembers, -1, -1, 0, int64(added), f.membersAux())
	f.kickAll(w)
}

// stopConsumers stops the n newest running consumers: they poll no more
// and leave once they have finished the records they hold.
func (f *Family) stopConsumers(w *engine.World, n int) {
	stopped := 0
	for i := len(f.Cons) - 1; i >= 0 && stopped < n && f.active() > 1; i-- {
		if c := &f.Cons[i]; !c.Leaving && !c.Gone {
			c.Leaving = true
			stopped++
		}
	}
	w.Emit(EvMembers, -1, -1, 0, -int64(stopped), f.membersAux())
	f.kickAll(w)
}

// stopping schedules stopping consumer i's leave once it holds nothing.
func (f *Family) stopping(w *engine.World, i int) {
	c := &f.Cons[i]
	if c.Gone || c.LeaveDue || len(c.Buf) > 0 || c.running() > 0 {
		return
	}
	c.LeaveDue = true
	w.Schedule(w.Now, engine.FamilyStep{Op: opLeave, Actor: int16(i)}, false)
}

// leave is a stopped consumer's close(): with auto-commit it commits what
// it handled, then leaves the group, which rebalances at once.
func (f *Family) leave(w *engine.World, i int) {
	c := &f.Cons[i]
	c.C.Close(f.C, int64(w.Now))
	c.Leaving, c.LeaveDue, c.Gone = false, false, true
	c.Threads = nil
	f.Rebalances++
	w.Emit(EvLeave, -1, -1, 0, int64(i), f.membersAux())
	f.kickAll(w)
}

// ActorName names who acted in the operator's events; every other event
// keeps the trace's "broker".
func (f *Family) ActorName(w *engine.World, e *engine.Event) string {
	switch e.Kind {
	case EvMembers:
		return "operator"
	case EvLeave:
		return memberID(int(e.Value))
	}
	return ""
}

// captionMembers tells a membership change: who started or stopped, and
// how the group's partitions are dealt now.
func captionMembers(e *engine.Event) string {
	running, parts, gen := unpackMembers(e.Aux)
	deal := fmt.Sprintf("%d consumers share %d partitions", running, parts)
	switch {
	case running == 1:
		deal = fmt.Sprintf("1 consumer reads all %d partitions", parts)
	case running > parts:
		deal = fmt.Sprintf("%d consumers for %d partitions: %d get none and sit idle, since a partition is read by one consumer of the group at a time", running, parts, running-parts)
	}
	keep := fmt.Sprintf("%d keep running", running)
	if running == 1 {
		keep = "1 keeps running"
	}
	switch {
	case e.Kind == EvLeave:
		return fmt.Sprintf("%s has finished the records it held: it commits its offsets and leaves the group, which rebalances (generation %d): %s, from the committed offsets", memberID(int(e.Value)), gen, deal)
	case e.Value == 0:
		return fmt.Sprintf("an operator's change of consumers finds nothing to change (the group has had %d, or only one is running): %s", maxConsumers, deal)
	case e.Value == -1:
		return fmt.Sprintf("an operator stops 1 consumer: it polls no more, finishes the records it holds, commits and leaves; %s", keep)
	case e.Value < 0:
		return fmt.Sprintf("an operator stops %d consumers: they poll no more, finish the records they hold, commit and leave; %s", -e.Value, keep)
	}
	return fmt.Sprintf("an operator starts %s: the group rebalances and the range assignor deals the partitions out again — %s. A partition that changes owner resumes from the committed offset, so its records handled since the last auto-commit are handled again",
		plural(int(e.Value), "more consumer"), deal)
}

// captionRefused tells a partitions action that found the count no
// longer an increase at its moment.
func captionRefused(e *engine.Event) string {
	return fmt.Sprintf("an operator asks for %d partitions, and nothing changes: %s", e.Aux, strings.TrimSuffix(notRaised(int(e.Value), int(e.Aux)), "."))
}
