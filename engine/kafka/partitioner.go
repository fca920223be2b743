package kafka

// Murmur2 is Kafka's murmur2 hash of data, bit for bit as
// org.apache.kafka.common.utils.Utils.murmur2 in the Java client (seed
// 0x9747b28c), returned as Java's signed int. It exists because the keyed
// partition of a record must match a real producer's exactly.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	length := len(data)
	h := seed ^ uint32(length)
	n4 := length / 4
	for i := 0; i < n4; i++ {
		i4 := i * 4
		k := uint32(data[i4]) | uint32(data[i4+1])<<8 | uint32(data[i4+2])<<16 | uint32(data[i4+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := length &^ 3
	switch length % 4 {
	case 3:
		h ^= uint32(data[tail+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[tail+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[tail])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// ToPositive is Utils.toPositive: clears the sign bit (it is not Math.abs;
// the minimum int maps to 0).
func ToPositive(n int32) int32 { return n & 0x7fffffff }

// KeyedPartition is the default partitioner's choice for a non-null key:
// toPositive(murmur2(key)) % numPartitions (BuiltInPartitioner.partitionForKey,
// Kafka 3.3+; DefaultPartitioner before). It is why changing a topic's
// partition count moves keys.
func KeyedPartition(key string, numPartitions int) int {
	return int(ToPositive(Murmur2([]byte(key)))) % numPartitions
}

// DefaultBatchSize is the producer's batch.size default, 16384 bytes.
const DefaultBatchSize = 16384

// RecordSize estimates the bytes a record adds to a batch, as
// DefaultRecord.sizeInBytes does for a record with no headers and zero
// offset and timestamp deltas. The sticky partitioner counts these bytes.
func RecordSize(r Record) int {
	body := 1 + 1 + 1 + 1 // attributes, timestamp delta, offset delta, header count
	if r.NoKey {
		body++ // varint -1
	} else {
		body += varintSize(int64(len(r.Key))) + len(r.Key)
	}
	body += varintSize(int64(len(r.Value))) + len(r.Value)
	return body + varintSize(int64(body))
}

// varintSize is the length of a zig-zag varint.
func varintSize(v int64) int {
	z := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for z >= 0x80 {
		z >>= 7
		n++
	}
	return n
}

// sticky is the unkeyed ("uniform sticky") partitioner's state for one
// topic, after KIP-794 (Kafka 3.3, BuiltInPartitioner): records without a
// key stick to one partition until at least batch.size bytes were produced
// to it, then the next partition is drawn uniformly at random from all
// partitions (it may be the same one again). Adaptive partitioning by
// broker queue sizes is not modelled: the simulator's broker has no queues,
// which is the case in which Kafka also draws uniformly.
type sticky struct {
	Topic     string
	Partition int // -1 until the first unkeyed record
	Produced  int
}

// splitmix is the randomness: a counter-based draw from the caller's seed,
// so a cloned producer continues the same sequence and nothing is shared.
func splitmix(seed, n uint64) uint64 {
	z := seed + (n+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// randomPartition is BuiltInPartitioner.nextPartition without load stats:
// toPositive(random int) % partitions.
func (p *Producer) randomPartition(n int) int {
	x := splitmix(p.cfg.Seed, p.draws)
	p.draws++
	return int(ToPositive(int32(x>>32))) % n
}

// partitionFor chooses the partition of one record and, for an unkeyed
// one, updates the sticky state (updatePartitionInfo with switching
// enabled: switch once produced bytes reach batch.size).
func (p *Producer) partitionFor(topic string, r Record, n int) int {
	if !r.NoKey {
		return KeyedPartition(r.Key, n)
	}
	var s *sticky
	for i := range p.sticky {
		if p.sticky[i].Topic == topic {
			s = &p.sticky[i]
		}
	}
	if s == nil {
		p.sticky = append(p.sticky, sticky{Topic: topic, Partition: -1})
		s = &p.sticky[len(p.sticky)-1]
	}
	if s.Partition < 0 || s.Partition >= n {
		s.Partition, s.Produced = p.randomPartition(n), 0
	}
	part := s.Partition
	s.Produced += RecordSize(r)
	if s.Produced >= p.cfg.BatchSize {
		s.Partition, s.Produced = p.randomPartition(n), 0
	}
	return part
}
