// Package kafkarestart is the kafka-restart incident's system: an
// idempotent producer that sends a batch of order confirmations, loses one
// answer (its own retry is dropped by the broker), is restarted before it
// finishes, and sends the batch again; and an email consumer in a consumer
// group that sends one email per record and commits its offset after each.
//
// The lesson (036): "What it covers is the producer's own retries … And
// without a configured transactional.id, a restarted producer asks for a
// new producer id, so the broker has never seen it and the memory starts
// empty. … Point the output at an email provider and the transaction does
// not stretch to cover it."
//
// The brokers, producers and consumers are engine/kafka, wrapped: this
// package decides when each client acts, whose answer is lost, who crashes,
// and what reaches the customer.
package kafkarestart

import (
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/engine/kafka"
)

// The family's event kinds.
const (
	EvInit            = engine.FamilyKind + iota // a producer instance starts (InitProducerId / initTransactions)
	EvProduce                                    // a batch is appended to a partition
	EvDuplicate                                  // the broker drops a batch it already has
	EvAnswerLost                                 // the producer never hears the broker's answer
	EvAnswer                                     // the producer gets its answer
	EvCommitTxn                                  // the producer commits its transaction
	EvCommit                                     // the consumer commits its offset
	EvSessionOver                                // the coordinator drops a silent member
	EvTxnTimeout                                 // the coordinator aborts a transaction open too long
	EvRestartProducer                            // an operator restarts the producer (actions.go)
)

// The family's decisions.
const (
	DecAnswer        = engine.FamilyDecision + iota // is the broker's answer lost (1) or not (0)
	DecProducerCrash                                // is the producer killed before it finishes (1)
	DecConsumerCrash                                // does the consumer die before this offset commit (1)
)

// The system's fixed shape.
const (
	Topic      = "orders"
	Partitions = 3
	Group      = "mailer"

	produceGap     = 10 * engine.Millisecond  // between the producer's requests
	answerAfter    = 5 * engine.Millisecond   // the broker's answer
	retryBackoff   = 100 * engine.Millisecond // retry.backoff.ms
	restartAfter   = 3 * engine.Second        // the deploy brings the producer back
	pollEvery      = 200 * engine.Millisecond // an empty poll waits this long
	readTime       = 10 * engine.Millisecond  // from poll to the handler
	emailTime      = 150 * engine.Millisecond // the email provider's answer
	commitAfter    = 20 * engine.Millisecond
	consumerReturn = 2 * engine.Second // the supervisor restarts a dead consumer
)

const (
	opStart uint8 = iota
	opInit
	opProduce
	opAnswer
	opFinish
	opPoll
	opRead
	opEmail
	opCommit
	opConsumerRestart
	opSessionOver
	opTxnTimeout
)

// Family is the system's state: the cluster, the live clients, and what
// the customer got.
type Family struct {
	k        *Knobs // the knobs in force (BindKnobs)
	C        *kafka.Cluster
	Prod     *kafka.Producer
	Instance int           // producer instances started
	Batches  []kafka.Batch // the current instance's prepared requests
	Tries    []int         // sends of each batch by this instance
	Batch    int           // records in the batch (the knob, read when the first producer instance starts)
	Txn      string        // the current producer instance's transactional.id (read when it starts)
	MailTxn  string        // the consumer's transactional.id (read when it starts)
	TxnWatch bool          // a transaction-timeout check is pending
	ProdDone bool          // the producer finished (committed, or recorded the batch as sent)

	Cons      *kafka.Consumer
	Mailer    *kafka.Producer // the consumer's transactional producer (offsets in a transaction), or nil
	Member    int             // consumer instances started
	Alive     bool
	Buf       []kafka.ConsumerRecord
	Cur       kafka.ConsumerRecord // the record being handled
	Handling  bool
	Polling   bool // a poll is scheduled
	Emails    []email
	Crashes   int
	Dropped   int // producer retries the broker dropped as duplicates
	Deaths    []string
	Expiring  bool // a dead member's session has yet to time out
	Restarted bool
	Timeouts  int

	BackAt  engine.Time // when a killed producer comes back
	Nothing bool        // the instance starting has nothing to send: the batch was recorded as sent before its restart
}

type email struct {
	At    engine.Time
	Order int32
	Copy  int
	TP    kafka.TP
	Off   int64
}

