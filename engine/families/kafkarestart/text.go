package kafkarestart

import (
	"fmt"

	"inflight/engine"
	"inflight/engine/kafka"
)

// KindName implements engine.Family.
func (f *Family) KindName(k engine.Kind) string {
	switch k {
	case EvInit:
		return "init_producer"
	case EvProduce:
		return "produce"
	case EvDuplicate:
		return "duplicate_dropped"
	case EvAnswerLost:
		return "answer_lost"
	case EvAnswer:
		return "answer"
	case EvCommitTxn:
		return "producer_done"
	case EvCommit:
		return "commit"
	case EvSessionOver:
		return "session_timeout"
	case EvTxnTimeout:
		return "txn_timeout"
	}
	return "unknown"
}

func (f *Family) batchName(k int64) string {
	if int(k) < len(f.Batches) {
		b := f.Batches[k]
		n := int32(len(b.Records()))
		return fmt.Sprintf("the batch for %s (%d records, sequence %d–%d)", b.TP, n, b.FirstSeq(), b.FirstSeq()+n-1)
	}
	return fmt.Sprintf("batch %d", k)
}

// Caption implements engine.Family, in the lesson's words.
func (f *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	switch e.Kind {
	case engine.EvStart:
		return "the email consumer joins group mailer (isolation.level=read_committed, offsets committed after each email)", true
	case EvInit:
		pid, epoch, aborted := e.Value, e.Aux>>1, e.Aux&1 == 1
		switch {
		case f.Txn == "" && f.Instance == 1:
			return fmt.Sprintf("producer instance 1 starts: enable.idempotence asks the broker for a producer id — %d — and will stamp each batch with a sequence number", pid), true
		case f.Txn == "":
			return fmt.Sprintf("producer instance %d starts with no transactional.id: it asks for a new producer id (%d), so the broker has never seen it and the memory starts empty — it sends the batch again", f.Instance, pid), true
		case f.Instance == 1:
			return fmt.Sprintf("producer instance 1 calls initTransactions(%s): producer id %d, epoch %d; it begins a transaction", f.Txn, pid, epoch), true
		case aborted:
			return fmt.Sprintf("producer instance %d calls initTransactions(%s): same producer id %d, epoch now %d — the old epoch is fenced and its open transaction aborts (abort markers written); read_committed consumers will never see those records", f.Instance, f.Txn, pid, epoch), true
		}
		return fmt.Sprintf("producer instance %d calls initTransactions(%s): producer id %d, epoch %d", f.Instance, f.Txn, pid, epoch), true
	case EvProduce:
		first, last := e.Aux>>20, e.Aux&(1<<20-1)
		s := fmt.Sprintf("instance %d sends %s: stored at offsets %d–%d", f.Instance, f.batchName(e.Value), first, last)
		if f.Txn != "" {
			s += " inside the open transaction (invisible to read_committed until it commits)"
		}
		return s, true
	case EvDuplicate:
		return fmt.Sprintf("instance %d retries %s: the broker remembers producer %d's sequence numbers for this partition and silently drops the repeat", f.Instance, f.batchName(e.Value), f.Prod.PID), true
	case EvAnswerLost:
		return fmt.Sprintf("the answer to %s is lost: the producer retries the same batch, same sequence numbers", f.batchName(e.Value)), true
	case EvAnswer:
		return fmt.Sprintf("the producer gets the answer for %s", f.batchName(e.Value)), true
	case engine.EvCrash:
		if e.Aux == 1 && e.Msg < 0 {
			if f.Txn != "" {
				return fmt.Sprintf("a deploy kills producer instance %d after its sends and before it commits the transaction; it comes back at %s", e.Delivery, engine.Time(e.Value).Short()), true
			}
			return fmt.Sprintf("a deploy kills producer instance %d after its sends and before it records the batch as sent; it comes back at %s", e.Delivery, engine.Time(e.Value).Short()), true
		}
		return fmt.Sprintf("%s dies after sending the email for %s and before committing offset %d on %s-%d: the email has left, the offset has not moved",
			f.memberID(int(e.Delivery)), w.MsgName(e.Msg), e.Value, Topic, e.Aux), true
	case engine.EvRestart:
		return fmt.Sprintf("the supervisor restarts the email consumer as %s; it joins the group — a rebalance", f.memberID(int(e.Value))), true
	case EvSessionOver:
		return fmt.Sprintf("the coordinator drops %s after session.timeout.ms (45 s): rebalance; its partitions resume at the committed offsets, and whatever it read and did not commit is read again",
			f.memberID(int(e.Delivery))), true
	case EvCommitTxn:
		if f.Txn != "" {
			return fmt.Sprintf("producer instance %d commits the transaction: commit markers written, read_committed consumers may now read the batch", e.Delivery), true
		}
		return fmt.Sprintf("producer instance %d records the batch as sent", e.Delivery), true
	case engine.EvDeliver:
		return fmt.Sprintf("%s reads %s-%d offset %d: %s", f.memberID(f.Member), Topic, e.Aux, e.Value, w.MsgName(e.Msg)), true
	case engine.EvEffect:
		if e.Aux <= 1 {
			return fmt.Sprintf("the email for %s leaves", w.MsgName(e.Msg)), true
		}
		if f.reread(e.Msg, e.Value) {
			return fmt.Sprintf("the email for %s leaves again — copy %d: the same record read again after the crash; no transaction stretches to an email provider", w.MsgName(e.Msg), e.Aux), true
		}
		return fmt.Sprintf("the email for %s leaves — copy %d: the record was stored twice, by two producer ids", w.MsgName(e.Msg), e.Aux), true
	case EvTxnTimeout:
		return "the coordinator aborts the dead producer's transaction, open longer than transaction.timeout.ms (60 s): abort markers written, read_committed consumers move on", true
	case EvCommit:
		if f.MailTxn != "" {
			return fmt.Sprintf("%s commits offset %d on %s-%d inside transaction %s-mailer: exactly once for everything Kafka owns",
				f.memberID(f.Member), e.Value, Topic, e.Aux, f.MailTxn), true
		}
		return fmt.Sprintf("%s commits offset %d on %s-%d", f.memberID(f.Member), e.Value, Topic, e.Aux), true
	}
	return "", false
}

