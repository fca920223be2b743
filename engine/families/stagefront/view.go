package stagefront

import (
	"fmt"
	"slices"
	"strconv"

	"inflight/engine"
)

// Consumer names consumer i: c01…c40.
func Consumer(i int) string {
	if i < 0 || i > 98 {
		return fmt.Sprintf("c%02d", i+1)
	}
	return string([]byte{'c', byte('0' + (i+1)/10), byte('0' + (i+1)%10)})
}

func seat(id int32) string { return "hold " + strconv.Itoa(int(id)) }

// KindName names the family's event kinds for the trace.
func (s *Family) KindName(k engine.Kind) string {
	if i := int(k - engine.FamilyKind); k >= engine.FamilyKind && i < len(kindNames) {
		return kindNames[i]
	}
	return "unknown"
}

// Caption tells each event in the lesson's words.
func (s *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	who := Consumer(int(e.Worker))
	switch e.Kind {
	case engine.EvPublish:
		return "a press at " + engine.Time(e.T).Clock() + " holds a seat: “sell " + seat(e.Msg) + "” queued", true
	case engine.EvDeliver:
		if e.Delivery > 1 {
			return fmt.Sprintf("%s delivered again, to %s (delivery %d): its last lease ran out with no ack", seat(e.Msg), who, e.Delivery), true
		}
		return seat(e.Msg) + " delivered to " + who + " (lease until " + engine.Time(engine.Time(e.Value)).Clock() + ")", true
	case engine.EvEffect:
		return who + ": update holds set status='sold' where id=" + strconv.Itoa(int(e.Msg)) + " and status='held' — 1 row: the seat is sold", true
	case KindZeroRows:
		if e.Aux == 1 {
			return fmt.Sprintf("%s runs the same statement for %s, matches zero rows, and takes it for a failure: no ack — a false failure, the seat was sold", who, seat(e.Msg)), true
		}
		return fmt.Sprintf("%s runs the same statement for %s, matches zero rows, and treats zero rows as success, because that is what zero rows means here", who, seat(e.Msg)), true
	case engine.EvAck:
		return who + " acks " + seat(e.Msg) + ": deleted", true
	case engine.EvAckRefused:
		return fmt.Sprintf("%s acks %s, refused: its lease expired at %s", who, seat(e.Msg), engine.Time(e.Value).Short()), true
	case engine.EvCrash:
		return fmt.Sprintf("%s crashes after its commit and before its ack: %s will come back when its lease runs out; restart at %s", who, seat(e.Msg), engine.Time(e.Value).Short()), true
	case engine.EvRestart:
		return fmt.Sprintf("%s is back", who), true
	case engine.EvLeaseExpired:
		return fmt.Sprintf("the lease on %s (delivery %d) ran out with no ack: visible again", seat(e.Msg), e.Delivery), true
	case engine.EvDLQ:
		if !s.h.at(e.Msg).sold {
			// the lease ran out as the update was about to commit
			return fmt.Sprintf("%s moved to the dead letter queue after its last delivery — while a consumer still runs its update, which will sell the seat all the same", seat(e.Msg)), true
		}
		return fmt.Sprintf("%s moved to the dead letter queue after its last delivery — its seat was sold exactly once", seat(e.Msg)), true
	}
	return "", false
}

// DecisionText: the family decides only crashes, a standard kind.
func (s *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	return "does " + Consumer(int(d.Worker)) + " crash after committing " + seat(d.Msg) + ": " + [2]string{"no", "yes"}[d.Value&1]
}

