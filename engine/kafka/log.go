package kafka

import "math"

// batchesRetained is how many batches per producer and partition the broker
// remembers for duplicate detection: ProducerStateEntry.NUM_BATCHES_TO_RETAIN,
// which is also why max.in.flight.requests.per.connection may not exceed 5
// with idempotence [IDEM].
const batchesRetained = 5

// batchMeta is what the broker remembers of one appended batch.
type batchMeta struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
}

// producerEntry is the broker's state for one producer id in one partition.
type producerEntry struct {
	Epoch   int16
	Batches []batchMeta // oldest first, at most batchesRetained
}

func (e *producerEntry) lastSeq() int32 { return e.Batches[len(e.Batches)-1].LastSeq }

// openTxn is a transaction with data in a partition and no marker yet.
type openTxn struct {
	PID   int64
	First int64
}

// abortedTxn is the aborted transaction index entry read_committed
// consumers use to drop a transaction's records.
type abortedTxn struct {
	PID          int64
	First, Final int64 // Final is the abort marker's offset
}

// partition is one partition's log and broker-side state.
type partition struct {
	TP        TP
	Log       []Entry
	Producers map[int64]*producerEntry // looked up, never iterated
	Open      []openTxn                // in first-offset order
	Aborted   []abortedTxn
}

func newPartition(tp TP) *partition {
	return &partition{TP: tp, Producers: map[int64]*producerEntry{}}
}

func (p *partition) clone() *partition {
	n := &partition{
		TP:        p.TP,
		Log:       append([]Entry(nil), p.Log...),
		Producers: make(map[int64]*producerEntry, len(p.Producers)),
		Open:      append([]openTxn(nil), p.Open...),
		Aborted:   append([]abortedTxn(nil), p.Aborted...),
	}
	for id, e := range p.Producers {
		n.Producers[id] = &producerEntry{Epoch: e.Epoch, Batches: append([]batchMeta(nil), e.Batches...)}
	}
	return n
}

func (p *partition) leo() int64 { return int64(len(p.Log)) }

func (p *partition) lso() int64 {
	if len(p.Open) > 0 {
		return p.Open[0].First
	}
	return p.leo()
}

// batch is one produce request's worth of records for one partition.
type batch struct {
	PID           int64
	Epoch         int16
	FirstSeq      int32
	Transactional bool
	Records       []Record
}

func (b *batch) lastSeq() int32 { return addSeq(b.FirstSeq, len(b.Records)-1) }

// addSeq adds to a sequence number with Kafka's wrap-around past MaxInt32
// back to 0 (DefaultRecordBatch.incrementSequence).
func addSeq(s int32, n int) int32 {
	v := int64(s) + int64(n)
	if v > math.MaxInt32 {
		v -= int64(math.MaxInt32) + 1
	}
	return int32(v)
}

// appendBatch is the partition leader's produce path for an idempotent or
// transactional batch (UnifiedLog.analyzeAndValidateProducerState and
// ProducerAppendInfo.checkProducerEpoch / checkSequence) [IDEM]:
//
//  1. A batch with the same producer id and epoch whose sequence range
//     matches one of the last 5 batches is a duplicate: the broker answers
//     with the original offsets and appends nothing.
//  2. An epoch older than the one the broker knows is INVALID_PRODUCER_EPOCH
//     (a fenced zombie).
//  3. A newer epoch must start at sequence 0; the same epoch must continue
//     at last sequence + 1; anything else is OUT_OF_ORDER_SEQUENCE_NUMBER.
//     A producer id the partition has no state for is accepted at any
//     sequence, as Kafka does.
func (p *partition) appendBatch(b batch, now int64) (first, last int64, dup bool, err error) {
	e := p.Producers[b.PID]
	if e != nil {
		if b.Epoch == e.Epoch {
			for _, m := range e.Batches {
				if m.FirstSeq == b.FirstSeq && m.LastSeq == b.lastSeq() {
					return m.FirstOffset, m.LastOffset, true, nil
				}
			}
		}
		if b.Epoch < e.Epoch {
			return 0, 0, false, ErrInvalidProducerEpoch
		}
		if b.Epoch > e.Epoch {
			if b.FirstSeq != 0 {
				return 0, 0, false, ErrOutOfOrderSequence
			}
		} else if len(e.Batches) > 0 && b.FirstSeq != addSeq(e.lastSeq(), 1) {
			return 0, 0, false, ErrOutOfOrderSequence
		}
	}
	first = p.leo()
	for i, r := range b.Records {
		p.Log = append(p.Log, Entry{
			Offset:        p.leo(),
			Record:        r,
			ProducerID:    b.PID,
			Epoch:         b.Epoch,
			Seq:           addSeq(b.FirstSeq, i),
			Transactional: b.Transactional,
			Time:          now,
		})
	}
	last = p.leo() - 1
	if e == nil || b.Epoch > e.Epoch {
		e = &producerEntry{Epoch: b.Epoch}
		p.Producers[b.PID] = e
	}
	e.Batches = append(e.Batches, batchMeta{b.FirstSeq, b.lastSeq(), first, last})
	if len(e.Batches) > batchesRetained {
		e.Batches = append([]batchMeta(nil), e.Batches[len(e.Batches)-batchesRetained:]...)
	}
	if b.Transactional && !p.isOpen(b.PID) {
		p.Open = append(p.Open, openTxn{PID: b.PID, First: first})
	}
	return first, last, false, nil
}

// appendPlain appends records from a producer with idempotence disabled:
// no producer id, no duplicate detection.
func (p *partition) appendPlain(recs []Record, now int64) (first, last int64) {
	first = p.leo()
	for _, r := range recs {
		p.Log = append(p.Log, Entry{Offset: p.leo(), Record: r, ProducerID: -1, Seq: -1, Time: now})
	}
	return first, p.leo() - 1
}

func (p *partition) isOpen(pid int64) bool {
	for _, o := range p.Open {
		if o.PID == pid {
			return true
		}
	}
	return false
}

// writeMarker appends a COMMIT or ABORT control record for pid's
// transaction, closes it in this partition and, for an abort, indexes it
// so read_committed consumers skip its records. The marker carries the
// coordinator's epoch, which may be newer than the data's (a fencing
// abort); the broker then adopts it, so the old epoch is refused here too.
func (p *partition) writeMarker(pid int64, epoch int16, kind Control, now int64) {
	off := p.leo()
	p.Log = append(p.Log, Entry{Offset: off, Control: kind, ProducerID: pid, Epoch: epoch, Seq: -1, Transactional: true, Time: now})
	for i, o := range p.Open {
		if o.PID == pid {
			if kind == AbortMarker {
				p.Aborted = append(p.Aborted, abortedTxn{PID: pid, First: o.First, Final: off})
			}
			p.Open = append(p.Open[:i:i], p.Open[i+1:]...)
			break
		}
	}
	if e := p.Producers[pid]; e == nil || epoch > e.Epoch {
		p.Producers[pid] = &producerEntry{Epoch: epoch}
	}
}

// aborted reports whether the data entry at off belongs to an aborted
// transaction.
func (p *partition) aborted(e *Entry) bool {
	if !e.Transactional {
		return false
	}
	for _, a := range p.Aborted {
		if a.PID == e.ProducerID && a.First <= e.Offset && e.Offset < a.Final {
			return true
		}
	}
	return false
}
