// Package ordering is the ordering incident's system: an order service
// publishing created → paid → shipped for many orders to a Kafka topic of
// six partitions, and a consumer group of three fulfilment consumers that
// write each order's status to a table.
//
// The lesson ("Messaging and delivery guarantees", Ordering): "Kafka … only
// guarantees order within a partition … So, if the order of events for one
// order matters (created → paid → shipped), use order_id as the message
// key." Then the four ways it breaks anyway — no key, parallel processing
// inside a consumer, changing the partition count, retries to the end of
// the queue — and the defensive habit: "Include a version number or
// sequence in each event, and ignore events older than what you've already
// applied."
//
// Two figures measure it:
//   - out_of_order: events handled after a later event of the same order
//     had already been handled (the handler saw the order's events out of
//     sequence);
//   - wrong_final: orders whose final applied status is not their last
//     event's (shipped) when the run ends.
//
// The cluster, producer and consumers are engine/kafka, wrapped.
package ordering

import (
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/engine/kafka"
)

// The family's event kinds.
const (
	EvPoll        = engine.FamilyKind + iota // a consumer's poll returns records
	EvFail                                   // the handler's database call fails
	EvStale                                  // versions: an event older than the applied version is ignored
	EvRepartition                            // an operator raises the partition count
	EvRebalance                              // the group notices and rebalances
	EvRetryTail                              // a failed event is republished to the tail
	EvDuplicate                              // versions: an event of the version already applied is ignored
	EvMembers                                // an operator starts or stops consumers (actions.go)
	EvLeave                                  // a stopped consumer has finished its records and leaves the group
)

// The family's decisions.
const (
	DecHandle    = engine.FamilyDecision + iota // how long a handler attempt takes (ms)
	DecFail                                     // does the attempt fail (1) or succeed (0)
	DecPartition                                // the sticky partitioner's next partition (unkeyed)
)

// The workload, fixed: the lesson gives no numbers, so these are chosen to
// keep the consumers busy enough that a broken ordering shows.
const (
	OrderEvery      = 500 * engine.Millisecond // one order every half second…
	RushFrom        = 3 * engine.Minute        // …except in the lunchtime rush, 12:03–12:05,
	RushTo          = 5 * engine.Minute
	RushEvery       = 200 * engine.Millisecond // when one comes every 0.2 s
	OrdersFor       = 10 * engine.Minute       // orders are placed from the start for this long
	GapMin          = 500 * engine.Millisecond // created → paid and paid → shipped
	GapMax          = 5 * engine.Second
	Partitions      = 6
	Consumers       = 3
	HandleMin       = 50 * engine.Millisecond
	HandleMax       = 350 * engine.Millisecond
	FailP           = 0.03
	RetryBackoff    = 5 * engine.Second // an in-place retry waits this long
	PollIdle        = 100 * engine.Millisecond
	RepartitionAt   = 5 * engine.Minute // after the start
	RebalanceDelay  = 10 * engine.Second
	AutoCommitEvery = 5 * engine.Second
	Topic           = "order-events"
	Group           = "fulfilment"
)

// The statuses, which are also the events' versions.
var statuses = [...]string{"none", "created", "paid", "shipped"}

// Randomness streams: each kind of draw is its own, so a knob that changes
// how many draws one part makes never shifts another.
const (
	streamGap    engine.Stream = 0x6f72645f676170 // "ord_gap"
	streamHandle engine.Stream = 0x6f72645f686e64 // "ord_hnd"
	streamFail   engine.Stream = 0x6f72645f666c   // "ord_fl"
	streamSticky engine.Stream = 0x6f72645f73746b // "ord_stk"
)

const (
	opCreate uint8 = iota
	opProduce
	opPoll
	opStart
	opEnd
	opRepartition
	opRebalance
	opRetryTail
	opLeave // a stopping consumer leaves the group (actions.go)
)

// thread is one handler thread of a consumer.
type thread struct {
	Busy    bool
	Rec     kafka.ConsumerRecord
	Attempt uint16
	Until   engine.Time
	Waiting bool // between a failure and its in-place retry
}

// consumer is one member of the group and its threads.
type consumer struct {
	C       *kafka.Consumer
	Buf     []kafka.ConsumerRecord
	Threads []thread
	Polling bool
	PollBG  bool   // the pending poll is a background step
	PollGen uint16 // only the latest scheduled poll runs
	// An operator's consumers=-N: a stopping consumer polls no more,
	// finishes what it holds, then leaves (Gone).
	Leaving, LeaveDue, Gone bool
}

func (c *consumer) running() int {
	n := 0
	for _, t := range c.Threads {
		if t.Busy {
			n++
		}
	}
	return n
}

