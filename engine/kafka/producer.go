package kafka

// ProducerConfig is a producer's settings. Zero fields take Kafka's
// defaults, except the two flags, whose zero value is the default.
type ProducerConfig struct {
	// TransactionalID enables transactions; the same id across restarts is
	// what lets a new instance fence the old one [TXN].
	TransactionalID string
	// DisableIdempotence turns enable.idempotence off (it is on by default
	// since Kafka 3.0) [IDEM]. Not allowed with a TransactionalID.
	DisableIdempotence bool
	// BatchSize is batch.size, the sticky partitioner's switch threshold.
	BatchSize int
	// TransactionTimeout is transaction.timeout.ms.
	TransactionTimeout int64
	// Seed drives the sticky partitioner's random partition choices.
	Seed uint64
}

// Producer is one producer instance's client-side state: its producer id
// and epoch, the next sequence number per partition, the sticky partition,
// and its transaction state. A restart is a new Producer: the old value is
// simply dropped, its sequence numbers with it.
type Producer struct {
	cfg    ProducerConfig
	PID    int64
	Epoch  int16
	seqs   map[TP]int32 // looked up, never iterated
	sticky []sticky
	draws  uint64
	inTxn  bool
	// txnParts are the partitions this client already added to its open
	// transaction; it does not ask the coordinator again for those.
	txnParts []TP
	fenced   bool
}

// NewProducer starts a producer: InitProducerId, or initTransactions with a
// transactional id. Without a transactional id every call yields a new
// producer id, so idempotence holds "only within a single session" [IDEM].
// With one, the coordinator keeps the producer id, aborts the previous
// instance's open transaction and bumps the epoch, fencing it [TXN].
func NewProducer(c *Cluster, now int64, cfg ProducerConfig) (*Producer, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.TransactionTimeout <= 0 {
		cfg.TransactionTimeout = DefaultTransactionTimeout
	}
	p := &Producer{cfg: cfg, PID: -1, seqs: map[TP]int32{}}
	switch {
	case cfg.TransactionalID != "":
		if cfg.DisableIdempotence {
			return nil, ErrInvalidTxnState
		}
		p.PID, p.Epoch = c.initTransactional(cfg.TransactionalID, cfg.TransactionTimeout, now)
	case !cfg.DisableIdempotence:
		p.PID, p.Epoch = c.allocatePID(), 0
	}
	return p, nil
}

// Config returns the producer's settings with defaults filled in.
func (p *Producer) Config() ProducerConfig { return p.cfg }

// Clone returns a deep copy of the client state.
func (p *Producer) Clone() *Producer {
	n := *p
	n.seqs = make(map[TP]int32, len(p.seqs))
	for k, v := range p.seqs {
		n.seqs[k] = v
	}
	n.sticky = append([]sticky(nil), p.sticky...)
	n.txnParts = append([]TP(nil), p.txnParts...)
	return &n
}

// Batch is one produce request for one partition, stamped with the
// producer id, epoch and first sequence number. Keep it to model a retry:
// producing the same Batch again is exactly what the client does when a
// response is lost.
type Batch struct {
	TP TP
	b  batch
}

// Records returns the batch's records.
func (b Batch) Records() []Record { return append([]Record(nil), b.b.Records...) }

// FirstSeq is the batch's first sequence number (-1 without idempotence).
func (b Batch) FirstSeq() int32 { return b.b.FirstSeq }

// Result is a produce response: the offsets the records occupy. Duplicate
// is ground truth for the simulator: the broker answered with the original
// offsets of a batch it already had, which a real client cannot tell from
// a fresh append.
type Result struct {
	TP                     TP
	BaseOffset, LastOffset int64
	Duplicate              bool
}

// Prepare is the client side of send(): each record gets its partition
// (keyed: murmur2; unkeyed: sticky) and records bound for the same
// partition form one batch, in order, with consecutive sequence numbers.
// Batches come out in order of their partition's first record. batch.size
// does not split batches in the model; it only drives the sticky switch.
func (p *Producer) Prepare(c *Cluster, topic string, recs ...Record) ([]Batch, error) {
	if p.fenced {
		return nil, ErrProducerFenced
	}
	if p.cfg.TransactionalID != "" && !p.inTxn {
		return nil, ErrInvalidTxnState // Java: "Cannot call send in state READY"
	}
	n := c.Partitions(topic)
	if n == 0 {
		return nil, ErrUnknownTopic
	}
	var out []Batch
	index := map[int]int{} // partition -> position in out; looked up only
	for _, r := range recs {
		part := p.partitionFor(topic, r, n)
		i, ok := index[part]
		if !ok {
			i = len(out)
			index[part] = i
			out = append(out, Batch{TP: TP{topic, part}, b: batch{
				PID: p.PID, Epoch: p.Epoch, FirstSeq: -1,
				Transactional: p.cfg.TransactionalID != "",
			}})
		}
		out[i].b.Records = append(out[i].b.Records, r)
	}
	if p.PID >= 0 {
		for i := range out {
			seq := p.seqs[out[i].TP]
			out[i].b.FirstSeq = seq
			p.seqs[out[i].TP] = addSeq(seq, len(out[i].b.Records))
		}
	}
	return out, nil
}

// Produce sends one prepared batch to its partition leader. Within a
// transaction a partition new to it is first added (AddPartitionsToTxn,
// which the Java client does on its own). So a fenced instance gets
// PRODUCER_FENCED from the coordinator for a new partition and
// INVALID_PRODUCER_EPOCH from the partition leader for one it had already
// added. Either makes a transactional producer unusable, as
// ProducerFencedException does.
func (p *Producer) Produce(c *Cluster, now int64, b Batch) (Result, error) {
	if p.fenced {
		return Result{}, ErrProducerFenced
	}
	part, err := c.partition(b.TP)
	if err != nil {
		return Result{}, err
	}
	res := Result{TP: b.TP}
	if b.b.PID < 0 {
		res.BaseOffset, res.LastOffset = part.appendPlain(b.b.Records, now)
		return res, nil
	}
	if b.b.Transactional && !p.added(b.TP) {
		if err := c.addPartition(p.cfg.TransactionalID, b.b.PID, b.b.Epoch, b.TP, now); err != nil {
			return res, p.fail(err)
		}
		p.txnParts = append(p.txnParts, b.TP)
	}
	res.BaseOffset, res.LastOffset, res.Duplicate, err = part.appendBatch(b.b, now)
	if err != nil {
		return res, p.fail(err)
	}
	return res, nil
}

func (p *Producer) added(tp TP) bool {
	for _, x := range p.txnParts {
		if x == tp {
			return true
		}
	}
	return false
}

func (p *Producer) fail(err error) error {
	if err == ErrProducerFenced || (err == ErrInvalidProducerEpoch && p.cfg.TransactionalID != "") {
		p.fenced = true
	}
	return err
}

// Send is Prepare followed by Produce of every batch; it stops at the
// first error.
func (p *Producer) Send(c *Cluster, now int64, topic string, recs ...Record) ([]Result, error) {
	bs, err := p.Prepare(c, topic, recs...)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, b := range bs {
		r, err := p.Produce(c, now, b)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Fenced reports whether a newer instance with the same transactional id
// (or a transaction timeout) has fenced this one.
func (p *Producer) Fenced() bool { return p.fenced }
