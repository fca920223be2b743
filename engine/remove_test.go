package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// A message is removed from the broker once. These runs reach every way a
// worker can ask to delete, dead-letter or renew a message that is already
// gone; each must leave the counts whole (the recorder checks that the
// states add up and none is negative after every event) and the trace must
// show no second removal.

// TestSentAtAckAfterLateAck is the random suite's find, with its full
// figures: order 11's first delivery answers at the very millisecond its
// 22 ms lease expires, the redelivery goes to A1, and B2's late ack is
// accepted and deletes the order before A1's claim handler runs. A1 finds
// sent_at stamped and acks: DeleteMessage succeeds and deletes nothing.
// Counted as a second deletion, it made done 112 of 108 and held_at_end -4.
func TestSentAtAckAfterLateAck(t *testing.T) {
	q := playQueue(t, "thursday-fixed", settings(t, "late_ack=accept", "visibility_timeout=22ms",
		"latency_min=16ms", "latency_max=40ms", "restart_after=8ms"), "", nil, engine.Budget{})
	s := q.sum
	type figures struct {
		messages, deliveries, effects, dups, done, held, lost, dlq, refused, events, decisions int64
		accepted                                                                               any
		end, unfinished                                                                        string
	}
	got := figures{s.Messages, s.Deliveries, s.Effects, s.DuplicateEffects, s.Done, s.HeldAtEnd, s.Lost, s.DLQ,
		s.LateAcksRefused, s.Events, s.Decisions, s.Figures["late_acks_accepted"], s.End, s.Unfinished}
	want := figures{108, 188, 108, 0, 108, 0, 0, 0, 0, 889, 564, int64(80), "21:09:30.029", ""}
	if got != want {
		t.Errorf("figures\n got %+v\nwant %+v", got, want)
	}
	gone := goneAcks(q)
	if len(gone) != 4 || gone[0] != (goneAck{11, 2, engine.AckAlreadySent}) {
		t.Errorf("acks that found the order deleted: %v, want 4, the first order 11's 2nd delivery (sent_at stamped)", gone)
	}
	checkSettled(t, q)
	checkTrace(t, q)
	checkOneRemoval(t, q)
}

type goneAck struct {
	msg   int32
	del   uint16
	meant int64
}

func goneAcks(q queueRun) []goneAck {
	var out []goneAck
	for _, e := range q.events {
		if e.Kind == engine.EvAck && e.Aux == engine.AckGoneNoop {
			out = append(out, goneAck{e.Msg, e.Delivery, e.Value})
		}
	}
	return out
}

