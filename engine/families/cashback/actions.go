package cashback

import (
	"fmt"
	"strings"

	"inflight/engine"
	"inflight/engine/redisstream"
)

// The operator's replay script, as a fork (engine.FamilyActions): claim
// the group's pending entries — delivered, never acknowledged — and
// handle them again. The lesson's question about any replay: is the
// handler idempotent? Without dedupe every claimed entry whose credit had
// committed is credited again.
var actionSpecs = []engine.ActionSpec{
	{Name: "replay_pending", Arg: "min_idle:DURATION", Repeat: engine.RepeatAdds,
		Doc: "XAUTOCLAIM the group's pending entries to a consumer named operator and handle them again with the same handler (dedupe as set), then XACK them; the operator's script does not crash. Each claim adds one to the entry's delivery count. With =min_idle:30s only entries idle that long are claimed: a crashed consumer's, not those the running consumer has just read — claimed from under it, an entry is handled by both, and its own XACK then returns 0"},
}

// StreamKey is the stream's key.
const StreamKey = "cashback-events"

// operatorName is the consumer the operator's script claims as.
const operatorName = "operator"

// byOperator is the actor of the operator's events (the consumer's are -1).
const byOperator = 1

// maxMinIdle bounds min_idle: a day is longer than any run here.
const maxMinIdle = 24 * engine.Hour

// takenEntry is an entry the operator claimed: its pending state moved
// off the consumer's list, shared with the consumer if its batch still
// holds it (the dedupe records are the database's and Redis's, not the
// claimant's).
type takenEntry struct {
	pend
	id     redisstream.ID
	acked  bool
	replay uint16 // which replay claimed it last
}

// ActionSpecs lists the family's operator actions.
func (c *Family) ActionSpecs() []engine.ActionSpec { return actionSpecs }

// CheckAction refuses an argument that is not an idle bound.
func (c *Family) CheckAction(w *engine.World, a engine.Action) error {
	_, err := minIdleOf(a)
	return err
}

func minIdleOf(a engine.Action) (engine.Duration, error) {
	if a.Arg == "" {
		return 0, nil
	}
	v, ok := strings.CutPrefix(a.Arg, "min_idle:")
	if !ok {
		return 0, fmt.Errorf("action %q: want replay_pending, or replay_pending=min_idle:DURATION (like min_idle:30s) to claim only entries idle that long", a.String())
	}
	d, err := engine.ParseDuration(v, false)
	if err != nil {
		return 0, fmt.Errorf("action %q: min_idle: %v", a.String(), err)
	}
	if d > maxMinIdle {
		return 0, fmt.Errorf("action %q: min_idle %s is longer than a day", a.String(), v)
	}
	return d, nil
}

// pendingIdle lists the group's pending entries idle at least minIdle
// now, as XPENDING … IDLE reads them.
func (c *Family) pendingIdle(w *engine.World, minIdle engine.Duration) (idle, all int) {
	q := redisstream.PendingQuery{Start: redisstream.ID{}, End: redisstream.MaxID, Count: 1 << 20}
	everything, _ := c.s.XPendingRange(group, q, epoch+int64(w.Now))
	q.MinIdle = int64(minIdle)
	matched, _ := c.s.XPendingRange(group, q, epoch+int64(w.Now))
	return len(matched), len(everything)
}

// ActionWords tell how many entries the replay claims on w's state.
func (c *Family) ActionWords(w *engine.World, a engine.Action) string {
	d, _ := minIdleOf(a)
	n, all := c.pendingIdle(w, d)
	what := "pending entries"
	if n == 1 {
		what = "pending entry"
	}
	if d > 0 {
		return fmt.Sprintf("replay %d %s idle ≥ %s (of %d)", n, what, engine.FormatDuration(d), all)
	}
	return fmt.Sprintf("replay %d %s", n, what)
}

// Act claims the entries (one XAUTOCLAIM reply, one event) and schedules
// the script's handling of each.
func (c *Family) Act(w *engine.World, a engine.Action) {
	d, _ := minIdleOf(a)
	c.replays++
	now := epoch + int64(w.Now)
	var claimed []redisstream.Entry
	start := redisstream.ID{}
	for {
		r, err := c.s.XAutoClaim(group, operatorName, int64(d), start, 0, now)
		if err != nil {
			panic(err) // the group always exists
		}
		claimed = append(claimed, r.Claimed...)
		if r.Next == (redisstream.ID{}) {
			break
		}
		start = r.Next
	}
	first := len(c.taken)
	for _, e := range claimed {
		k := entryIndex(e)
		if i := c.pelIndex(k); i >= 0 {
			p := c.pel[i]
			p.count++
			c.pel = append(c.pel[:i], c.pel[i+1:]...)
			c.taken = append(c.taken, takenEntry{pend: p, id: e.ID, replay: c.replays})
			continue
		}
		// claimed again (by a second replay before the first acked it):
		// a new handling of the same shared record
		t := c.taken[c.takenIndex(k)]
		t.count++
		t.acked, t.replay = false, c.replays
		c.taken = append(c.taken, t)
	}
	for i := first; i < len(c.taken); i++ {
		w.Schedule(w.Now, step(opReplayDeliver, int32(i)), false)
	}
	if len(c.taken) > first {
		w.Schedule(w.Now+engine.Millisecond, step(opReplayHandle, int32(first)), false)
	}
	w.Emit(KindReplay, -1, byOperator, 0, int64(len(claimed)), int64(d))
}

