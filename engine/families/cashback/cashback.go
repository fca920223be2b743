// Package cashback is the incident family of the second lesson's real test,
// "₹5,500 of extra cashback": a Redis stream of 5,000 events "credit ₹100
// cashback to user u1", one consumer in a consumer group, a SQLite-style
// wallet, and a crash 1% of the time after the wallet commit and before
// XACK.
//
// The stream and its consumer group are the redisstream model (Redis 7.0
// semantics, checked against a real server): XREADGROUP … > puts an entry
// in the consumer's pending list with delivery count 1; after a crash the
// restarted consumer first re-reads its own pending entries with
// XREADGROUP … 0 (the canonical Redis consumer loop: read history from the
// last id handled until it comes back empty, then switch to >), then new
// ones. COUNT is 10, so a crash also leaves the rest of its batch pending.
//
// Every delivery that reaches the handler makes exactly one crash decision,
// drawn from (entry, delivery count) under the seed. The consumer's path
// through the stream depends only on those decisions, never on the dedupe
// knob, so the same seed crashes at the same points with dedupe false, true
// or separate: a controlled experiment, where the lesson's two lines were
// two separate runs (55 and 51 crashes).
//
// dedupe:
//   - false: credit, commit, XACK. A crash between commit and XACK credits
//     the event again on redelivery: balance − 500000 = 100 × crashes.
//   - true: the lesson's handler. INSERT INTO processed(event_id) in the
//     same transaction as the credit; a redelivery fails the insert, rolls
//     back, skips the credit and still acks. Balance exact.
//   - separate (pitfall 2): the processed record lives in another store
//     (Redis: SADD processed <event_id>), written in its own step before
//     the wallet transaction, in the lesson's handler order. The crash
//     point moves (same draws) to between the two writes: the event is
//     marked processed, the credit never commits, and the redelivery skips
//     it. The guarantee breaks toward loss: balance = 500000 − 100 ×
//     crashes, lost = crashes, no duplicates.
//
// Dead letters: Redis Streams never gives up on an entry by itself, so a
// consumer that crashes on every delivery would re-read the same pending
// entry for ever. The consumer follows the usual Redis recipe instead: an
// entry its backlog read hands back with a delivery count above
// max_receives (XREADGROUP … 0 has already counted that read) is not
// handled again; the consumer XADDs it to a dead-letter stream and XACKs
// it. The default (10) is never reached by the lesson's runs: a count
// grows by one per crash of the batch it sits in, and the 1% crashes never
// stack that high.
//
// A re-read of the pending list is a delivery: the limit is XPENDING's
// delivery counter, which Redis raises on every XREADGROUP that returns
// the entry (ID 0 included) and on XCLAIM. So an entry that waited behind
// crashes in its batch of 10 reaches the limit without ever having been
// handled, and at high crash rates the dead-letter stream holds credits
// never applied beside ones applied already; the summary
// (dead_lettered_never_applied, dead_lettered_applied) and the pane tell
// them apart. The lesson's "a delivery count counts deliveries, not
// failures".
//
// A fork's events applies from its moment: a lowered count stops the
// producer before its next XADD (the consumer then starts on what was
// written); a raised one lets it write on if it is still writing.
//
// Timing: the producer writes one entry a millisecond, or, when the
// incident has a publish schedule (an import's recorded XADD times), each
// entry at its time there, one a millisecond past its end; the consumer
// starts 1 ms after the last. Each handler's writes take 1 ms up to the
// crash point, or, with handler-time pins (an import's), the delivery's
// pinned time (handler.go).
package cashback

import (
	"fmt"
	"slices"
	"strconv"

	"inflight/engine"
	"inflight/engine/redisstream"
)

// The dedupe knob's values (Knobs.Dedupe).
const (
	DedupeNone     = 0
	DedupeSame     = 1
	DedupeSeparate = 2
)

// Count is XREADGROUP's COUNT: entries handed out per read.
const Count = 10