// TestDoubleRemovalPaths: each handler's ack, and the broker's own moves,
// aimed at a message that is already gone.
func TestDoubleRemovalPaths(t *testing.T) {
	cases := []struct {
		name, id  string
		set       []string
		at        string
		atSet     []string
		gone      goneAck // an ack that must find its message deleted, or zero
		lateNoops bool    // some accepted late ack must find its message gone
		done      int64
	}{
		{
			// every call answers as its lease expires: the stamp, the
			// redelivery, the first delivery's late ack, then the claim
			// handler's ack of a deleted order
			name: "sent_at ack after a late ack", id: "thursday-fixed",
			set:  []string{"late_ack=accept", "visibility_timeout=20ms", "latency_min=20ms", "latency_max=20ms"},
			gone: goneAck{0, 2, engine.AckAlreadySent}, done: 108,
		},
		{
			// order 9's third delivery answers within its lease, after the
			// second's late ack deleted it: the ack is on time and changes
			// nothing (it is no late ack: no late_ack decision, not counted
			// as accepted)
			name: "on-time ack after a late ack", id: "thursday",
			set: []string{"late_ack=accept", "visibility_timeout=20ms", "latency_min=10ms", "latency_max=60ms"},
			// (order 14's 34 s pin lies outside 10ms–60ms and gives way:
			// every order is done)
			gone: goneAck{9, 3, engine.AckNormal}, lateNoops: true, done: 108,
		},
		{
			// order 5's first delivery ran under ack-after; the fork makes
			// its redelivery ack before the work, and that ack comes after
			// the first delivery's late ack deleted it. The handler still
			// does its work: a second email, not a second deletion.
			name: "ack-before after a late ack", id: "thursday-fixed",
			set: []string{"late_ack=accept", "visibility_timeout=20ms", "latency_min=20ms", "latency_max=20ms"},
			at:  "19:44:30.01", atSet: []string{"ack=before"},
			gone: goneAck{5, 2, engine.AckBeforeWork}, done: 108,
		},
		{
			// at max_receives=1 every expiry dead-letters: the late acks
			// that follow find the message in the DLQ and delete nothing
			name: "late ack after the DLQ", id: "thursday",
			set:       []string{"late_ack=accept", "visibility_timeout=20ms", "latency_min=10ms", "latency_max=60ms", "max_receives=1"},
			lateNoops: true, done: 29,
		},
		{
			// the poison orders: ack before the work, then the KeyError
			// kills the worker holding a message the broker forgot
			name: "crash after ack-before", id: "christmas-friday",
			set:  []string{"ack=before", "late_ack=accept", "visibility_timeout=1s"},
			done: 840,
		},
		{
			// the fork turns renewals on after the first deliveries' calls
			// began: their leases expire, the redeliveries renew, and a late
			// ack deletes a message whose current holder still renews
			name: "heartbeat after a late ack", id: "thursday",
			set: []string{"late_ack=accept", "visibility_timeout=20ms", "latency_min=30ms", "latency_max=30ms"},
			at:  "19:40:20.01", atSet: []string{"heartbeat=5ms"},
			lateNoops: true, done: 108,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := playQueue(t, c.id, settings(t, c.set...), c.at, settings(t, c.atSet...), engine.Budget{})
			if c.gone != (goneAck{}) {
				gone := goneAcks(q)
				if !slices.Contains(gone, c.gone) {
					t.Errorf("acks that found the message deleted: %v, want %v among them", gone, c.gone)
				}
			}
			if c.lateNoops {
				n := 0
				for _, e := range q.events {
					if e.Kind == engine.EvAck && e.Aux == engine.AckLateNoop {
						n++
					}
				}
				if n == 0 {
					t.Errorf("no accepted late ack found its message gone: the run misses the path it tests")
				}
			}
			s := q.sum
			if total(s) != s.Messages || s.HeldAtEnd != 0 || s.Done != c.done {
				t.Errorf("done %d (want %d) + held %d + dlq %d + lost %d, messages %d", s.Done, c.done, s.HeldAtEnd, s.DLQ, s.Lost, s.Messages)
			}
			checkSettled(t, q)
			checkTrace(t, q)
			checkOneRemoval(t, q)
		})
	}
}

// checkOneRemoval: once the broker has deleted a message, nothing about it
// moves in the broker again (no second deletion, no lease, no renewal, no
// DLQ), and a dead letter moves again only when it is redriven.
func checkOneRemoval(t *testing.T, q queueRun) {
	t.Helper()
	const (
		held = iota
		deleted
		dead
	)
	state := map[int32]int{}
	for _, e := range q.events {
		if e.Msg < 0 {
			if e.Kind == engine.EvRedrive {
				for id, st := range state {
					if st == dead {
						state[id] = held
					}
				}
			}
			continue
		}
		st := state[e.Msg]
		switch e.Kind {
		case engine.EvAck:
			if engine.NoopAck(e.Aux) {
				if st == held {
					t.Fatalf("event %d: a no-op ack (%d) for message %d, which the broker holds", e.Pos, e.Aux, e.Msg)
				}
				continue
			}
			if st != held {
				t.Fatalf("event %d: message %d deleted again (ack %d)", e.Pos, e.Msg, e.Aux)
			}
			state[e.Msg] = deleted
		case engine.EvDLQ:
			if st != held {
				t.Fatalf("event %d: message %d dead-lettered when already gone", e.Pos, e.Msg)
			}
			state[e.Msg] = dead
		case engine.EvDeliver, engine.EvLeaseExpired:
			if st != held {
				t.Fatalf("event %d: message %d %s after the broker let it go", e.Pos, e.Msg, e.Kind)
			}
		}
		// the queue's renewals and deferrals, by their trace names
		if n := q.w.KindName(e.Kind); n == "renew" || n == "defer" {
			if st != held {
				t.Fatalf("event %d: message %d %s after the broker let it go", e.Pos, e.Msg, n)
			}
		}
	}
}