// New makes the family. Knobs are read from the world as steps run: batch
// when the first producer instance starts (a second after the start; the
// restarted instance re-sends the same orders), transactional_id when each
// producer (and consumer) instance starts, email_crash at each offset
// commit.
func New(p *engine.Params) engine.Family { return &Family{} }

// Clone implements engine.Family: a deep copy (batches share their
// records, which nothing mutates).
func (f *Family) Clone() engine.Family {
	c := *f
	if f.C != nil {
		c.C = f.C.Clone()
	}
	if f.Prod != nil {
		c.Prod = f.Prod.Clone()
	}
	if f.Cons != nil {
		c.Cons = f.Cons.Clone()
	}
	if f.Mailer != nil {
		c.Mailer = f.Mailer.Clone()
	}
	c.Batches = append([]kafka.Batch(nil), f.Batches...)
	c.Tries = append([]int(nil), f.Tries...)
	c.Buf = append([]kafka.ConsumerRecord(nil), f.Buf...)
	c.Emails = append([]email(nil), f.Emails...)
	c.Deaths = append([]string(nil), f.Deaths...)
	return &c
}

// Start implements engine.Family.
func (f *Family) Start(w *engine.World) {
	f.C = kafka.NewCluster(kafka.ClusterConfig{})
	if err := f.C.CreateTopic(Topic, Partitions); err != nil {
		panic(err)
	}
	w.Schedule(w.Now, engine.FamilyStep{Op: opStart}, false)
	w.Schedule(w.Now+engine.Second, engine.FamilyStep{Op: opInit}, false)
}

// Step implements engine.Family.
func (f *Family) Step(w *engine.World, s engine.FamilyStep) {
	switch s.Op {
	case opStart:
		f.startConsumer(w, false)
	case opInit:
		f.initProducer(w)
	case opProduce:
		f.produce(w, int(s.Item))
	case opAnswer:
		f.answer(w, int(s.Item), s.Gen)
	case opFinish:
		f.finish(w)
	case opPoll:
		f.poll(w)
	case opRead:
		f.read(w)
	case opEmail:
		f.email(w)
	case opCommit:
		f.commit(w)
	case opConsumerRestart:
		f.startConsumer(w, true)
	case opSessionOver:
		f.sessionOver(w, s.Item)
	case opTxnTimeout:
		f.txnTimeout(w)
	}
}

func (f *Family) memberID(n int) string { return fmt.Sprintf("mailer-%d", n) }

// --- the producer ---

func (f *Family) initProducer(w *engine.World) {
	f.Instance++
	f.Txn = f.k.TransactionalID
	openBefore := false
	if f.Txn != "" {
		for p := 0; p < Partitions; p++ {
			tp := kafka.TP{Topic: Topic, Partition: p}
			openBefore = openBefore || f.C.LastStableOffset(tp) < f.C.LogEndOffset(tp)
		}
	}
	p, err := kafka.NewProducer(f.C, int64(w.Now), kafka.ProducerConfig{TransactionalID: f.Txn, Seed: w.Seed()})
	if err != nil {
		panic(err)
	}
	f.Prod = p
	if f.Txn != "" {
		if err := p.BeginTransaction(); err != nil {
			panic(err)
		}
	}
	if f.Instance == 1 {
		// the orders exist once the first instance sends them: a fork
		// before then decides how many
		f.Batch = max(f.k.Batch, 1)
		for i := 0; i < f.Batch; i++ {
			w.Truth().NewMessage() // order i's confirmation: message i
		}
	}
	if f.Nothing {
		// restarted after it recorded the batch as sent: a new session
		// with an empty buffer
		f.Batches, f.Tries, f.ProdDone = nil, nil, true
		w.Emit(EvInit, -1, -1, 0, p.PID, int64(p.Epoch)<<1)
		f.kick(w)
		return
	}
	recs := make([]kafka.Record, f.Batch)
	for i := range recs {
		recs[i] = kafka.Keyed(fmt.Sprintf("order-%d", i), fmt.Sprintf("confirm order %d", i))
	}
	f.Batches, err = p.Prepare(f.C, Topic, recs...)
	if err != nil {
		panic(err)
	}
	f.Tries = make([]int, len(f.Batches))
	aux := int64(0)
	if openBefore {
		aux = 1
	}
	w.Emit(EvInit, -1, -1, 0, p.PID, int64(p.Epoch)<<1|aux)
	w.Schedule(w.Now+produceGap, engine.FamilyStep{Op: opProduce, Item: 0}, false)
	f.kick(w)
}