// Amount is each event's cashback in rupees.
const Amount = 100

const (
	group    = "cashback"
	consumer = "consumer-1"
	// epoch puts stream ids on a real-looking calendar: midnight UTC of
	// 14 November 2023, plus the incident clock.
	epoch = 1_699_920_000_000
)

// The family's own event kinds.
const (
	KindSkip        = engine.FamilyKind + iota // a redelivery finds the processed record: skip the credit
	KindMark                                   // separate store: the processed record is written
	KindBacklogDone                            // the pending list read back empty: back to new entries
	KindCaughtUp                               // XREADGROUP > returned nil: the stream is consumed
	KindReplay                                 // an operator's XAUTOCLAIM of the group's pending entries (actions.go)
)

var kindNames = []string{"skip", "mark", "backlog_done", "caught_up", "replay"}

// Crash points, as the crash event's Aux.
const (
	CrashBeforeXAck    = 1 // after the wallet commit, before XACK
	CrashBetweenWrites = 2 // separate store: after SADD processed, before the wallet commit
	CrashSkippedNoXAck = 3 // a skipping delivery, before its XACK (harmless)
)

// What an XACK follows (the ack event's Aux) and where a skip found the
// processed record (the skip event's Aux).
const (
	ackAfterCredit      = 0
	ackAfterSkip        = 1
	ackNothingPending   = 2 // a flag: XACK returned 0, another had acked the entry
	ackOfClaimed        = 4 // a flag: the entry was another's (claimed), the group's XACK took it anyway
	skipSameTransaction = 0
	skipSeparateStore   = 1
)

type op uint8

const (
	opProduce  op = iota // XADD entry A
	opRead               // XREADGROUP (> or the backlog)
	opAnnounce           // the deliver event of batch[A], same instant as the read
	opHandle             // the handler's first write for batch[cur]
	opCommit             // separate store: the wallet transaction after SADD
	opAfter              // the crash point before XACK, then XACK
	opAck                // XACK without a decision (separate store, after a credit)
	opRestart            // the supervisor brings the consumer back
	// an operator's replay of claimed entries (actions.go), Item the
	// entry's index in Family.taken
	opReplayDeliver
	opReplayHandle
	opReplayCommit
	opReplayAck
)

// pend mirrors one pending entry of the consumer (the PEL is at most Count
// long): its delivery count, and whether each dedupe store holds its id.
// An acked entry is never delivered again, so the processed records of
// acked entries need no copy here; processedRows counts them.
type pend struct {
	entry int32
	count uint16
	db    bool // processed row in the wallet database (same transaction)
	store bool // processed record in the separate store
}

type batchEntry struct {
	entry int32
	id    redisstream.ID
}

type credit struct {
	entry   int32
	n       uint16 // 1: first credit; more: duplicate; 0: a skip
	lost    bool   // a skip of an event the wallet never got
	at      engine.Time
	balance int64
}

type crashRec struct {
	entry    int32
	delivery uint16
	point    uint8
	at       engine.Time
}

// Family is the cashback system's state: plain data, deep-copied by Clone.
type Family struct {
	k        *Knobs // the knobs in force (BindKnobs)
	s        *redisstream.Stream
	produced int32          // entries XADDed
	readNew  int32          // entries handed out by XREADGROUP >
	batch    []batchEntry   // the last read's entries
	cur      int            // the batch entry being handled
	skipping bool           // the current delivery skipped its credit
	backlog  bool           // after a restart: re-reading its own pending entries first
	after    redisstream.ID // the backlog read's cursor
	alive    bool           // not crashed (or restarted since)
	done     bool           // a read found nothing new: the consumer caught up
	pel      []pend

	balance       int64
	crashes       int64
	skipCrashes   int64 // crashes before the XACK of a delivery that skipped: nothing to repeat
	deadLettered  int64 // entries moved to the dead-letter stream (delivery count over max_receives)
	deadNoEffect  int64 // of those, entries whose credit never reached the wallet
	skips         int64
	lostSkips     int64
	processedRows int64

	credits  [24]credit // newest at (nCredits-1) % len
	nCredits int
	crashLog [16]crashRec
	nCrashes int
	deadLog  [16]deadRec
	nDead    int

	// entries an operator claimed off the consumer (replay_pending), in
	// the order claimed; the consumer may still hold one in its batch
	taken   []takenEntry
	replays uint16

	// the publish schedule (Spec.Publish) and the producer's place in
	// it: the run and the index in it of the next entry to write
	sched            []engine.PublishRun
	schedRun, schedI int
	// handlerTimes are the handler-time pins' values, sorted: the
	// observed distribution (handler.go); nil, every write takes 1 ms
	handlerTimes []engine.Duration
}

