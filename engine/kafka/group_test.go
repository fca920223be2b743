package kafka

import (
	"errors"
	"fmt"
	"testing"
)

func consumer(c *Cluster, now int64, member string, iso Isolation) *Consumer {
	return NewConsumer(c, now, ConsumerConfig{
		Group: "mailer", MemberID: member, Topics: []string{"orders"},
		Isolation: iso, AutoOffsetReset: ResetEarliest,
	})
}

// The kafka-restart edge: a consumer sends an email per record and
// crashes before committing its offset; the next owner resumes at the
// committed offset and the emails go again.
func TestCrashBeforeCommitRedelivers(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	p := mustProducer(t, c, ProducerConfig{})
	p.Send(c, 0, "orders", batchOf(10)...)

	emails := map[string]int{}
	a := consumer(c, 0, "a", ReadUncommitted)
	for _, r := range a.Poll(c, 1) {
		emails[r.Record.Value]++
	}
	// a crashes: no commit. The coordinator expires it after the session
	// timeout; b, already in the group, takes the partition over.
	b := consumer(c, 2, "b", ReadUncommitted)
	if got := b.Poll(c, 3); len(got) != 0 {
		t.Fatalf("b got %d records while a still owns the partition", len(got))
	}
	c.LeaveGroup("mailer", "a")
	for _, r := range b.Poll(c, 1+DefaultSessionTimeout) {
		emails[r.Record.Value]++
	}
	b.Commit(c, 2+DefaultSessionTimeout)
	for v, n := range emails {
		if n != 2 {
			t.Fatalf("%s emailed %d times, want 2", v, n)
		}
	}
	if len(emails) != 10 {
		t.Fatalf("%d distinct emails", len(emails))
	}
	if lag := c.Lag("mailer", TP{"orders", 0}); lag != 0 {
		t.Fatalf("lag %d after b's commit", lag)
	}
}

// The same crash with transactions end to end: the consumer emails, then
// writes its output and its offsets in one transaction, and crashes before
// committing it. Kafka keeps its own side exactly once; the email goes twice.
func TestCrashBeforeCommitWithTransactionsStillDuplicatesEmail(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1, "out": 1})
	src := mustProducer(t, c, ProducerConfig{})
	src.Send(c, 0, "orders", batchOf(10)...)

	emails := 0
	process := func(now int64, member string) (*Producer, *Consumer) {
		co := consumer(c, now, member, ReadCommitted)
		p := mustProducer(t, c, ProducerConfig{TransactionalID: "mailer-1"})
		p.BeginTransaction()
		recs := co.Poll(c, now)
		for _, r := range recs {
			emails++ // the effect outside Kafka
			p.Send(c, now, "out", Keyed(r.Record.Key, "sent:"+r.Record.Value))
		}
		if err := p.SendOffsetsToTransaction(c, now, "mailer", NextOffsets(recs)...); err != nil {
			t.Fatal(err)
		}
		return p, co
	}
	process(1, "a") // crashes before CommitTransaction
	c.LeaveGroup("mailer", "a")
	p, _ := process(1+DefaultSessionTimeout, "b")
	if err := p.CommitTransaction(c, 2+DefaultSessionTimeout); err != nil {
		t.Fatal(err)
	}
	if emails != 20 {
		t.Fatalf("emails %d, want 20 (10 duplicates)", emails)
	}
	out := NewConsumer(c, 0, ConsumerConfig{Group: "audit", MemberID: "x", Topics: []string{"out"},
		Isolation: ReadCommitted, AutoOffsetReset: ResetEarliest}).Poll(c, 100_000)
	if len(out) != 10 {
		t.Fatalf("read_committed output has %d records, want 10", len(out))
	}
	if off, _ := c.Committed("mailer", TP{"orders", 0}); off != 10 {
		t.Fatalf("committed %d, want 10", off)
	}
}

