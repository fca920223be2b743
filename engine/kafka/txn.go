package kafka

import (
	"math"
	"sort"
	"strconv"
)

// Offset is one committed position: the next offset a group will read in
// a partition.
type Offset struct {
	TP     TP
	Offset int64
}

type pendingOffset struct {
	Group  string
	Offset Offset
}

// txnMeta is the transaction coordinator's record for one transactional.id.
type txnMeta struct {
	PID        int64
	Epoch      int16
	Timeout    int64
	Ongoing    bool
	Start      int64
	Partitions []TP // in the order they joined the transaction
	Offsets    []pendingOffset
}

func (t *txnMeta) clone() *txnMeta {
	n := *t
	n.Partitions = append([]TP(nil), t.Partitions...)
	n.Offsets = append([]pendingOffset(nil), t.Offsets...)
	return &n
}

// bumpEpoch raises the epoch; an exhausted epoch gets a new producer id
// with epoch 0, as the coordinator does.
func (c *Cluster) bumpEpoch(t *txnMeta) {
	if t.Epoch >= math.MaxInt16-1 {
		t.PID, t.Epoch = c.allocatePID(), 0
		return
	}
	t.Epoch++
}

// initTransactional is InitProducerId with a transactional id
// (TransactionCoordinator.handleInitProducerId) [TXN]. A first instance
// gets a new producer id at epoch 0. A later one keeps the producer id; if
// the previous instance left a transaction open, the coordinator bumps the
// epoch (fencing it), aborts that transaction with the bumped epoch, and
// the client's retried request bumps the epoch once more: the new instance
// ends two epochs above the old one. Otherwise the epoch goes up by one.
func (c *Cluster) initTransactional(id string, timeout, now int64) (int64, int16) {
	t, ok := c.txns[id]
	if !ok {
		t = &txnMeta{PID: c.allocatePID()}
		c.txns[id] = t
	} else {
		if t.Ongoing {
			c.bumpEpoch(t)
			c.endTxn(t, AbortMarker, now)
		}
		c.bumpEpoch(t)
	}
	t.Timeout = timeout
	return t.PID, t.Epoch
}

// check is the coordinator's fencing test: requests must carry the
// transactional id's current producer id and epoch (PRODUCER_FENCED
// otherwise, KIP-588).
func (c *Cluster) check(id string, pid int64, epoch int16) (*txnMeta, error) {
	t, ok := c.txns[id]
	if !ok || t.PID != pid || t.Epoch != epoch {
		return nil, ErrProducerFenced
	}
	return t, nil
}

// addPartition is AddPartitionsToTxn for one partition; the first one
// starts the transaction's clock.
func (c *Cluster) addPartition(id string, pid int64, epoch int16, tp TP, now int64) error {
	t, err := c.check(id, pid, epoch)
	if err != nil {
		return err
	}
	if !t.Ongoing {
		t.Ongoing, t.Start = true, now
	}
	for _, x := range t.Partitions {
		if x == tp {
			return nil
		}
	}
	t.Partitions = append(t.Partitions, tp)
	return nil
}

// endTxn writes the markers of t's transaction to every partition it
// touched and, on commit, makes its offset commits visible. The model
// writes markers synchronously; Kafka writes them just after EndTxn
// answers, so the LSO advances a moment later there. Markers carry the
// transaction's epoch, as in transaction protocol versions 0 and 1; with
// KIP-890's version 2 (Kafka 4.x) the coordinator bumps the epoch at every
// transaction end, which changes epoch numbers but not who is fenced.
func (c *Cluster) endTxn(t *txnMeta, kind Control, now int64) {
	for _, tp := range t.Partitions {
		if p, err := c.partition(tp); err == nil {
			p.writeMarker(t.PID, t.Epoch, kind, now)
		}
	}
	if kind == CommitMarker {
		for _, o := range t.Offsets {
			c.groupFor(o.Group).Committed[o.Offset.TP] = o.Offset.Offset
		}
	}
	t.Ongoing, t.Partitions, t.Offsets = false, nil, nil
}