// deadRec is one entry given up on: its delivery count then, and how many
// times its credit had reached the wallet (0: never applied).
type deadRec struct {
	entry   int32
	count   uint16
	applied uint16
	at      engine.Time
}

// New builds the family (the incidents registry calls it).
func New(p *engine.Params) engine.Family {
	s := redisstream.New(StreamKey)
	if err := s.XGroupCreate(group, "0"); err != nil {
		panic(err) // a fresh stream always takes a group
	}
	return &Family{s: s, alive: true}
}

// DefaultMaxReceives is the consumer's dead-letter limit unless a run sets
// max_receives: deliveries of one entry before it goes to the dead-letter
// stream.
const DefaultMaxReceives = 10

// DeadStream is where the consumer moves an entry it gives up on.
const DeadStream = "cashback-events:dead"

// Clone deep-copies the state.
func (c *Family) Clone() engine.Family {
	d := *c
	d.s = c.s.Clone()
	d.batch = slices.Clone(c.batch)
	d.pel = slices.Clone(c.pel)
	d.taken = slices.Clone(c.taken)
	return &d
}

func step(o op, a int32) engine.FamilyStep { return engine.FamilyStep{Op: uint8(o), Item: a} }

// Start schedules the producer's first XADD: at the start, or when the
// incident's publish schedule puts it.
func (c *Family) Start(w *engine.World) {
	c.sched = w.Spec().Publish
	c.skipEmptyRuns()
	c.handlerTimes = handlerTable(w.Spec().Pins)
	if c.k.Events > 0 {
		w.Schedule(c.publishAt(w), step(opProduce, 0), false)
		return
	}
	// nothing to write: the consumer starts at once, on an empty stream
	w.Schedule(w.Now, step(opRead, 0), false)
}

// Step runs one step: one event, at most one decision.
func (c *Family) Step(w *engine.World, s engine.FamilyStep) {
	switch op(s.Op) {
	case opProduce:
		c.produce(w, s.Item)
	case opRead:
		c.read(w)
	case opAnnounce:
		c.announce(w, int(s.Item))
	case opHandle:
		c.handle(w)
	case opCommit:
		c.commit(w)
	case opAfter:
		c.afterWrites(w)
	case opAck:
		c.xack(w, ackAfterCredit)
	case opRestart:
		c.restart(w)
	case opReplayDeliver:
		c.replayDeliver(w, int(s.Item))
	case opReplayHandle:
		c.replayHandle(w, int(s.Item))
	case opReplayCommit:
		c.replayCommit(w, int(s.Item))
	case opReplayAck:
		c.replayAck(w, int(s.Item))
	}
}

func (c *Family) produce(w *engine.World, k int32) {
	if int(k) >= c.k.Events {
		// a fork lowered events after this XADD was due: the producer
		// stops here and the consumer starts on the stream as it is
		c.read(w)
		return
	}
	fields := []redisstream.Field{{Name: "event_id", Value: strconv.Itoa(int(k))}, {Name: "user", Value: "u1"}, {Name: "amount", Value: strconv.Itoa(Amount)}}
	if _, err := c.s.XAdd("*", fields, epoch+int64(w.Now)); err != nil {
		panic(err)
	}
	id := w.Truth().NewMessage()
	if id != k {
		panic(fmt.Sprintf("cashback: message %d for entry %d", id, k))
	}
	c.produced++
	c.nextScheduled()
	if int(c.produced) < c.k.Events {
		w.Schedule(c.publishAt(w), step(opProduce, c.produced), false)
	} else {
		// The test's consumer starts on a full stream.
		w.Schedule(w.Now+engine.Millisecond, step(opRead, 0), false)
	}
	w.Emit(engine.EvPublish, k, -1, 0, int64(k), 0)
}