func (f *Family) produce(w *engine.World, k int) {
	if f.Prod == nil {
		// an operator restart killed the instance that scheduled it: its
		// steps are due within retryBackoff, long before restartAfter
		// brings the next instance, so a nil producer tells them apart
		return
	}
	b := f.Batches[k]
	res, err := f.Prod.Produce(f.C, int64(w.Now), b)
	f.Tries[k]++
	if err != nil {
		panic(fmt.Sprintf("kafka-restart: produce %s: %v", b.TP, err))
	}
	first := int64(b.FirstSeq())
	if res.Duplicate {
		f.Dropped++
		w.Emit(EvDuplicate, -1, -1, 0, int64(k), first)
	} else {
		w.Emit(EvProduce, -1, -1, 0, int64(k), res.BaseOffset<<20|res.LastOffset)
	}
	w.Schedule(w.Now+answerAfter, engine.FamilyStep{Op: opAnswer, Item: int32(k), Gen: uint16(f.Tries[k])}, false)
	f.kick(w)
}

func (f *Family) answer(w *engine.World, k int, try uint16) {
	if f.Prod == nil {
		return // its producer was killed before the answer came
	}
	natural := int64(0)
	if f.Instance == 1 && k == 0 && try == 1 {
		natural = 1 // the first request's answer is lost on the way back
	}
	if w.Decide(DecAnswer, -1, -1, try, natural, 0, 1) == 1 {
		w.Emit(EvAnswerLost, -1, -1, try, int64(k), 0)
		w.Schedule(w.Now+retryBackoff, engine.FamilyStep{Op: opProduce, Item: int32(k)}, false)
		return
	}
	w.Emit(EvAnswer, -1, -1, try, int64(k), 0)
	if k+1 < len(f.Batches) {
		w.Schedule(w.Now+produceGap, engine.FamilyStep{Op: opProduce, Item: int32(k + 1)}, false)
	} else {
		w.Schedule(w.Now+produceGap, engine.FamilyStep{Op: opFinish}, false)
	}
}

// finish: the first instance is killed by a deploy before it commits its
// transaction (or records the batch as sent); the second commits.
func (f *Family) finish(w *engine.World) {
	if f.Prod == nil {
		return // killed before it could finish
	}
	natural := int64(0)
	if f.Instance == 1 {
		natural = 1
	}
	if w.Decide(DecProducerCrash, -1, -1, uint16(f.Instance), natural, 0, 1) == 1 {
		if f.Txn != "" {
			// nobody may come back with this id: the coordinator's
			// transaction.timeout.ms is the backstop
			f.TxnWatch = true
			w.Schedule(w.Now+engine.Time(kafka.DefaultTransactionTimeout)+engine.Second, engine.FamilyStep{Op: opTxnTimeout}, false)
		}
		f.Prod, f.Batches, f.Tries = nil, nil, nil
		f.BackAt = w.Now + restartAfter
		w.Emit(engine.EvCrash, -1, -1, uint16(f.Instance), int64(w.Now+restartAfter), 1)
		w.Schedule(w.Now+restartAfter, engine.FamilyStep{Op: opInit}, false)
		return
	}
	if f.Txn != "" {
		if err := f.Prod.CommitTransaction(f.C, int64(w.Now)); err != nil {
			panic(err)
		}
	}
	f.ProdDone = true
	w.Emit(EvCommitTxn, -1, -1, uint16(f.Instance), 0, 0)
	f.kick(w)
}

// --- the consumer ---

func (f *Family) startConsumer(w *engine.World, restart bool) {
	f.Member++
	f.Cons = kafka.NewConsumer(f.C, int64(w.Now), kafka.ConsumerConfig{
		Group: Group, MemberID: f.memberID(f.Member), Topics: []string{Topic},
		Isolation: kafka.ReadCommitted, AutoOffsetReset: kafka.ResetEarliest,
	})
	f.Mailer = nil
	f.MailTxn = f.k.TransactionalID
	if f.MailTxn != "" {
		m, err := kafka.NewProducer(f.C, int64(w.Now), kafka.ProducerConfig{TransactionalID: f.MailTxn + "-mailer"})
		if err != nil {
			panic(err)
		}
		f.Mailer = m
	}
	f.Alive, f.Buf, f.Handling = true, nil, false
	if restart {
		f.Restarted = true
		w.Emit(engine.EvRestart, -1, -1, uint16(f.Member), int64(f.Member), 0)
	} else {
		w.Emit(engine.EvStart, -1, -1, 0, 1, 0)
	}
	f.kick(w)
}

