package stagefront

import (
	"fmt"
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

// clock is engine.Time.Clock without fmt: the hot captions are built for
// every one of a sale's 800,000 events the explorer lists.
func clock(t engine.Time) string {
	if t < 0 || t >= 100*engine.Hour {
		return t.Clock()
	}
	ms := int64(t)
	b := [12]byte{'0', '0', ':', '0', '0', ':', '0', '0', '.', '0', '0', '0'}
	two := func(i int, v int64) { b[i], b[i+1] = byte('0'+v/10), byte('0'+v%10) }
	two(0, ms/3_600_000)
	two(3, ms/60_000%60)
	two(6, ms/1000%60)
	b[9], b[10], b[11] = byte('0'+ms%1000/100), byte('0'+ms%100/10), byte('0'+ms%10)
	return string(b[:])
}

// KindName names the family's event kinds for the trace.
func (s *Stagefront) KindName(k engine.Kind) string {
	if i := int(k - engine.FamilyKind); k >= engine.FamilyKind && i < len(kindNames) {
		return kindNames[i]
	}
	return "unknown"
}

// Caption tells each event in the lesson's words.
func (s *Stagefront) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	who := Consumer(int(e.Worker))
	switch e.Kind {
	case engine.EvPublish:
		return "a press at " + clock(e.T) + " holds a seat: “sell " + seat(e.Msg) + "” queued", true
	case engine.EvDeliver:
		if e.Delivery > 1 {
			return fmt.Sprintf("%s delivered again, to %s (delivery %d): its last lease ran out with no ack", seat(e.Msg), who, e.Delivery), true
		}
		return seat(e.Msg) + " delivered to " + who + " (lease until " + clock(engine.Time(e.Value)) + ")", true
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
		return fmt.Sprintf("%s moved to the dead letter queue after its last delivery — its seat was sold exactly once", seat(e.Msg)), true
	}
	return "", false
}

// DecisionText: the family decides only crashes, a standard kind.
func (s *Stagefront) DecisionText(w *engine.World, d *engine.Decision) string {
	return "does " + Consumer(int(d.Worker)) + " crash after committing " + seat(d.Msg) + ": " + [2]string{"no", "yes"}[d.Value&1]
}

// Panes: the queue, the consumers and their seats, the drawer, and the
// zero-row updates.
func (s *Stagefront) Panes(w *engine.World) engine.Panes {
	p := engine.Panes{
		QueueTitle:    fmt.Sprintf("queue: %d sales waiting (%d back after a lease ran out)", s.visible(), len(s.again)),
		InFlightTitle: fmt.Sprintf("consumers: %d seats sold of %d held", s.sold, s.pressed),
		DLQTitle:      fmt.Sprintf("dead letter queue: %d (%d of them sold)", s.dlq, s.dlqSold),
		InboxTitle:    fmt.Sprintf("zero-row updates: %d taken as success, %d as failure", s.zeroOK, s.zeroFail),
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
	vt := float64(w.P.VisibilityTimeout)
	for i, c := range s.consumers {
		r := engine.PaneRow{Msg: -1, Bar: -1}
		switch c.state {
		case cIdle:
			r.Text = Consumer(i) + "  idle"
		case cDead:
			r.Text, r.Mark = Consumer(i)+"  dead, restarting", "DEAD"
		default:
			h := s.h.at(c.hold)
			r.Msg = c.hold
			r.Text = fmt.Sprintf("%s  %s  delivery %d", Consumer(i), seat(c.hold), c.delivery)
			if h.sold {
				r.Mark = "SOLD"
			}
			if vt > 0 {
				r.Bar = max(0, float64(c.leaseEnd-w.Now)/vt)
			}
		}
		p.InFlight = append(p.InFlight, r)
	}
	for _, l := range s.orphans {
		r := engine.PaneRow{Msg: l.hold, Text: fmt.Sprintf("%s  delivery %d, no consumer: back at %s", seat(l.hold), l.delivery, l.end.Short()), Mark: "LEASED", Bar: -1}
		if vt > 0 {
			r.Bar = max(0, float64(l.end-w.Now)/vt)
		}
		p.InFlight = append(p.InFlight, r)
	}
	for _, dl := range w.DeadLetters(40) {
		r := engine.PaneRow{Msg: dl.Msg, Text: fmt.Sprintf("%s  at %s", seat(dl.Msg), dl.At.Short()), Bar: -1}
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