// DecisionText implements engine.Family.
func (f *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	yes := [2]string{"no", "yes"}[d.Value&1]
	switch d.Kind {
	case DecAnswer:
		return fmt.Sprintf("is the broker's answer to send %d lost: %s", d.Delivery, yes)
	case DecProducerCrash:
		return fmt.Sprintf("is producer instance %d killed before it finishes: %s", d.Delivery, yes)
	case DecConsumerCrash:
		return fmt.Sprintf("does %s die after the email for %s, before committing: %s", f.memberID(int(d.Delivery)), w.MsgName(d.Msg), yes)
	}
	return "unknown"
}

// maxRows bounds a pane's rows; the rest are counted in a last row.
const maxRows = 200

// Panes implements engine.Family in Kafka's terms: partitions with their
// log end, last stable and committed offsets; the uncommitted range; the
// aborted records read_committed skips; the customer's emails.
func (f *Family) Panes(w *engine.World) engine.Panes {
	p := engine.Panes{
		QueueTitle:    "orders: partitions",
		InFlightTitle: "uncommitted",
		DLQTitle:      "aborted: read_committed skips",
		InboxTitle:    "emails sent",
	}
	if f.C == nil {
		return p
	}
	aborted := 0
	for part := 0; part < Partitions; part++ {
		tp := kafka.TP{Topic: Topic, Partition: part}
		leo, lso := f.C.LogEndOffset(tp), f.C.LastStableOffset(tp)
		com, ok := f.C.Committed(Group, tp)
		cs := "none"
		if ok {
			cs = fmt.Sprint(com)
		}
		owner := f.C.Owner(Group, tp)
		p.Queue = append(p.Queue, engine.PaneRow{Msg: -1, Bar: -1,
			Text: fmt.Sprintf("p%d  LEO %d · LSO %d · committed %s · lag %d · %s", part, leo, lso, cs, f.C.Lag(Group, tp), owner)})
		if f.Cons != nil {
			if pos, ok := f.Cons.Position(tp); ok && pos > com {
				p.InFlight = append(p.InFlight, engine.PaneRow{Msg: -1, Bar: -1,
					Text: fmt.Sprintf("p%d  %d–%d read, not committed (%s)", part, com, pos-1, f.memberID(f.Member))})
			}
		}
		if lso < leo {
			p.InFlight = append(p.InFlight, engine.PaneRow{Msg: -1, Bar: -1, Mark: "OPEN",
				Text: fmt.Sprintf("p%d  transaction open from %d: read_committed stops there", part, lso)})
		}
		log := f.C.Log(tp)
		for i, ab := range abortedFlags(log) {
			if !ab {
				continue
			}
			if len(p.DLQ) >= maxRows {
				aborted++
				continue
			}
			e := &log[i]
			p.DLQ = append(p.DLQ, engine.PaneRow{Msg: order(e.Record), Bar: -1, Mark: "ABORTED",
				Text: fmt.Sprintf("p%d@%d  %s · pid %d epoch %d", part, e.Offset, w.MsgName(order(e.Record)), e.ProducerID, e.Epoch)})
		}
	}
	if f.Handling {
		p.InFlight = append(p.InFlight, engine.PaneRow{Msg: order(f.Cur.Record), Bar: -1,
			Text: fmt.Sprintf("%s  %s (p%d@%d): email, then commit", f.memberID(f.Member), w.MsgName(order(f.Cur.Record)), f.Cur.TP.Partition, f.Cur.Offset)})
	}
	if aborted > 0 {
		p.DLQ = append(p.DLQ, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("… and %d more", aborted)})
	}
	// the newest emails first
	for i := len(f.Emails) - 1; i >= 0 && len(p.Inbox) < maxRows; i-- {
		m := f.Emails[i]
		row := engine.PaneRow{Msg: m.Order, Bar: -1, Text: fmt.Sprintf("%s  %s confirmed (p%d@%d)", m.At.Short(), w.MsgName(m.Order), m.TP.Partition, m.Off)}
		if m.Copy > 1 {
			row.Mark = fmt.Sprintf("COPY %d", m.Copy)
		}
		p.Inbox = append(p.Inbox, row)
	}
	if n := len(f.Emails) - len(p.Inbox); n > 0 {
		p.Inbox = append(p.Inbox, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("… and %d earlier", n)})
	}
	return p
}

// reread reports whether the latest email for order id (at offset off)
// repeats an earlier email from the same record.
func (f *Family) reread(id int32, off int64) bool {
	n := len(f.Emails)
	if n == 0 {
		return false
	}
	last := f.Emails[n-1]
	for _, m := range f.Emails[:n-1] {
		if m.Order == id && m.TP == last.TP && m.Off == off {
			return true
		}
	}
	return false
}