// publishAt is when the next entry is written: its time in the publish
// schedule, or, past the schedule's end or without one, a millisecond
// after the last write (the start, for the first).
func (c *Family) publishAt(w *engine.World) engine.Time {
	if c.schedRun < len(c.sched) {
		r := c.sched[c.schedRun]
		return w.Spec().Start + r.At + r.Every*engine.Duration(c.schedI)
	}
	if c.produced == 0 {
		return w.Now
	}
	return w.Now + engine.Millisecond
}

// nextScheduled moves the schedule's cursor past the entry just written.
func (c *Family) nextScheduled() {
	if c.schedRun >= len(c.sched) {
		return
	}
	if c.schedI++; c.schedI >= c.sched[c.schedRun].Count {
		c.schedRun, c.schedI = c.schedRun+1, 0
		c.skipEmptyRuns()
	}
}

func (c *Family) skipEmptyRuns() {
	for c.schedRun < len(c.sched) && c.sched[c.schedRun].Count <= 0 {
		c.schedRun++
	}
}

func entryIndex(e redisstream.Entry) int32 {
	n, err := strconv.Atoi(e.Fields[0].Value)
	if err != nil {
		panic(err)
	}
	return int32(n)
}

func (c *Family) pelIndex(entry int32) int {
	for i := range c.pel {
		if c.pel[i].entry == entry {
			return i
		}
	}
	return -1
}

func (c *Family) read(w *engine.World) {
	if !c.alive {
		return
	}
	id := ">"
	if c.backlog {
		id = c.after.String()
	}
	got, err := c.s.XReadGroup(group, consumer, Count, id, epoch+int64(w.Now))
	if err != nil {
		panic(err)
	}
	c.batch, c.cur = c.batch[:0], 0
	for _, e := range got {
		k := entryIndex(e)
		c.batch = append(c.batch, batchEntry{k, e.ID})
		if c.backlog {
			c.pel[c.pelIndex(k)].count++
		} else {
			c.pel = append(c.pel, pend{entry: k, count: 1})
			c.readNew++
		}
	}
	switch {
	case len(got) == 0 && c.backlog:
		c.backlog = false
		w.Schedule(w.Now+engine.Millisecond, step(opRead, 0), false)
		w.Emit(KindBacklogDone, -1, -1, 0, 0, 0)
	case len(got) == 0:
		c.done = true
		w.Emit(KindCaughtUp, -1, -1, 0, int64(c.produced), 0)
	default:
		for i := 1; i < len(c.batch); i++ {
			w.Schedule(w.Now, step(opAnnounce, int32(i)), false)
		}
		w.Schedule(w.Now+engine.Millisecond, step(opHandle, 0), false)
		c.announce(w, 0)
	}
}

func (c *Family) announce(w *engine.World, i int) {
	k := c.batch[i].entry
	p := *c.pendOf(k)
	w.Stats.Count(1, 0, 0)
	backlog := int64(0)
	if c.backlog {
		backlog = 1
	}
	w.Emit(engine.EvDeliver, k, -1, p.count, backlog, int64(len(c.batch)))
}