// Family is the system's state.
type Family struct {
	k    *Knobs // the knobs in force (BindKnobs)
	C    *kafka.Cluster
	Prod *kafka.Producer
	Cons []consumer

	// per message (an order event): its order and its version (1..3)
	MsgOrder []int32
	MsgVer   []uint8
	Attempts []uint16 // handler attempts per message, for the draws

	// per order: the table row and what the handler has seen
	Status  []uint8 // applied status (= version)
	Seen    []uint8 // highest version handled so far
	Handled []uint8 // events handled

	// the unkeyed producer's sticky partition
	Sticky, StickyBytes int
	Switches            int
	Routes              [][]string // per partition count: a key that lands on each partition

	Produced    int
	Orders      int         // orders placed so far
	LastOrder   bool        // the last order has been placed
	Began       engine.Time // the first order
	PendingTail int         // failed events waiting to be put back at the tail
	OutOfOrder  int
	Ignored     int // versions: events older than the applied version
	IgnoredDup  int // versions: events of the applied version (a record read again)
	Applied     int
	Fails       int
	ToTail      int
	Rebalances  int
	PartsNow    int
	RepartTime  engine.Time
}

// New makes the family; knobs are read from the world as steps run, so a
// fork's changes apply from its moment (consumer_threads at the next
// dispatch, key and retry at the next event, repartition at 12:05).
func New(p *engine.Params) engine.Family { return &Family{} }

// Clone implements engine.Family.
func (f *Family) Clone() engine.Family {
	c := *f
	c.C = f.C.Clone()
	c.Prod = f.Prod.Clone()
	c.Cons = make([]consumer, len(f.Cons))
	for i, k := range f.Cons {
		c.Cons[i] = consumer{C: k.C.Clone(), Buf: append([]kafka.ConsumerRecord(nil), k.Buf...),
			Threads: append([]thread(nil), k.Threads...), Polling: k.Polling, PollBG: k.PollBG, PollGen: k.PollGen,
			Leaving: k.Leaving, LeaveDue: k.LeaveDue, Gone: k.Gone}
	}
	c.MsgOrder = append([]int32(nil), f.MsgOrder...)
	c.MsgVer = append([]uint8(nil), f.MsgVer...)
	c.Attempts = append([]uint16(nil), f.Attempts...)
	c.Status = append([]uint8(nil), f.Status...)
	c.Seen = append([]uint8(nil), f.Seen...)
	c.Handled = append([]uint8(nil), f.Handled...)
	c.Routes = append([][]string(nil), f.Routes...) // inner tables are never changed
	return &c
}

func memberID(i int) string { return fmt.Sprintf("fulfilment-%d", i+1) }

// Start implements engine.Family.
func (f *Family) Start(w *engine.World) {
	f.C = kafka.NewCluster(kafka.ClusterConfig{})
	if err := f.C.CreateTopic(Topic, Partitions); err != nil {
		panic(err)
	}
	f.PartsNow = Partitions
	p, err := kafka.NewProducer(f.C, int64(w.Now), kafka.ProducerConfig{Seed: w.Seed()})
	if err != nil {
		panic(err)
	}
	f.Prod = p
	f.Sticky = -1
	for i := 0; i < Consumers; i++ {
		f.Cons = append(f.Cons, f.newConsumer(w, i))
	}
	f.Began = w.Now
	w.Schedule(w.Now, engine.FamilyStep{Op: opCreate, Item: 0}, false)
	w.Schedule(w.Now+RepartitionAt, engine.FamilyStep{Op: opRepartition}, false)
	for i := range f.Cons {
		f.kick(w, i)
	}
}

// Step implements engine.Family.
func (f *Family) Step(w *engine.World, s engine.FamilyStep) {
	switch s.Op {
	case opCreate:
		f.create(w, s.Item)
	case opProduce:
		f.produceEvent(w, s.Item, uint8(s.Gen))
	case opPoll:
		f.poll(w, int(s.Actor), s.Gen)
	case opStart:
		f.start(w, int(s.Actor), int(s.Gen))
	case opEnd:
		f.end(w, int(s.Actor), int(s.Gen))
	case opRepartition:
		f.repartition(w)
	case opRebalance:
		f.rebalance(w)
	case opRetryTail:
		f.PendingTail--
		f.send(w, s.Item, true)
	case opLeave:
		f.leave(w, int(s.Actor))
	}
}

// --- the order service ---

// create publishes order o's "created" and schedules the next order and
// this order's later events.
func (f *Family) create(w *engine.World, o int32) {
	f.Status = append(f.Status, 0)
	f.Seen = append(f.Seen, 0)
	f.Handled = append(f.Handled, 0)
	f.Orders++
	every := OrderEvery
	if el := w.Now - f.Began; el >= RushFrom && el < RushTo {
		every = RushEvery
	}
	if next := w.Now + every; next < f.Began+OrdersFor {
		w.Schedule(next, engine.FamilyStep{Op: opCreate, Item: o + 1}, false)
	} else {
		f.LastOrder = true
	}
	paid := w.Now + engine.Time(engine.Uniform(w.Draw(streamGap, uint64(o), 1), int64(GapMin), int64(GapMax)))
	shipped := paid + engine.Time(engine.Uniform(w.Draw(streamGap, uint64(o), 2), int64(GapMin), int64(GapMax)))
	w.Schedule(paid, engine.FamilyStep{Op: opProduce, Item: o, Gen: 2}, false)
	w.Schedule(shipped, engine.FamilyStep{Op: opProduce, Item: o, Gen: 3}, false)
	f.produceEvent(w, o, 1)
}