// takenIndex is the newest record of entry k among the taken, or -1.
func (c *Family) takenIndex(k int32) int {
	for i := len(c.taken) - 1; i >= 0; i-- {
		if c.taken[i].entry == k {
			return i
		}
	}
	return -1
}

// pendOf is entry k's pending state: on the consumer's list, or, claimed
// off it, the operator's.
func (c *Family) pendOf(k int32) *pend {
	if i := c.pelIndex(k); i >= 0 {
		return &c.pel[i]
	}
	return &c.taken[c.takenIndex(k)].pend
}

// operatorPending counts claimed entries not yet acknowledged.
func (c *Family) operatorPending() int {
	n := 0
	for i := range c.taken {
		if !c.taken[i].acked && c.takenIndex(c.taken[i].entry) == i {
			n++
		}
	}
	return n
}

func (c *Family) replayDeliver(w *engine.World, i int) {
	t := &c.taken[i]
	w.Stats.Count(1, 0, 0)
	w.Emit(engine.EvDeliver, t.entry, byOperator, t.count, 2, 0)
}

// shared is the record both claimants of entry i read: its newest.
func (c *Family) shared(i int) *takenEntry { return &c.taken[c.takenIndex(c.taken[i].entry)] }

// replayHandle is the script's handler on claimed entry i: the
// consumer's, without its crash and its dead-letter limit.
func (c *Family) replayHandle(w *engine.World, i int) {
	t := c.shared(i)
	k := t.entry
	next := step(opReplayAck, int32(i))
	switch c.k.Dedupe {
	case DedupeSame:
		if t.db {
			c.replaySkip(w, i, skipSameTransaction)
			return
		}
		t.db = true
		c.processedRows++
	case DedupeSeparate:
		if t.store {
			c.replaySkip(w, i, skipSeparateStore)
			return
		}
		t.store = true
		c.processedRows++
		w.Schedule(w.Now+engine.Millisecond, step(opReplayCommit, int32(i)), false)
		w.Emit(KindMark, k, byOperator, t.count, 0, 0)
		return
	}
	w.Schedule(w.Now+engine.Millisecond, next, false)
	c.replayCredit(w, t)
}

func (c *Family) replaySkip(w *engine.World, i int, where int64) {
	t := c.shared(i)
	c.skips++
	lost := false
	if m, ok := w.Msg(t.entry); ok && m.Effects == 0 {
		lost = true
		c.lostSkips++
	}
	c.logCredit(credit{entry: t.entry, lost: lost, at: w.Now, balance: c.balance})
	w.Schedule(w.Now+engine.Millisecond, step(opReplayAck, int32(i)), false)
	w.Emit(KindSkip, t.entry, byOperator, t.count, c.balance, where)
}

func (c *Family) replayCommit(w *engine.World, i int) {
	w.Schedule(w.Now+engine.Millisecond, step(opReplayAck, int32(i)), false)
	c.replayCredit(w, c.shared(i))
}

func (c *Family) replayCredit(w *engine.World, t *takenEntry) {
	c.balance += Amount
	n := w.Truth().Effect(t.entry)
	c.logCredit(credit{entry: t.entry, n: uint16(n), at: w.Now, balance: c.balance})
	w.Emit(engine.EvEffect, t.entry, byOperator, t.count, c.balance, int64(n))
}

// replayAck is the script's XACK of claimed entry i, then its next entry.
func (c *Family) replayAck(w *engine.World, i int) {
	t := c.shared(i)
	how := int64(ackAfterCredit)
	if c.s.XAck(group, t.id) != 1 {
		how |= ackNothingPending // the consumer, still holding it, acked first
	}
	t.acked = true
	w.Truth().Done(t.entry)
	for j := i + 1; j < len(c.taken); j++ {
		if c.taken[j].replay == c.taken[i].replay {
			w.Schedule(w.Now+engine.Millisecond, step(opReplayHandle, int32(j)), false)
			break
		}
	}
	w.Emit(engine.EvAck, t.entry, byOperator, t.count, c.balance, how)
}

// ActorName names the operator in its events; every other event keeps
// the trace's "broker".
func (c *Family) ActorName(w *engine.World, e *engine.Event) string {
	if e.Worker == byOperator {
		return operatorName
	}
	return ""
}

// captionReplay tells the claim.
func captionReplay(e *engine.Event) string {
	bound := "any idle time (min-idle 0)"
	if e.Aux > 0 {
		bound = "idle at least " + engine.FormatDuration(engine.Duration(e.Aux))
	}
	n := fmt.Sprintf("%d pending entries", e.Value)
	if e.Value == 1 {
		n = "1 pending entry"
	}
	return fmt.Sprintf("an operator runs the replay script: XAUTOCLAIM %s %s %s %d 0-0 claims %s of %s, each delivery count up by one, and handles them again", StreamKey, group, operatorName, e.Aux, n, bound)
}