// consumerRows lists, in this order: the featured hold's row, leases no
// consumer works on, dead consumers, busy ones (latest delivery first),
// idle ones — so the rows the story is about are on screen.
func (s *Family) consumerRows(w *engine.World) []engine.PaneRow {
	vt := float64(w.P.VisibilityTimeout)
	bar := func(end engine.Time) float64 {
		if vt <= 0 {
			return -1
		}
		return max(0, float64(end-w.Now)/vt)
	}
	type ranked struct {
		rank int
		at   engine.Time
		row  engine.PaneRow
	}
	var rows []ranked
	featured := w.Spec().Featured
	for _, l := range s.orphans {
		r := engine.PaneRow{Msg: l.hold, Text: fmt.Sprintf("%s  delivery %d  back at %s", seat(l.hold), l.delivery, engine.Time(l.end).Clock()), Mark: "LEASED", Bar: bar(l.end)}
		rows = append(rows, ranked{1, -l.end, r})
	}
	for i, c := range s.consumers {
		switch c.state {
		case cIdle:
			rows = append(rows, ranked{4, engine.Time(i), engine.PaneRow{Msg: -1, Text: Consumer(i) + "  idle", Bar: -1}})
		case cDead:
			rows = append(rows, ranked{2, -c.since, engine.PaneRow{Msg: -1, Text: Consumer(i) + "  dead, restarting", Mark: "DEAD", Bar: -1}})
		default:
			r := engine.PaneRow{Msg: c.hold, Text: fmt.Sprintf("%s  %s  delivery %d", Consumer(i), seat(c.hold), c.delivery), Bar: bar(c.leaseEnd)}
			if s.h.at(c.hold).sold {
				r.Mark = "SOLD"
			}
			rows = append(rows, ranked{3, -c.since, r})
		}
	}
	for i := range rows {
		if featured >= 0 && rows[i].row.Msg == featured {
			rows[i].rank = 0
		}
	}
	slices.SortStableFunc(rows, func(a, b ranked) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return int(a.at - b.at)
	})
	out := make([]engine.PaneRow, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	return out
}

// Panes: the queue, the consumers and their seats, the drawer, and the
// zero-row updates.
func (s *Family) Panes(w *engine.World) engine.Panes {
	p := engine.Panes{
		QueueTitle:    fmt.Sprintf("queue: %d waiting, %d back again", s.visible(), len(s.again)),
		InFlightTitle: fmt.Sprintf("consumers: %d of %d seats sold", s.sold, s.pressed),
		DLQTitle:      fmt.Sprintf("dead letters: %d (%d sold)", s.dlq, s.dlqSold),
		InboxTitle:    fmt.Sprintf("zero-row updates: %d ok, %d failed", s.zeroOK, s.zeroFail),
	}
	for _, id := range s.again {
		if len(p.Queue) >= 40 {
			break
		}
		h := s.h.at(id)
		p.Queue = append(p.Queue, engine.PaneRow{Msg: id, Text: fmt.Sprintf("%s  received %d×", seat(id), h.receives), Mark: "AGAIN", Bar: -1})
	}
	for id := s.fresh; id < s.pressed && len(p.Queue) < 40; id++ {
		p.Queue = append(p.Queue, engine.PaneRow{Msg: id, Text: seat(id), Bar: -1})
	}
	p.InFlight = s.consumerRows(w)
	for _, dl := range w.DeadLetters(40) {
		r := engine.PaneRow{Msg: dl.Msg, Text: fmt.Sprintf("%s  at %s", seat(dl.Msg), engine.Time(dl.At).Clock()), Bar: -1}
		if s.h.at(dl.Msg).sold {
			r.Mark = "SOLD"
		}
		p.DLQ = append(p.DLQ, r)
	}
	for i := s.nZeros - 1; i >= 0 && i >= s.nZeros-len(s.zeros); i-- {
		z := s.zeros[i%len(s.zeros)]
		r := engine.PaneRow{Msg: z.hold, Text: fmt.Sprintf("%s  %s delivery %d: 0 rows", z.at.Clock(), seat(z.hold), z.delivery), Mark: "OK", Bar: -1}
		if z.failure {
			r.Mark = "FAIL"
		}
		p.Inbox = append(p.Inbox, r)
	}
	return p
}