// ExpireTransactions aborts every transaction open longer than its
// transaction.timeout.ms at now, bumping the epoch so the producer that
// left it is fenced, as the coordinator's periodic abort of timed-out
// transactions does. It returns the transactional ids aborted, sorted.
func (c *Cluster) ExpireTransactions(now int64) []string {
	var ids []string
	for id := range c.txns {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []string
	for _, id := range ids {
		t := c.txns[id]
		if t.Ongoing && now > t.Start+t.Timeout {
			c.bumpEpoch(t)
			c.endTxn(t, AbortMarker, now)
			out = append(out, id)
		}
	}
	return out
}

// BeginTransaction starts a transaction on the client (no request is
// sent; the coordinator learns of it with the first partition).
func (p *Producer) BeginTransaction() error {
	if p.fenced {
		return ErrProducerFenced
	}
	if p.cfg.TransactionalID == "" || p.inTxn {
		return ErrInvalidTxnState
	}
	p.inTxn, p.txnParts = true, nil
	return nil
}

// SendOffsetsToTransaction puts a consumer group's offset commits into the
// open transaction: AddOffsetsToTxn adds the group's __consumer_offsets
// partition, and TxnOffsetCommit writes the commits there as transactional
// records. They become the group's committed offsets only if the
// transaction commits — offsets are just another topic. The group
// generation check of KIP-447 is not modelled.
func (p *Producer) SendOffsetsToTransaction(c *Cluster, now int64, group string, offsets ...Offset) error {
	if p.fenced {
		return ErrProducerFenced
	}
	if !p.inTxn {
		return ErrInvalidTxnState
	}
	tp := TP{OffsetsTopic, offsetsPartition(group, c.Partitions(OffsetsTopic))}
	if err := c.addPartition(p.cfg.TransactionalID, p.PID, p.Epoch, tp, now); err != nil {
		return p.fail(err)
	}
	t := c.txns[p.cfg.TransactionalID]
	part, _ := c.partition(tp)
	for _, o := range offsets {
		part.Log = append(part.Log, Entry{
			Offset: part.leo(), Record: offsetRecord(group, o),
			ProducerID: p.PID, Epoch: p.Epoch, Seq: -1, Transactional: true, Time: now,
		})
		if !part.isOpen(p.PID) {
			part.Open = append(part.Open, openTxn{PID: p.PID, First: part.leo() - 1})
		}
		t.Offsets = append(t.Offsets, pendingOffset{group, o})
	}
	return nil
}

// CommitTransaction is EndTxn(commit): commit markers everywhere the
// transaction wrote, and its offset commits take effect.
func (p *Producer) CommitTransaction(c *Cluster, now int64) error {
	return p.end(c, now, CommitMarker)
}

// AbortTransaction is EndTxn(abort): abort markers; read_committed
// consumers never see the transaction's records.
func (p *Producer) AbortTransaction(c *Cluster, now int64) error {
	return p.end(c, now, AbortMarker)
}

func (p *Producer) end(c *Cluster, now int64, kind Control) error {
	if p.fenced {
		return ErrProducerFenced
	}
	if !p.inTxn {
		return ErrInvalidTxnState
	}
	t, err := c.check(p.cfg.TransactionalID, p.PID, p.Epoch)
	if err != nil {
		return p.fail(err)
	}
	p.inTxn = false
	if t.Ongoing {
		c.endTxn(t, kind, now)
	}
	return nil
}

// offsetsPartition is GroupCoordinator.partitionFor:
// Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions.
func offsetsPartition(group string, n int) int {
	var h int32
	for _, u := range utf16(group) {
		h = 31*h + int32(u)
	}
	if h == math.MinInt32 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return int(h) % n
}

// utf16 returns s's UTF-16 code units, which Java's String.hashCode sums.
func utf16(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

func offsetRecord(group string, o Offset) Record {
	return Keyed(group+"/"+o.TP.String(), strconv.FormatInt(o.Offset, 10))
}
