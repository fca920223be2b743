package kafka

import (
	"errors"
	"testing"
)

func readAll(c *Cluster, group string, iso Isolation) []ConsumerRecord {
	co := NewConsumer(c, 0, ConsumerConfig{
		Group: group, MemberID: "reader", Topics: []string{"orders"},
		Isolation: iso, AutoOffsetReset: ResetEarliest, MaxPollRecords: 1 << 20,
	})
	return co.Poll(c, 0)
}

func TestTransactionalRestartFencesAndAborts(t *testing.T) {
	const batch = 100
	c := newCluster(t, map[string]int{"orders": 6})
	cfg := ProducerConfig{TransactionalID: "shop-1"}
	p1 := mustProducer(t, c, cfg)
	if err := p1.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if _, err := p1.Send(c, 0, "orders", batchOf(batch)...); err != nil {
		t.Fatal(err)
	}
	tp := TP{"orders", KeyedPartition("order-1", 6)}
	if lso := c.LastStableOffset(tp); lso != 0 {
		t.Fatalf("LSO %d with the transaction open, want 0", lso)
	}
	if got := readAll(c, "g-open", ReadCommitted); len(got) != 0 {
		t.Fatalf("read_committed saw %d records of an open transaction", len(got))
	}
	if got := readAll(c, "g-open-u", ReadUncommitted); len(got) != batch {
		t.Fatalf("read_uncommitted saw %d, want %d", len(got), batch)
	}

	// Crash before commit; the restarted instance has the same id.
	p2 := mustProducer(t, c, cfg)
	if p2.PID != p1.PID || p2.Epoch != p1.Epoch+2 {
		t.Fatalf("restart: pid %d epoch %d, old pid %d epoch %d", p2.PID, p2.Epoch, p1.PID, p1.Epoch)
	}
	if lso, leo := c.LastStableOffset(tp), c.LogEndOffset(tp); lso != leo || leo != batch+1 {
		t.Fatalf("after the fencing abort LSO %d LEO %d, want both %d", lso, leo, batch+1)
	}
	if last := c.Log(tp)[batch]; last.Control != AbortMarker {
		t.Fatalf("offset %d is %+v, want an abort marker", batch, last)
	}
	// The old instance is fenced.
	if _, err := p1.Send(c, 10, "orders", batchOf(1)...); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("zombie send: %v", err)
	}
	if !p1.Fenced() {
		t.Fatal("zombie not marked fenced")
	}
	if err := p1.CommitTransaction(c, 10); !errors.Is(err, ErrProducerFenced) {
		t.Fatalf("zombie commit: %v", err)
	}

	// The new instance re-sends the batch and commits.
	p2.BeginTransaction()
	if _, err := p2.Send(c, 20, "orders", batchOf(batch)...); err != nil {
		t.Fatal(err)
	}
	if err := p2.CommitTransaction(c, 30); err != nil {
		t.Fatal(err)
	}
	committed := readAll(c, "g-rc", ReadCommitted)
	seen := map[string]int{}
	for _, r := range committed {
		seen[r.Record.Value]++
	}
	if len(committed) != batch || len(seen) != batch {
		t.Fatalf("read_committed saw %d records (%d distinct), want each of %d once", len(committed), len(seen), batch)
	}
	if got := readAll(c, "g-ru", ReadUncommitted); len(got) != 2*batch {
		t.Fatalf("read_uncommitted saw %d, want %d (aborted ones included)", len(got), 2*batch)
	}
}

func TestOpenTransactionBlocksReadCommittedBeyondLSO(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	tx := mustProducer(t, c, ProducerConfig{TransactionalID: "t"})
	plain := mustProducer(t, c, ProducerConfig{})
	tx.BeginTransaction()
	tx.Send(c, 0, "orders", Keyed("a", "tx-1"))
	plain.Send(c, 1, "orders", Keyed("b", "plain-1"))
	co := NewConsumer(c, 0, ConsumerConfig{Group: "g", MemberID: "m", Topics: []string{"orders"},
		Isolation: ReadCommitted, AutoOffsetReset: ResetEarliest})
	if got := co.Poll(c, 2); len(got) != 0 {
		t.Fatalf("read past the LSO: %v", got)
	}
	tx.AbortTransaction(c, 3)
	got := co.Poll(c, 4)
	if len(got) != 1 || got[0].Record.Value != "plain-1" {
		t.Fatalf("after abort got %+v, want only plain-1", got)
	}
	if pos, _ := co.Position(TP{"orders", 0}); pos != 3 {
		t.Fatalf("position %d, want 3 (past the marker)", pos)
	}
}