// handle is the handler's first write for the current entry.
func (c *Family) handle(w *engine.World) {
	k := c.batch[c.cur].entry
	p := c.pendOf(k)
	c.skipping = false
	if int(p.count) > c.k.MaxReceives {
		c.deadLetter(w, k)
		return
	}
	// the handler's writes, up to its crash point: 1 ms, or the
	// delivery's recorded time
	h := c.handlerTime(w, k, p.count)
	switch c.k.Dedupe {
	case DedupeSame:
		if p.db {
			// INSERT INTO processed fails: IntegrityError, rollback.
			c.skip(w, k, p, skipSameTransaction, h)
			return
		}
		p.db = true
		c.processedRows++
		c.credit(w, k, p)
		w.Schedule(w.Now+h, step(opAfter, 0), false)
	case DedupeSeparate:
		if p.store {
			c.skip(w, k, p, skipSeparateStore, h)
			return
		}
		p.store = true
		c.processedRows++
		w.Schedule(w.Now+h, step(opCommit, 0), false)
		w.Emit(KindMark, k, -1, p.count, 0, 0)
	default:
		c.credit(w, k, p)
		w.Schedule(w.Now+h, step(opAfter, 0), false)
	}
}

func (c *Family) skip(w *engine.World, k int32, p *pend, where int64, h engine.Duration) {
	c.skips++
	c.skipping = true
	lost := false
	if m, ok := w.Msg(k); ok && m.Effects == 0 {
		lost = true
		c.lostSkips++
	}
	c.logCredit(credit{entry: k, n: 0, lost: lost, at: w.Now, balance: c.balance})
	w.Schedule(w.Now+h, step(opAfter, 0), false)
	w.Emit(KindSkip, k, -1, p.count, c.balance, where)
}

// credit applies ₹100 and commits the wallet transaction.
func (c *Family) credit(w *engine.World, k int32, p *pend) {
	c.balance += Amount
	n := w.Truth().Effect(k)
	c.logCredit(credit{entry: k, n: uint16(n), at: w.Now, balance: c.balance})
	w.Emit(engine.EvEffect, k, -1, p.count, c.balance, int64(n))
}

func (c *Family) logCredit(r credit) {
	c.credits[c.nCredits%len(c.credits)] = r
	c.nCredits++
}

// crashHere draws and records this delivery's one crash decision at fault
// point fp; a fork that forces the fault forces the decision.
func (c *Family) crashHere(w *engine.World, k int32, count uint16, fp uint8) bool {
	if w.Fault(fp, k, -1, count) {
		return w.ForceDecided(engine.DecCrash, k, -1, count, 0, 1) == 1
	}
	natural := int64(0)
	if engine.Chance(w.Draw(engine.StreamCrash, uint64(k), uint64(count)), c.k.CrashP) {
		natural = 1
	}
	return w.Decide(engine.DecCrash, k, -1, count, natural, 0, 1) == 1
}

// commit is the separate store's second write: the wallet transaction,
// with the crash point before it.
func (c *Family) commit(w *engine.World) {
	k := c.batch[c.cur].entry
	p := c.pendOf(k)
	if c.crashHere(w, k, p.count, FaultBetweenWrites) {
		c.crash(w, k, p.count, CrashBetweenWrites)
		return
	}
	c.credit(w, k, p)
	w.Schedule(w.Now+engine.Millisecond, step(opAck, 0), false)
}

// afterWrites is the crash point after the handler's writes, then XACK.
func (c *Family) afterWrites(w *engine.World) {
	k := c.batch[c.cur].entry
	p := c.pendOf(k)
	point := int64(CrashBeforeXAck)
	how := int64(ackAfterCredit)
	if c.skipping {
		point, how = CrashSkippedNoXAck, ackAfterSkip
	}
	if c.crashHere(w, k, p.count, FaultAfterCommit) {
		c.crash(w, k, p.count, point)
		return
	}
	c.xack(w, how)
}

func (c *Family) xack(w *engine.World, how int64) {
	k := c.batch[c.cur].entry
	claimed := c.pelIndex(k) < 0
	count, acked := c.ackCurrent(w)
	switch {
	case !acked:
		how |= ackNothingPending
	case claimed:
		how |= ackOfClaimed
	}
	w.Truth().Done(k)
	w.Emit(engine.EvAck, k, -1, count, c.balance, how)
}