// A consumer that dies keeps its partitions until its session times out:
// with no static membership its restart is a new member, whose JoinGroup
// is held while the coordinator waits for the dead one to rejoin. Only
// the eviction hands the partitions over, at the committed offsets.
func TestJoinWaitsForSilentMember(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 3})
	mustProducer(t, c, ProducerConfig{}).Send(c, 0, "orders", batchOf(30)...)
	a := consumer(c, 0, "mailer-1", ReadUncommitted)
	read := a.Poll(c, 1)
	if len(read) != 30 {
		t.Fatalf("a read %d records, want 30", len(read))
	}
	a.CommitOffsets(c, 2, NextOffsets(read[:1])...)
	c.Silence("mailer", "mailer-1") // dies before committing the rest
	gen := c.Generation("mailer")
	b := consumer(c, 2_000, "mailer-2", ReadUncommitted)
	for now := int64(2_000); now < DefaultSessionTimeout; now += 200 {
		if got := b.Poll(c, now); len(got) != 0 {
			t.Fatalf("at %d ms mailer-2 read %d records while mailer-1 was still in the group", now, len(got))
		}
	}
	if g := c.Generation("mailer"); g != gen {
		t.Fatalf("generation %d → %d before the eviction", gen, g)
	}
	if got := c.Joining("mailer"); len(got) != 1 || got[0] != "mailer-2" {
		t.Fatalf("held joins %v", got)
	}
	for p := 0; p < 3; p++ {
		if o := c.Owner("mailer", TP{"orders", p}); o != "mailer-1" {
			t.Fatalf("orders-%d owned by %q before the eviction, want mailer-1", p, o)
		}
	}
	c.LeaveGroup("mailer", "mailer-1") // session.timeout.ms after its last heartbeat
	if got := c.Joining("mailer"); len(got) != 0 || len(c.Assignment("mailer", "mailer-2")) != 3 {
		t.Fatalf("after the eviction: held %v, mailer-2 owns %v", got, c.Assignment("mailer", "mailer-2"))
	}
	again := b.Poll(c, DefaultSessionTimeout)
	if len(again) != 29 {
		t.Fatalf("mailer-2 read %d records after the eviction, want the 29 not committed", len(again))
	}
}

func TestRangeAssignmentAndRebalance(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 6})
	for _, m := range []string{"c", "a", "b", "d"} {
		consumer(c, 0, m, ReadUncommitted)
	}
	// 6 partitions over a,b,c,d: a and b get two each.
	want := map[string][]int{"a": {0, 1}, "b": {2, 3}, "c": {4}, "d": {5}}
	for m, parts := range want {
		got := c.Assignment("mailer", m)
		if len(got) != len(parts) {
			t.Fatalf("%s: %v", m, got)
		}
		for i := range parts {
			if got[i].Partition != parts[i] {
				t.Fatalf("%s: %v, want %v", m, got, parts)
			}
		}
	}
	gen := c.Generation("mailer")
	c.LeaveGroup("mailer", "d")
	if c.Generation("mailer") != gen+1 || len(c.Assignment("mailer", "a")) != 2 || len(c.Assignment("mailer", "c")) != 2 {
		t.Fatalf("after d left: a %v c %v", c.Assignment("mailer", "a"), c.Assignment("mailer", "c"))
	}
}

// A consumer stuck in its handler past max.poll.interval.ms is removed;
// its late commit fails; the new owner redelivers; the stuck one rejoins
// on its next poll.
func TestPollTimeoutRedeliversAndCommitFails(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	mustProducer(t, c, ProducerConfig{}).Send(c, 0, "orders", batchOf(5)...)
	a := consumer(c, 0, "a", ReadUncommitted)
	b := consumer(c, 0, "b", ReadUncommitted)
	first := a.Poll(c, 1)
	b.Poll(c, 1)
	if len(first) != 5 {
		t.Fatalf("a got %d", len(first))
	}
	if got := c.ExpirePollTimeouts(1 + DefaultMaxPollInterval); len(got) != 0 {
		t.Fatalf("expired at exactly the interval: %v", got)
	}
	b.Poll(c, DefaultMaxPollInterval) // b keeps polling
	if got := c.ExpirePollTimeouts(2 + DefaultMaxPollInterval); len(got) != 1 || got[0] != "mailer/a" {
		t.Fatalf("expired %v", got)
	}
	if err := a.Commit(c, 3+DefaultMaxPollInterval); !errors.Is(err, ErrCommitFailed) {
		t.Fatalf("late commit: %v", err)
	}
	again := b.Poll(c, 4+DefaultMaxPollInterval)
	if len(again) != 5 || again[0].Offset != first[0].Offset {
		t.Fatalf("b redelivered %d records", len(again))
	}
	b.Commit(c, 5+DefaultMaxPollInterval)
	a.Poll(c, 6+DefaultMaxPollInterval) // rejoins
	if len(c.Members("mailer")) != 2 {
		t.Fatalf("members %v", c.Members("mailer"))
	}
}