func (f *Family) produceEvent(w *engine.World, o int32, ver uint8) {
	id := w.Truth().NewMessage()
	f.MsgOrder = append(f.MsgOrder, o)
	f.MsgVer = append(f.MsgVer, ver)
	f.Attempts = append(f.Attempts, 0)
	f.Produced++
	f.send(w, id, false)
}

// value is a record's payload: the order, its status and version, and the
// ground-truth message it carries.
func (f *Family) value(id int32) string {
	v := f.MsgVer[id]
	return fmt.Sprintf("order-%d %s v%d #%d", f.MsgOrder[id], statuses[v], v, id)
}

func msgOf(r kafka.Record) int32 {
	i := strings.LastIndexByte(r.Value, '#')
	n, err := strconv.Atoi(r.Value[i+1:])
	if err != nil {
		panic("ordering: record " + r.Value)
	}
	return int32(n)
}

// send produces message id's record: keyed by order id, or with no key
// (the sticky partitioner). The event (publish, or retry to the tail) is
// emitted here.
func (f *Family) send(w *engine.World, id int32, retry bool) {
	n := f.C.Partitions(Topic)
	var rec kafka.Record
	if !f.k.KeyNone {
		rec = kafka.Keyed(fmt.Sprintf("order-%d", f.MsgOrder[id]), f.value(id))
	} else {
		rec = kafka.Keyed(f.route(w, id, n), f.value(id))
	}
	res, err := f.Prod.Send(f.C, int64(w.Now), Topic, rec)
	if err != nil || len(res) != 1 {
		panic(fmt.Sprintf("ordering: produce: %v", err))
	}
	part := int64(res[0].TP.Partition)
	if retry {
		f.ToTail++
		w.Emit(EvRetryTail, id, -1, f.Attempts[id], part, res[0].BaseOffset)
	} else {
		w.Emit(engine.EvPublish, id, -1, 0, part, res[0].BaseOffset)
	}
	f.kickAll(w)
}

// route is the unkeyed producer's partition choice, the sticky
// partitioner of Kafka 3.3+ (KIP-794): stay on one partition until
// batch.size bytes went to it, then pick the next uniformly at random —
// a decision, so a fork can send the next stick elsewhere. The record is
// then produced with a routing key that lands on that partition (the
// model's producer has no explicit-partition send); panes show it as
// unkeyed.
func (f *Family) route(w *engine.World, id int32, n int) string {
	if f.Sticky < 0 || f.Sticky >= n || f.StickyBytes >= kafka.DefaultBatchSize {
		natural := engine.Uniform(w.Draw(streamSticky, uint64(f.Switches), uint64(n)), 0, int64(n-1))
		f.Sticky = int(w.Decide(DecPartition, id, -1, 0, natural, 0, int64(n-1)))
		f.StickyBytes = 0
		f.Switches++
	}
	f.StickyBytes += kafka.RecordSize(kafka.Unkeyed(f.value(id)))
	return f.routeKey(f.Sticky, n)
}

func (f *Family) routeKey(p, n int) string {
	for len(f.Routes) <= n {
		f.Routes = append(f.Routes, nil)
	}
	if f.Routes[n] == nil {
		t := make([]string, n)
		left := n
		for k := 0; left > 0; k++ {
			key := fmt.Sprintf("~%d", k)
			if q := kafka.KeyedPartition(key, n); t[q] == "" {
				t[q] = key
				left--
			}
		}
		f.Routes[n] = t
	}
	return f.Routes[n][p]
}

// --- partitions ---

func (f *Family) repartition(w *engine.World) {
	if f.k.Repartition <= f.C.Partitions(Topic) {
		return
	}
	f.raise(w, f.k.Repartition)
}

// raise adds partitions up to n (more than the topic has): the producer
// places by the new count at once, the group notices RebalanceDelay later.
func (f *Family) raise(w *engine.World, n int) {
	before := f.C.Partitions(Topic)
	if err := f.C.AddPartitions(Topic, n); err != nil {
		panic(err)
	}
	f.PartsNow = n
	f.RepartTime = w.Now
	w.Emit(EvRepartition, -1, -1, 0, int64(before), int64(n))
	w.Schedule(w.Now+RebalanceDelay, engine.FamilyStep{Op: opRebalance}, false)
}

func (f *Family) rebalance(w *engine.World) {
	f.C.Rebalance(Group)
	f.Rebalances++
	w.Emit(EvRebalance, -1, -1, 0, int64(f.C.Partitions(Topic)), int64(f.C.Generation(Group)))
	f.kickAll(w)
}
