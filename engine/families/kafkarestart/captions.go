package kafkarestart

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// KindName names the family's event kinds for the trace.
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
	case EvRestartProducer:
		return "restart_producer"
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

// Caption tells each event in the lesson's words.
func (f *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	switch e.Kind {
	case EvRestartProducer:
		return f.actionCaption(e), true
	case engine.EvStart:
		return "the email consumer joins group mailer (isolation.level=read_committed, offsets committed after each email)", true
	case EvInit:
		pid, epoch, aborted := e.Value, e.Aux>>1, e.Aux&1 == 1
		switch {
		case f.Nothing && f.Txn == "":
			return fmt.Sprintf("producer instance %d starts with a new producer id (%d) and an empty buffer: the batch was recorded as sent, so nothing is sent again", f.Instance, pid), true
		case f.Nothing:
			return fmt.Sprintf("producer instance %d calls initTransactions(%s): producer id %d, epoch now %d, the old instance fenced; the batch was recorded as sent, so nothing is sent again", f.Instance, f.Txn, pid, epoch), true
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
		me := f.memberID(int(e.Value))
		if held := f.C.Joining(Group); len(held) > 0 && held[len(held)-1] == me {
			return fmt.Sprintf("the supervisor restarts the email consumer as %s, a new member id (no group.instance.id); its JoinGroup starts a rebalance that waits for every member to rejoin — %s is dead and never will, so %s gets no partition until the coordinator drops it (session.timeout.ms, 45 s)",
				me, strings.Join(f.C.Members(Group), ", "), me), true
		}
		return fmt.Sprintf("the supervisor restarts the email consumer as %s; it joins the group — a rebalance", me), true
	case EvSessionOver:
		gone := f.memberID(int(e.Delivery))
		var tps []string
		for _, tp := range f.C.Assignment(Group, f.memberID(f.Member)) {
			tps = append(tps, tp.String())
		}
		if f.Alive && len(tps) > 0 {
			return fmt.Sprintf("the coordinator drops %s after session.timeout.ms (45 s) and the rebalance completes: %s gets %s by another route, resuming at the committed offsets, so whatever %s read and did not commit is read again",
				gone, f.memberID(f.Member), strings.Join(tps, ", "), gone), true
		}
		return fmt.Sprintf("the coordinator drops %s after session.timeout.ms (45 s): rebalance; its partitions resume at the committed offsets, and whatever it read and did not commit is read again",
			gone), true
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

// DecisionText words the family's three decisions: a broker's answer
// lost, a producer instance killed, a consumer dying before its commit.
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