func TestTransactionTimeoutFences(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	p := mustProducer(t, c, ProducerConfig{TransactionalID: "t", TransactionTimeout: 1000})
	p.BeginTransaction()
	p.Send(c, 0, "orders", Keyed("a", "x"))
	if got := c.ExpireTransactions(1000); len(got) != 0 {
		t.Fatalf("expired at exactly the timeout: %v", got)
	}
	if got := c.ExpireTransactions(1001); len(got) != 1 || got[0] != "t" {
		t.Fatalf("expire: %v", got)
	}
	if err := p.CommitTransaction(c, 1002); !errors.Is(err, ErrProducerFenced) {
		t.Fatalf("commit after timeout: %v", err)
	}
	if c.LastStableOffset(TP{"orders", 0}) != 2 {
		t.Fatal("timed-out transaction still open")
	}
}

func TestOffsetsInTransactionAreAnotherTopic(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1, "out": 1})
	in := TP{"orders", 0}
	src := mustProducer(t, c, ProducerConfig{})
	src.Send(c, 0, "orders", Keyed("a", "1"), Keyed("a", "2"))

	p := mustProducer(t, c, ProducerConfig{TransactionalID: "etl"})
	p.BeginTransaction()
	p.Send(c, 1, "out", Keyed("a", "1'"))
	if err := p.SendOffsetsToTransaction(c, 1, "etl-group", Offset{in, 1}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Committed("etl-group", in); ok {
		t.Fatal("offsets visible before commit")
	}
	p.AbortTransaction(c, 2)
	if _, ok := c.Committed("etl-group", in); ok {
		t.Fatal("aborted offsets took effect")
	}
	p.BeginTransaction()
	p.Send(c, 3, "out", Keyed("a", "1'"))
	p.SendOffsetsToTransaction(c, 3, "etl-group", Offset{in, 1})
	p.CommitTransaction(c, 4)
	if off, ok := c.Committed("etl-group", in); !ok || off != 1 {
		t.Fatalf("committed %d %v, want 1", off, ok)
	}
	otp := TP{OffsetsTopic, offsetsPartition("etl-group", DefaultOffsetsPartitions)}
	var kinds []Control
	for _, e := range c.Log(otp) {
		kinds = append(kinds, e.Control)
	}
	if len(kinds) != 4 || kinds[1] != AbortMarker || kinds[3] != CommitMarker {
		t.Fatalf("offsets partition log %v, want data, abort, data, commit", kinds)
	}
}

func TestOffsetsPartitionIsJavaHash(t *testing.T) {
	// "abc".hashCode() = 96354; 96354 % 50 = 4.
	if got := offsetsPartition("abc", 50); got != 4 {
		t.Fatalf("partitionFor(abc) = %d", got)
	}
	// "polygenelubricants".hashCode() = Integer.MIN_VALUE: Utils.abs gives 0.
	if got := offsetsPartition("polygenelubricants", 50); got != 0 {
		t.Fatalf("partitionFor(MIN_VALUE hash) = %d", got)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 2})
	p := mustProducer(t, c, ProducerConfig{TransactionalID: "t"})
	p.BeginTransaction()
	p.Send(c, 0, "orders", Keyed("a", "1"))
	co := NewConsumer(c, 0, ConsumerConfig{Group: "g", MemberID: "m", Topics: []string{"orders"}, AutoOffsetReset: ResetEarliest})
	c2, p2, co2 := c.Clone(), p.Clone(), co.Clone()

	p.CommitTransaction(c, 1)
	co.Poll(c, 1)
	co.Commit(c, 1)
	c.AddPartitions("orders", 4)

	if c2.Partitions("orders") != 2 {
		t.Fatal("clone saw the new partitions")
	}
	tp := TP{"orders", KeyedPartition("a", 2)}
	if c2.LastStableOffset(tp) != 0 {
		t.Fatal("clone saw the commit")
	}
	if _, ok := c2.Committed("g", tp); ok {
		t.Fatal("clone saw the offset commit")
	}
	if _, ok := co2.Position(tp); ok {
		t.Fatal("consumer clone saw the poll")
	}
	// The fork can take the other branch.
	if err := p2.AbortTransaction(c2, 1); err != nil {
		t.Fatal(err)
	}
	if got := co2.Poll(c2, 2); len(got) != 1 {
		t.Fatalf("fork read_uncommitted got %d", len(got))
	}
}
