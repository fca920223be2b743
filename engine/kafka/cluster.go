// Package kafka models the parts of Apache Kafka that decide how many times
// a record is stored, read and processed: partitioned logs with offsets,
// the Java client's partitioners, the idempotent producer, transactions with
// read_committed consumers, and consumer groups with committed offsets and
// rebalances.
//
// Every value is plain data: no goroutines, no clock (times are int64
// milliseconds passed in), no randomness but the seed a producer is given,
// and no decision taken by iterating a Go map. Cluster, Producer and
// Consumer each have a deep Clone, so the simulator can checkpoint and fork.
// Broker state lives in Cluster; client state (sequence numbers, fetch
// positions, the sticky partition) lives in Producer and Consumer, so a
// client restart is simply a new client value.
//
// Sources, cited again next to each rule:
//   - [IDEM] KIP-98 and the producer configs, enable.idempotence (default
//     true since 3.0): https://kafka.apache.org/documentation/#producerconfigs_enable.idempotence
//     and the broker's ProducerStateManager / ProducerStateEntry
//     (NUM_BATCHES_TO_RETAIN = 5).
//   - [TXN] KIP-98, KafkaProducer.initTransactions javadoc, and
//     TransactionCoordinator.handleInitProducerId.
//   - [ISO] consumer config isolation.level:
//     https://kafka.apache.org/documentation/#consumerconfigs_isolation.level
//   - [PART] KIP-794 and BuiltInPartitioner (3.3+), Utils.murmur2.
//   - [GROUP] consumer configs max.poll.interval.ms, session.timeout.ms,
//     auto.offset.reset, enable.auto.commit; RangeAssignor; the
//     coordinator's join phase (GroupCoordinator: a rebalance completes
//     when every known member has rejoined or been expired). Members are
//     dynamic: KIP-345's group.instance.id, with which a restarted
//     instance would take its old place without waiting, is not modelled.
package kafka

import (
	"errors"
	"fmt"
	"sort"
)

// Errors, named after Kafka's error codes or the Java exception a client
// raises.
var (
	// ErrOutOfOrderSequence is a batch whose first sequence number does
	// not follow the last one the partition accepted from that producer.
	ErrOutOfOrderSequence = errors.New("OUT_OF_ORDER_SEQUENCE_NUMBER")
	// ErrInvalidProducerEpoch is the partition leader refusing a batch from
	// an epoch older than the one it knows (a fenced zombie, since 2.7).
	ErrInvalidProducerEpoch = errors.New("INVALID_PRODUCER_EPOCH")
	// ErrProducerFenced is the transaction coordinator refusing a request
	// from a superseded epoch (KIP-588); the client then stays fenced.
	ErrProducerFenced = errors.New("PRODUCER_FENCED")
	// ErrInvalidTxnState is a transactional call out of order (commit
	// without begin, send outside a transaction, begin twice).
	ErrInvalidTxnState = errors.New("INVALID_TXN_STATE")
	// ErrUnknownTopic names a topic or partition that does not exist.
	ErrUnknownTopic = errors.New("UNKNOWN_TOPIC_OR_PARTITION")
	// ErrTopicExists is CreateTopic on an existing name.
	ErrTopicExists = errors.New("TOPIC_ALREADY_EXISTS")
	// ErrInvalidPartitions is a partition count that is not an increase.
	ErrInvalidPartitions = errors.New("INVALID_PARTITIONS")
	// ErrCommitFailed is CommitFailedException: the member is no longer in
	// the group (UNKNOWN_MEMBER_ID), typically after max.poll.interval.ms.
	ErrCommitFailed = errors.New("CommitFailedException: UNKNOWN_MEMBER_ID")
)

// Defaults from the Kafka documentation.
const (
	// OffsetsTopic is the internal topic where committed offsets live.
	OffsetsTopic = "__consumer_offsets"
	// DefaultOffsetsPartitions is offsets.topic.num.partitions.
	DefaultOffsetsPartitions = 50
	// DefaultMaxPollInterval is max.poll.interval.ms.
	DefaultMaxPollInterval int64 = 300_000
	// DefaultSessionTimeout is session.timeout.ms since 3.0 (45 s): how long
	// after a crash the coordinator removes a silent member. The simulator
	// calls LeaveGroup at crash time + this.
	DefaultSessionTimeout int64 = 45_000
	// DefaultTransactionTimeout is transaction.timeout.ms.
	DefaultTransactionTimeout int64 = 60_000
	// DefaultMaxPollRecords is max.poll.records.
	DefaultMaxPollRecords = 500
	// DefaultAutoCommitInterval is auto.commit.interval.ms.
	DefaultAutoCommitInterval int64 = 5_000
)

// TP names one partition of one topic.
type TP struct {
	Topic     string
	Partition int
}

// String is Kafka's "topic-partition" notation.
func (tp TP) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Record is what a producer sends. NoKey is Kafka's null key (the sticky
// partitioner chooses); an empty Key with NoKey false is a real key and is
// hashed.
type Record struct {
	Key   string
	NoKey bool
	Value string
}

// Keyed returns a record with a key.
func Keyed(key, value string) Record { return Record{Key: key, Value: value} }