// ackCurrent XACKs the current entry, takes it off the pending list and
// schedules the consumer's next step; it returns the entry's delivery
// count, and false when the XACK acknowledged nothing: an operator had
// claimed the entry and acked it first.
func (c *Family) ackCurrent(w *engine.World) (uint16, bool) {
	b := c.batch[c.cur]
	k := b.entry
	var count uint16
	acked := c.s.XAck(group, b.id) == 1
	if i := c.pelIndex(k); i >= 0 {
		if !acked {
			panic(fmt.Sprintf("cashback: XACK of entry %d acknowledged nothing", k))
		}
		count = c.pel[i].count
		c.pel = slices.Delete(c.pel, i, i+1)
	} else {
		// claimed by an operator: the XACK is the group's, whoever owns it
		t := &c.taken[c.takenIndex(k)]
		count, t.acked = t.count, true
	}
	c.cur++
	if c.backlog {
		c.after = b.id
	}
	if c.cur < len(c.batch) {
		w.Schedule(w.Now+engine.Millisecond, step(opHandle, 0), false)
	} else {
		w.Schedule(w.Now+engine.Millisecond, step(opRead, 0), false)
	}
	return count, acked
}

// deadLetter gives up on the current entry: XADD to the dead-letter
// stream (counted, not kept: nothing reads it back here), then XACK.
func (c *Family) deadLetter(w *engine.World, k int32) {
	c.deadLettered++
	r := deadRec{entry: k, at: w.Now}
	if m, ok := w.Msg(k); ok {
		r.applied = m.Effects
	}
	if r.applied == 0 {
		c.deadNoEffect++
	}
	r.count, _ = c.ackCurrent(w)
	c.deadLog[c.nDead%len(c.deadLog)] = r
	c.nDead++
	w.Truth().DeadLetter(k) // the world emits the dlq event
}

func (c *Family) crash(w *engine.World, k int32, count uint16, point int64) {
	c.alive = false
	c.crashes++
	if point == CrashSkippedNoXAck {
		c.skipCrashes++
	}
	c.crashLog[c.nCrashes%len(c.crashLog)] = crashRec{entry: k, delivery: count, point: uint8(point), at: w.Now}
	c.nCrashes++
	c.batch, c.cur = c.batch[:0], 0
	w.Stats.Count(0, 0, 1)
	at := w.Now + c.k.RestartAfter
	w.Schedule(at, step(opRestart, 0), false)
	w.Emit(engine.EvCrash, k, -1, count, int64(at), point)
}

func (c *Family) restart(w *engine.World) {
	c.alive = true
	c.backlog = true
	c.after = redisstream.ID{}
	w.Schedule(w.Now+engine.Millisecond, step(opRead, 0), false)
	w.Emit(engine.EvRestart, -1, -1, 0, int64(len(c.pel)), 0)
}

// Figures are the lesson's numbers.
func (c *Family) Figures(w *engine.World) map[string]any {
	return map[string]any{
		"expected_balance":   int64(c.produced) * Amount,
		"balance":            c.balance,
		"crashes":            c.crashes,
		"skipped":            c.skips,
		"crashes_after_skip": c.skipCrashes,
		"skipped_uncredited": c.lostSkips,
		"processed_rows":     c.processedRows,
		"pending":            len(c.pel) + c.operatorPending(),
		"dead_lettered":      c.deadLettered,
		// a dead letter's credit either reached the wallet before it was
		// given up on, or never did: the balance is short by the latter
		"dead_lettered_never_applied": c.deadNoEffect,
		"dead_lettered_applied":       c.deadLettered - c.deadNoEffect,
	}
}

// Counts: stream entries not yet handed out, and the pending list.
func (c *Family) Counts(w *engine.World) (waiting, taken int) {
	return int(c.produced - c.readNew), len(c.pel) + c.operatorPending()
}