// kick schedules a poll now if the consumer is idle.
func (f *Family) kick(w *engine.World) {
	if f.Alive && !f.Handling && !f.Polling {
		f.Polling = true
		w.Schedule(w.Now+readTime, engine.FamilyStep{Op: opPoll}, false)
	}
}

func (f *Family) poll(w *engine.World) {
	f.Polling = false
	if !f.Alive || f.Handling {
		return
	}
	if len(f.Buf) == 0 {
		f.Buf = f.Cons.Poll(f.C, int64(w.Now))
	}
	if len(f.Buf) > 0 {
		f.Handling = true
		w.Schedule(w.Now, engine.FamilyStep{Op: opRead}, false)
		return
	}
	if f.ProdDone && !f.Expiring && !f.TxnWatch && len(f.C.Members(Group)) == 1 {
		return // everything readable is read and nothing more will come
	}
	f.Polling = true
	w.Schedule(w.Now+pollEvery, engine.FamilyStep{Op: opPoll}, false)
}

func order(r kafka.Record) int32 {
	n, err := strconv.Atoi(strings.TrimPrefix(r.Key, "order-"))
	if err != nil {
		panic("kafka-restart: record key " + r.Key)
	}
	return int32(n)
}

func (f *Family) read(w *engine.World) {
	f.Cur, f.Buf = f.Buf[0], f.Buf[1:]
	w.Stats.Count(1, 0, 0)
	w.Truth().Hold(order(f.Cur.Record)) // a second copy, or the same record read again
	w.Emit(engine.EvDeliver, order(f.Cur.Record), -1, 0, f.Cur.Offset, int64(f.Cur.TP.Partition))
	w.Schedule(w.Now+emailTime, engine.FamilyStep{Op: opEmail}, false)
}

func (f *Family) email(w *engine.World) {
	id := order(f.Cur.Record)
	n := w.Truth().Effect(id)
	f.Emails = append(f.Emails, email{At: w.Now, Order: id, Copy: n, TP: f.Cur.TP, Off: f.Cur.Offset})
	w.Stats.AddBusy(emailTime)
	w.Emit(engine.EvEffect, id, -1, uint16(n), f.Cur.Offset, int64(n))
	w.Schedule(w.Now+commitAfter, engine.FamilyStep{Op: opCommit}, false)
}

// commit: the consumer commits the offset after the record it emailed —
// unless it dies first (the email_crash knob: once, half-way through).
func (f *Family) commit(w *engine.World) {
	id := order(f.Cur.Record)
	natural := int64(0)
	if f.k.EmailCrash && f.Crashes == 0 && len(f.Emails) == (f.Batch+1)/2 {
		natural = 1
	}
	var crashed bool
	if w.Fault(FaultAfterEmail, id, -1, uint16(f.Member)) {
		crashed = w.ForceDecided(DecConsumerCrash, id, -1, uint16(f.Member), 0, 1) == 1
	} else {
		crashed = w.Decide(DecConsumerCrash, id, -1, uint16(f.Member), natural, 0, 1) == 1
	}
	if crashed {
		f.Crashes++
		w.Stats.Count(0, 0, 1)
		dead := f.Member
		f.Deaths = append(f.Deaths, f.memberID(dead))
		f.Alive, f.Handling, f.Buf, f.Cons, f.Mailer = false, false, nil, nil, nil
		f.Expiring = true
		// it keeps its partitions until the coordinator drops it: no
		// group.instance.id, so the restarted process is a new member and
		// its rebalance waits for this one's session to time out
		f.C.Silence(Group, f.memberID(dead))
		w.Emit(engine.EvCrash, id, -1, uint16(dead), f.Cur.Offset+1, int64(f.Cur.TP.Partition))
		w.Schedule(w.Now+consumerReturn, engine.FamilyStep{Op: opConsumerRestart}, false)
		w.Schedule(w.Now+engine.Time(kafka.DefaultSessionTimeout), engine.FamilyStep{Op: opSessionOver, Item: int32(dead)}, false)
		return
	}
	off := kafka.Offset{TP: f.Cur.TP, Offset: f.Cur.Offset + 1}
	var err error
	if f.Mailer != nil {
		err = f.Mailer.BeginTransaction()
		if err == nil {
			err = f.Mailer.SendOffsetsToTransaction(f.C, int64(w.Now), Group, off)
		}
		if err == nil {
			err = f.Mailer.CommitTransaction(f.C, int64(w.Now))
		}
	} else {
		err = f.Cons.CommitOffsets(f.C, int64(w.Now), off)
	}
	if err != nil {
		panic(fmt.Sprintf("kafka-restart: commit: %v", err))
	}
	w.Truth().Finish(id) // emailed and committed past
	w.Emit(EvCommit, id, -1, 0, off.Offset, int64(off.TP.Partition))
	f.Handling = false
	if len(f.Buf) > 0 {
		f.Handling = true
		w.Schedule(w.Now, engine.FamilyStep{Op: opRead}, false)
		return
	}
	f.kick(w)
}