// Unkeyed returns a record with a null key.
func Unkeyed(value string) Record { return Record{NoKey: true, Value: value} }

// Control marks a log entry as a transaction marker rather than data.
type Control int

const (
	// Data is an ordinary record.
	Data Control = iota
	// CommitMarker ends a committed transaction in this partition.
	CommitMarker
	// AbortMarker ends an aborted transaction in this partition.
	AbortMarker
)

// Entry is one record in a partition's log, as the broker stores it.
// Markers take an offset like any record, so offsets of data records can
// have gaps.
type Entry struct {
	Offset        int64
	Record        Record
	Control       Control
	ProducerID    int64 // -1 for a non-idempotent producer
	Epoch         int16
	Seq           int32
	Transactional bool
	Time          int64
}

// ClusterConfig sizes the cluster. Zero fields take Kafka's defaults.
type ClusterConfig struct {
	OffsetsPartitions int
}

// Cluster is the brokers: topics, the idempotence and transaction state,
// and the group coordinator. Create it with NewCluster.
type Cluster struct {
	topics  map[string][]*partition
	names   []string // topic names, sorted
	nextPID int64
	txns    map[string]*txnMeta // by transactional.id
	groups  map[string]*group
}

// NewCluster returns a cluster holding only the offsets topic.
func NewCluster(cfg ClusterConfig) *Cluster {
	if cfg.OffsetsPartitions <= 0 {
		cfg.OffsetsPartitions = DefaultOffsetsPartitions
	}
	c := &Cluster{
		topics:  map[string][]*partition{},
		nextPID: 1000,
		txns:    map[string]*txnMeta{},
		groups:  map[string]*group{},
	}
	c.CreateTopic(OffsetsTopic, cfg.OffsetsPartitions)
	return c
}

// CreateTopic creates a topic with n partitions.
func (c *Cluster) CreateTopic(name string, n int) error {
	if _, ok := c.topics[name]; ok {
		return ErrTopicExists
	}
	if n < 1 {
		return ErrInvalidPartitions
	}
	c.topics[name] = nil
	c.names = append(c.names, name)
	sort.Strings(c.names)
	return c.AddPartitions(name, n)
}

// AddPartitions raises a topic's partition count to total (CreatePartitions).
// Kafka can only add partitions, never remove them. Existing records stay
// where they are; new keyed records are placed by the new count, so a key
// may now land elsewhere. Consumer groups notice only when Rebalance is
// called (a real consumer notices on its next metadata refresh,
// metadata.max.age.ms, 5 minutes by default).
func (c *Cluster) AddPartitions(name string, total int) error {
	parts, ok := c.topics[name]
	if !ok {
		return ErrUnknownTopic
	}
	if total <= len(parts) {
		return ErrInvalidPartitions
	}
	for i := len(parts); i < total; i++ {
		parts = append(parts, newPartition(TP{name, i}))
	}
	c.topics[name] = parts
	return nil
}

// Topics returns the topic names, sorted, including the offsets topic.
func (c *Cluster) Topics() []string { return append([]string(nil), c.names...) }

// Partitions returns a topic's partition count, 0 if it does not exist.
func (c *Cluster) Partitions(topic string) int { return len(c.topics[topic]) }

func (c *Cluster) partition(tp TP) (*partition, error) {
	parts := c.topics[tp.Topic]
	if tp.Partition < 0 || tp.Partition >= len(parts) {
		return nil, ErrUnknownTopic
	}
	return parts[tp.Partition], nil
}

// LogEndOffset is the offset the next record appended to tp will get (the
// high watermark too: the model has no replication lag).
func (c *Cluster) LogEndOffset(tp TP) int64 {
	p, err := c.partition(tp)
	if err != nil {
		return 0
	}
	return int64(len(p.Log))
}

// LastStableOffset is the first offset of the oldest transaction still open
// in tp, or the log end offset when none is: read_committed consumers read
// no further [ISO].
func (c *Cluster) LastStableOffset(tp TP) int64 {
	p, err := c.partition(tp)
	if err != nil {
		return 0
	}
	return p.lso()
}

// Log returns a copy of tp's log: the ground truth, markers included.
func (c *Cluster) Log(tp TP) []Entry {
	p, err := c.partition(tp)
	if err != nil {
		return nil
	}
	return append([]Entry(nil), p.Log...)
}

// Clone returns a deep copy sharing nothing mutable with c.
func (c *Cluster) Clone() *Cluster {
	n := &Cluster{
		topics:  make(map[string][]*partition, len(c.topics)),
		names:   append([]string(nil), c.names...),
		nextPID: c.nextPID,
		txns:    make(map[string]*txnMeta, len(c.txns)),
		groups:  make(map[string]*group, len(c.groups)),
	}
	for name, parts := range c.topics {
		cp := make([]*partition, len(parts))
		for i, p := range parts {
			cp[i] = p.clone()
		}
		n.topics[name] = cp
	}
	for id, t := range c.txns {
		n.txns[id] = t.clone()
	}
	for id, g := range c.groups {
		n.groups[id] = g.clone()
	}
	return n
}

// allocatePID is InitProducerId's producer id allocation: a fresh id every
// time, never reused.
func (c *Cluster) allocatePID() int64 {
	c.nextPID++
	return c.nextPID
}