// TestRemovalRandom hunts where removals race: leases and provider calls of
// a few milliseconds, often the same length, late acks accepted, claims,
// renewals, crashes and forks that flip the handler's rules mid-flight.
// Each run must keep the states whole after every event and remove each
// message once.
func TestRemovalRandom(t *testing.T) {
	n := removalCases
	if testing.Short() {
		n /= 4
	}
	ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rngRemoval.IntN(hi-lo+1)) }
	for i := 0; i < n; i++ {
		id := []string{"thursday", "thursday-fixed", "christmas-friday"}[i%3]
		vt := ms(5, 40)
		lo := ms(0, 40)
		kv := []string{"orders=" + fmt.Sprint(5+rngRemoval.IntN(40)), "visibility_timeout=" + vt,
			"late_ack=" + pick("accept", "accept", "accept", "refuse")}
		switch rngRemoval.IntN(3) {
		case 0: // every call as long as the lease: answers and expiries tie
			kv = append(kv, "latency_min="+vt, "latency_max="+vt)
		case 1:
			kv = append(kv, "latency_min="+lo, "latency_max="+lo)
		default:
			kv = append(kv, "latency_min=0s", "latency_max="+ms(40, 90))
		}
		opt := []string{"claim=" + pick("true", "false"), "claim_window=" + ms(1, 60), "heartbeat=" + pick("0s", "0s", ms(1, 30)),
			"max_receives=" + pick("1", "2", "3", "6"), "ack=" + pick("after", "after", "before"), "mode=" + pick("standard", "standard", "ordered"),
			"restart_after=" + pick("0s", ms(1, 20)), "wedge_p=" + pick("0", "0", "0.05"), "crash_after_claim=" + pick("0s", ms(1, 50))}
		for _, o := range opt {
			if rngRemoval.IntN(2) == 0 {
				kv = append(kv, o)
			}
		}
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		set := settings(t, kv...)
		p := spec.Params
		if p.Apply(set) != nil || engine.CheckKnobsFor(spec, set) != nil {
			continue // a knob this incident does not take
		}
		at := ""
		var atSet []engine.Setting
		if rngRemoval.IntN(3) == 0 {
			at = (spec.Start + engine.Time(rngRemoval.IntN(int(5*engine.Minute)))).Clock()
			atSet = settings(t, pick("ack=before", "ack=after", "late_ack=accept", "late_ack=refuse", "claim=true", "heartbeat="+ms(1, 20)))
		}
		name := fmt.Sprintf("%s %v at %q %v", id, kv, at, atSet)
		t.Run(name, func(t *testing.T) {
			q := playQueue(t, id, set, at, atSet, engine.Budget{Events: 2_000_000})
			if total(q.sum) != q.sum.Messages || q.sum.HeldAtEnd < 0 || q.sum.Lost < 0 {
				t.Errorf("states %+v do not add up", q.sum)
			}
			checkSettled(t, q)
			checkTrace(t, q)
			checkOneRemoval(t, q)
		})
	}
}

var (
	removalCases = 300
	rngRemoval   = rand.New(rand.NewPCG(36, 36))
)

func pick(s ...string) string { return s[rngRemoval.IntN(len(s))] }
