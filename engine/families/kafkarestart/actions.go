package kafkarestart

import (
	"fmt"

	"inflight/engine"
	"inflight/engine/kafka"
)

// The producer's operator action (engine.FamilyActions): restart it now,
// as the story's deploy does, at a moment the user picks.
//
// What a restart does, after BROKERS.md and the lesson: the process is
// killed where it stands and the supervisor brings it back after the
// deploy's 3 s. Whatever it had not recorded as sent is sent again by the
// new instance — the application keeps no note of which batches the broker
// acknowledged, only of the whole batch once it finished, so a kill
// mid-batch re-sends the whole batch. Idempotence holds "only within a
// single session": without a transactional.id the new instance asks for a
// new producer id, the broker's memory of sequence numbers starts empty,
// and every record the killed instance had already stored is stored again
// (the batches it never sent are stored once). With one, initTransactions
// keeps the producer id, bumps the epoch (fencing the old instance) and
// aborts its open transaction: a read_committed consumer sees each record
// once. A restart after the batch was recorded as sent has nothing to send
// again; one while the producer is down (the deploy's restart pending) or
// before it first starts does nothing.
var actionSpecs = []engine.ActionSpec{
	{Name: "restart_producer",
		Doc: "kill the producer now and bring it back 3 s later as a new instance: what it had not recorded as sent is sent again — with no transactional.id under a new producer id, so the records already stored are stored twice; with one, the old epoch is fenced and its open transaction aborted; after the batch was recorded as sent there is nothing to re-send"},
}

// ActionSpecs lists the producer's operator action.
func (f *Family) ActionSpecs() []engine.ActionSpec { return actionSpecs }

// CheckAction: restart_producer takes no argument, which the kernel checks.
func (f *Family) CheckAction(*engine.World, engine.Action) error { return nil }

// ActionWords tell what the action does, for a fork's name.
func (f *Family) ActionWords(w *engine.World, a engine.Action) string {
	return "restart the producer"
}

// What an operator restart found, as EvRestartProducer's Aux (low 4 bits;
// above them, the records the killed instance had stored).
const (
	restartMidBatch   = 0 // killed before it recorded the batch as sent
	restartAfterDone  = 1 // the batch was recorded as sent: nothing to re-send
	restartWhileDown  = 2 // already down: the pending restart stands
	restartNotStarted = 3 // the first instance has not started
)

// Act restarts the producer now, emitting one event whatever it finds.
func (f *Family) Act(w *engine.World, a engine.Action) {
	switch {
	case f.Instance == 0:
		w.Emit(EvRestartProducer, -1, -1, 0, 0, restartNotStarted)
	case f.Prod == nil:
		w.Emit(EvRestartProducer, -1, -1, uint16(f.Instance), int64(f.BackAt), restartWhileDown)
	default:
		how, stored := int64(restartMidBatch), 0
		if f.ProdDone {
			how = restartAfterDone
		} else {
			for k, b := range f.Batches {
				if f.Tries[k] > 0 {
					stored += len(b.Records())
				}
			}
			if f.Txn != "" {
				// the open transaction waits for the new instance, or for
				// the coordinator's timeout if none comes back with the id
				f.TxnWatch = true
				w.Schedule(w.Now+engine.Time(kafka.DefaultTransactionTimeout)+engine.Second, engine.FamilyStep{Op: opTxnTimeout}, false)
			}
		}
		f.Nothing = f.ProdDone
		f.Prod, f.Batches, f.Tries = nil, nil, nil
		f.BackAt = w.Now + restartAfter
		w.Emit(EvRestartProducer, -1, -1, uint16(f.Instance), int64(f.BackAt), how|int64(stored)<<4)
		w.Schedule(f.BackAt, engine.FamilyStep{Op: opInit}, false)
	}
}

// actionCaption tells an operator restart.
func (f *Family) actionCaption(e *engine.Event) string {
	back := engine.Time(e.Value).Short()
	switch e.Aux & 15 {
	case restartNotStarted:
		return "restart the producer: it has not started yet, so there is nothing to restart"
	case restartWhileDown:
		return fmt.Sprintf("restart the producer: instance %d is already down, and comes back at %s — nothing more to do", e.Delivery, back)
	case restartAfterDone:
		return fmt.Sprintf("an operator restarts producer instance %d after it recorded the batch as sent: nothing is buffered, so the new instance (at %s) has nothing to send again", e.Delivery, back)
	}
	stored := e.Aux >> 4
	switch next := f.k.TransactionalID; {
	case f.Txn != "" && next == f.Txn:
		return fmt.Sprintf("an operator kills producer instance %d before it commits its transaction (%d records already stored in it); it comes back at %s with transactional.id %s, which fences this epoch and aborts the open transaction",
			e.Delivery, stored, back, f.Txn)
	case f.Txn != "":
		return fmt.Sprintf("an operator kills producer instance %d before it commits its transaction (%d records already stored in it); it comes back at %s under another transactional.id, so only the coordinator's transaction timeout aborts the open one",
			e.Delivery, stored, back)
	}
	return fmt.Sprintf("an operator kills producer instance %d before it records the batch as sent (%d records already stored); it comes back at %s with no transactional.id — a new producer id, so the broker's sequence numbers cannot recognise the re-sent batch and those %d records will be stored twice",
		e.Delivery, stored, back, stored)
}