func TestAutoCommitOnRebalance(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	mustProducer(t, c, ProducerConfig{}).Send(c, 0, "orders", batchOf(3)...)
	a := NewConsumer(c, 0, ConsumerConfig{Group: "g", MemberID: "a", Topics: []string{"orders"},
		AutoOffsetReset: ResetEarliest, AutoCommit: true})
	a.Poll(c, 1)
	NewConsumer(c, 2, ConsumerConfig{Group: "g", MemberID: "b", Topics: []string{"orders"}})
	a.Poll(c, 3) // joins the rebalance, committing first
	if off, ok := c.Committed("g", TP{"orders", 0}); !ok || off != 3 {
		t.Fatalf("auto-commit on rebalance: %d %v", off, ok)
	}
}

func TestOffsetResetLatestSkipsOldRecords(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	p := mustProducer(t, c, ProducerConfig{})
	p.Send(c, 0, "orders", batchOf(3)...)
	co := NewConsumer(c, 1, ConsumerConfig{Group: "g", MemberID: "a", Topics: []string{"orders"}})
	if got := co.Poll(c, 1); len(got) != 0 {
		t.Fatalf("latest read %d old records", len(got))
	}
	p.Send(c, 2, "orders", batchOf(1)...)
	if got := co.Poll(c, 3); len(got) != 1 {
		t.Fatalf("latest then new record: %d", len(got))
	}
}

// outOfOrder produces created→paid→shipped for n orders, each order's
// events gap sends apart so many orders are in progress at once, and
// consumes with one consumer per partition, the partitions processed
// highest first (any fixed interleaving of independent consumers would
// do). It counts orders whose events were not processed in order.
func outOfOrder(t *testing.T, keyed bool, repartitionAt int) int {
	c := newCluster(t, map[string]int{"orders": 6})
	p := mustProducer(t, c, ProducerConfig{Seed: 42})
	const n, gap = 3000, 100
	for i := 0; i < n+2*gap; i++ {
		if i == repartitionAt {
			c.AddPartitions("orders", 8)
		}
		for s := 0; s < 3; s++ {
			o := i - s*gap
			if o < 0 || o >= n {
				continue
			}
			key := fmt.Sprintf("order-%d", o)
			r := Keyed(key, fmt.Sprintf("%s %d", key, s))
			if !keyed {
				r = Unkeyed(r.Value)
			}
			if _, err := p.Send(c, int64(i), "orders", r); err != nil {
				t.Fatal(err)
			}
		}
	}
	progress := map[string]int{}
	bad := map[string]bool{}
	for part := c.Partitions("orders") - 1; part >= 0; part-- {
		for _, e := range c.Log(TP{"orders", part}) {
			var o string
			var step int
			fmt.Sscanf(e.Record.Value, "%s %d", &o, &step)
			if progress[o] != step {
				bad[o] = true
			}
			progress[o] = step + 1
		}
	}
	return len(bad)
}

func TestOrderingPerPartitionNotPerTopic(t *testing.T) {
	if got := outOfOrder(t, true, -1); got != 0 {
		t.Fatalf("keyed: %d orders out of order", got)
	}
	none, repart := outOfOrder(t, false, -1), outOfOrder(t, true, 1500)
	t.Logf("out of order of 3000: key=none %d, repartition 6->8 %d", none, repart)
	if none == 0 {
		t.Fatal("key=none: no order out of order")
	}
	if repart == 0 {
		t.Fatal("repartition 6->8 mid-run: no order out of order")
	}
}

// A checkpoint taken while a join is held keeps both the silent member
// and the held join: the clone completes the rebalance at its own
// eviction, and the original is untouched by it.
func TestHeldJoinClones(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 3})
	consumer(c, 0, "mailer-1", ReadUncommitted)
	c.Silence("mailer", "mailer-1")
	consumer(c, 1, "mailer-2", ReadUncommitted)
	d := c.Clone()
	d.LeaveGroup("mailer", "mailer-1")
	if got := c.Joining("mailer"); len(got) != 1 || c.Owner("mailer", TP{"orders", 2}) != "mailer-1" {
		t.Fatalf("original after the clone's eviction: held %v, orders-2 owned by %q", got, c.Owner("mailer", TP{"orders", 2}))
	}
	if got := d.Joining("mailer"); len(got) != 0 || d.Owner("mailer", TP{"orders", 2}) != "mailer-2" {
		t.Fatalf("clone after its eviction: held %v, orders-2 owned by %q", got, d.Owner("mailer", TP{"orders", 2}))
	}
}