func (f *Family) sessionOver(w *engine.World, member int32) {
	f.Expiring = false
	f.C.LeaveGroup(Group, f.memberID(int(member)))
	w.Emit(EvSessionOver, -1, -1, uint16(member), kafka.DefaultSessionTimeout, 0)
	f.kick(w)
}

// txnTimeout is the coordinator's periodic abort of transactions open
// longer than transaction.timeout.ms (60 s): it matters only when the
// restarted producer did not come back with the same transactional.id.
func (f *Family) txnTimeout(w *engine.World) {
	f.TxnWatch = false
	ids := f.C.ExpireTransactions(int64(w.Now))
	if len(ids) > 0 {
		f.Timeouts += len(ids)
		w.Emit(EvTxnTimeout, -1, -1, 0, int64(len(ids)), 0)
	}
	f.kick(w)
}

// Figures implements engine.Family.
func (f *Family) Figures(w *engine.World) map[string]any {
	stored, aborted := 0, 0
	for p := 0; p < Partitions; p++ {
		log := f.C.Log(kafka.TP{Topic: Topic, Partition: p})
		ab := abortedFlags(log)
		for i, e := range log {
			if e.Control != kafka.Data {
				continue
			}
			stored++
			if ab[i] {
				aborted++
			}
		}
	}
	return map[string]any{
		"consumer_crashes":         f.Crashes,
		"producer_instances":       f.Instance,
		"producer_retries_dropped": f.Dropped,
		"records_stored":           stored,
		"records_aborted":          aborted,
		"records_stored_twice":     stored - aborted - f.Batch,
		"emails":                   len(f.Emails),
		"transactional_id":         f.Txn,
		"txn_timeouts":             f.Timeouts,
		"batch":                    f.Batch,
		"duplicates_from_producer": stored - aborted - f.Batch,
		"duplicates_from_consumer": w.Stats.Duplicates - int64(stored-aborted-f.Batch),
	}
}

// abortedFlags marks the transactional data records of log whose
// transaction ended with an abort marker, in one backward pass: a record's
// fate is the next marker its producer wrote.
func abortedFlags(log []kafka.Entry) []bool {
	out := make([]bool, len(log))
	type fate struct {
		pid   int64
		abort bool
	}
	var next []fate // per producer id seen so far from the end; a handful
	for i := len(log) - 1; i >= 0; i-- {
		e := &log[i]
		if !e.Transactional {
			continue
		}
		k := -1
		for j := range next {
			if next[j].pid == e.ProducerID {
				k = j
			}
		}
		if e.Control != kafka.Data {
			if k < 0 {
				next = append(next, fate{e.ProducerID, false})
				k = len(next) - 1
			}
			next[k].abort = e.Control == kafka.AbortMarker
			continue
		}
		out[i] = k >= 0 && next[k].abort
	}
	return out
}

// Counts implements engine.Family: records readable and not yet read by
// the live consumer, and records read and not yet committed.
func (f *Family) Counts(w *engine.World) (waiting, taken int) {
	if f.C == nil {
		return 0, 0
	}
	for p := 0; p < Partitions; p++ {
		tp := kafka.TP{Topic: Topic, Partition: p}
		pos, ok := int64(0), false
		if f.Cons != nil {
			pos, ok = f.Cons.Position(tp)
		}
		if !ok {
			pos, _ = f.C.Committed(Group, tp)
		}
		waiting += int(max(0, f.C.LastStableOffset(tp)-pos))
	}
	taken = len(f.Buf)
	if f.Handling {
		taken++
	}
	return waiting, taken
}
