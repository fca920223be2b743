package kafka

import (
	"errors"
	"fmt"
	"testing"
)

func TestMurmur2Vectors(t *testing.T) {
	// The first three are BROKERS.md's; the rest are Kafka's UtilsTest.
	for in, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"abc":                        479470107,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
	} {
		if got := Murmur2([]byte(in)); got != want {
			t.Errorf("murmur2(%q) = %d, want %d", in, got, want)
		}
	}
	if got := KeyedPartition("21", 6); got != int(ToPositive(-973932308))%6 {
		t.Errorf("partition of 21: %d", got)
	}
	if ToPositive(-1<<31) != 0 {
		t.Error("toPositive(MIN_VALUE) must be 0")
	}
}

func newCluster(t *testing.T, topics map[string]int) *Cluster {
	t.Helper()
	c := NewCluster(ClusterConfig{})
	for _, name := range []string{"orders", "out", "events"} {
		if n, ok := topics[name]; ok {
			if err := c.CreateTopic(name, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c
}

func batchOf(n int) []Record {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Keyed("order-1", fmt.Sprintf("line-%d", i))
	}
	return recs
}

// dataCount counts data records stored in a topic, markers excluded.
func dataCount(c *Cluster, topic string) int {
	n := 0
	for p := 0; p < c.Partitions(topic); p++ {
		for _, e := range c.Log(TP{topic, p}) {
			if e.Control == Data {
				n++
			}
		}
	}
	return n
}

func mustProducer(t *testing.T, c *Cluster, cfg ProducerConfig) *Producer {
	t.Helper()
	p, err := NewProducer(c, 0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRetryWithinSessionIsDeduplicated(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 6})
	p := mustProducer(t, c, ProducerConfig{})
	bs, err := p.Prepare(c, "orders", batchOf(100)...)
	if err != nil || len(bs) != 1 {
		t.Fatalf("prepare: %v, %d batches", err, len(bs))
	}
	first, err := p.Produce(c, 0, bs[0])
	if err != nil || first.Duplicate {
		t.Fatalf("first produce %+v %v", first, err)
	}
	// The answer was lost; the client retries the same batch.
	retry, err := p.Produce(c, 1000, bs[0])
	if err != nil || !retry.Duplicate || retry.BaseOffset != first.BaseOffset || retry.LastOffset != first.LastOffset {
		t.Fatalf("retry %+v %v, want the original offsets %+v", retry, err, first)
	}
	if n := dataCount(c, "orders"); n != 100 {
		t.Fatalf("stored %d records, want 100", n)
	}
}

func TestRestartedProducerWithoutTransactionalIDGetsNewProducerID(t *testing.T) {
	const batch = 100
	c := newCluster(t, map[string]int{"orders": 6})
	p1 := mustProducer(t, c, ProducerConfig{})
	if _, err := p1.Send(c, 0, "orders", batchOf(batch)...); err != nil {
		t.Fatal(err)
	}
	// Answer lost, process restarts, re-sends the batch.
	p2 := mustProducer(t, c, ProducerConfig{})
	if p2.PID == p1.PID {
		t.Fatalf("restart kept producer id %d", p1.PID)
	}
	res, err := p2.Send(c, 5000, "orders", batchOf(batch)...)
	if err != nil || res[0].Duplicate {
		t.Fatalf("re-send %+v %v", res, err)
	}
	if dup := dataCount(c, "orders") - batch; dup != batch {
		t.Fatalf("duplicates %d, want %d", dup, batch)
	}
}

func TestSequenceGapAndRetainedBatches(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	p := mustProducer(t, c, ProducerConfig{})
	var bs []Batch
	for i := 0; i < 7; i++ {
		b, _ := p.Prepare(c, "orders", Keyed("k", fmt.Sprint(i)), Keyed("k", fmt.Sprint(i)))
		bs = append(bs, b[0])
	}
	if _, err := p.Produce(c, 0, bs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Produce(c, 0, bs[2]); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("gap: %v", err)
	}
	for i := 1; i < 6; i++ {
		if _, err := p.Produce(c, 0, bs[i]); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	// The broker remembers batches 1..5; batch 0 fell out of the window.
	if r, err := p.Produce(c, 0, bs[1]); err != nil || !r.Duplicate || r.BaseOffset != 2 {
		t.Fatalf("retry of batch 1: %+v %v", r, err)
	}
	if _, err := p.Produce(c, 0, bs[0]); !errors.Is(err, ErrOutOfOrderSequence) {
		t.Fatalf("retry of a forgotten batch: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", err)
	}
	if n := dataCount(c, "orders"); n != 12 {
		t.Fatalf("stored %d, want 12", n)
	}
}

func TestIdempotenceDisabledStoresRetries(t *testing.T) {
	c := newCluster(t, map[string]int{"orders": 1})
	p := mustProducer(t, c, ProducerConfig{DisableIdempotence: true})
	bs, _ := p.Prepare(c, "orders", batchOf(3)...)
	p.Produce(c, 0, bs[0])
	if r, _ := p.Produce(c, 0, bs[0]); r.Duplicate || dataCount(c, "orders") != 6 {
		t.Fatal("without idempotence a retry must be stored again")
	}
}

func TestStickyPartitioner(t *testing.T) {
	c := newCluster(t, map[string]int{"events": 6})
	rec := Unkeyed("0123456789")
	size := RecordSize(rec)
	if size != 1+4+1+1+10 { // length varint; attributes, deltas, header count; null key; value length; value
		t.Fatalf("record size %d", size)
	}
	p := mustProducer(t, c, ProducerConfig{BatchSize: 10 * size, Seed: 7})
	var parts []int
	for i := 0; i < 100; i++ {
		res, err := p.Send(c, 0, "events", rec)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, res[0].TP.Partition)
	}
	// Exactly batch.size bytes per partition before the switch.
	distinct := map[int]bool{}
	for i := 0; i < 100; i += 10 {
		for j := i; j < i+10; j++ {
			if parts[j] != parts[i] {
				t.Fatalf("records %d and %d split within a sticky run: %v", i, j, parts[i:i+10])
			}
		}
		distinct[parts[i]] = true
	}
	if len(distinct) < 3 {
		t.Fatalf("sticky runs used only partitions %v", distinct)
	}
	// Same seed, same choices; a clone continues the same sequence.
	q := mustProducer(t, c, ProducerConfig{BatchSize: 10 * size, Seed: 7})
	for i := 0; i < 55; i++ {
		q.Send(c, 0, "events", rec)
	}
	q2 := q.Clone()
	for i := 55; i < 100; i++ {
		r1, _ := q.Send(c, 0, "events", rec)
		r2, _ := q2.Send(c, 0, "events", rec)
		if r1[0].TP != r2[0].TP || r1[0].TP.Partition != parts[i] {
			t.Fatalf("record %d: %v vs %v vs %d", i, r1[0].TP, r2[0].TP, parts[i])
		}
	}
}

func TestRepartitionMovesSomeKeys(t *testing.T) {
	moved, stayed := 0, 0
	for i := 0; i < 100; i++ {
		k := fmt.Sprintf("order-%d", i)
		if KeyedPartition(k, 6) == KeyedPartition(k, 8) {
			stayed++
		} else {
			moved++
		}
	}
	if moved == 0 || stayed == 0 {
		t.Fatalf("6->8: moved %d stayed %d", moved, stayed)
	}
	c := newCluster(t, map[string]int{"orders": 6})
	p := mustProducer(t, c, ProducerConfig{})
	var key string
	for i := 0; ; i++ {
		key = fmt.Sprintf("order-%d", i)
		if KeyedPartition(key, 6) != KeyedPartition(key, 8) {
			break
		}
	}
	before, _ := p.Send(c, 0, "orders", Keyed(key, "created"))
	if err := c.AddPartitions("orders", 8); err != nil {
		t.Fatal(err)
	}
	after, _ := p.Send(c, 1, "orders", Keyed(key, "paid"))
	if before[0].TP == after[0].TP || after[0].TP.Partition != KeyedPartition(key, 8) {
		t.Fatalf("%s: before %v after %v", key, before[0].TP, after[0].TP)
	}
	if err := c.AddPartitions("orders", 7); !errors.Is(err, ErrInvalidPartitions) {
		t.Fatalf("shrinking: %v", err)
	}
}
