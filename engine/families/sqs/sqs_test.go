package sqs_test

import (
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/sqs"
)

var figures = []string{"crashes", "redriven", "wedged", "wedged_retried", "late_acks_accepted"}

// TestPublishedFigures checks the queue incidents' figures, main and forks.
func TestPublishedFigures(t *testing.T) {
	for _, id := range []string{"thursday", "thursday-fixed", "christmas-friday"} {
		res, err := engine.CheckSpec(familytest.Incident(t, id))
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Fatalf("%s: no figures", id)
		}
		for _, r := range res {
			if !r.OK {
				t.Errorf("%s %s %s: want %s, got %s", id, r.Run, r.Key, r.Want, r.Got)
			}
		}
	}
}

// TestEveryMessageAccounted plays the queue at its knobs' edges and with
// forks that reach into its own state (a switch to an ordered queue
// re-homes the messages in flight; a raised order count restarts the
// source): every message ends in exactly one state.
func TestEveryMessageAccounted(t *testing.T) {
	familytest.Table(t, familytest.Incident(t, "thursday"), 1, 1_000_000, figures, []familytest.Case{
		{Name: "defaults",
			Want: "messages 108 deliveries 324 effects 324 duplicates 216 end 21:11:07.296 | held 0 done 0 dlq 108 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 0"},
		{Name: "visibility_timeout=60s", Set: []string{"visibility_timeout", "60s"},
			Want: "messages 108 deliveries 108 effects 108 duplicates 0 end 21:10:03.678 | held 0 done 108 dlq 0 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 0"},
		{Name: "ack=before", Set: []string{"ack", "before"},
			Want: "messages 108 deliveries 108 effects 108 duplicates 0 end 21:10:03.678 | held 0 done 108 dlq 0 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 0"},
		{Name: "claim=true wedge_p=0.3 heartbeat=10s", Set: []string{"claim", "true", "wedge_p", "0.3", "heartbeat", "10s"},
			Want: "messages 108 deliveries 9 effects 9 duplicates 0 end 21:09:30 | held 103 done 5 dlq 0 lost 0 | crashes 0 redriven 0 wedged 4 wedged_retried 0 late_acks_accepted 0"},
		{Name: "late_ack=accept", Set: []string{"late_ack", "accept"},
			Want: "messages 108 deliveries 216 effects 216 duplicates 108 end 21:10:38.322 | held 0 done 108 dlq 0 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 216"},
		{Name: "mode=ordered at 19:45", Fork: familytest.Fork{At: "19:45:00", Set: familytest.Set("mode", "ordered")},
			Want: "messages 108 deliveries 324 effects 324 duplicates 216 end 22:19:07.296 | held 0 done 0 dlq 108 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 0"},
		// a heartbeat turned off while handlers renew: the renewal thread
		// stops, the leases run out as they stand (it used to renew at
		// the same instant for ever)
		{Name: "heartbeat=10s, 0s at 19:45", Set: []string{"heartbeat", "10s"}, Fork: familytest.Fork{At: "19:45:00", Set: familytest.Set("heartbeat", "0s")},
			Want: "messages 108 deliveries 312 effects 312 duplicates 204 end 21:11:07.296 | held 0 done 6 dlq 102 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 0"},
		{Name: "orders=200 at 21:10", Fork: familytest.Fork{At: "21:10:00", Set: familytest.Set("orders", "200")},
			Want: "messages 200 deliveries 600 effects 600 duplicates 400 end 22:27:42.693 | held 0 done 0 dlq 200 lost 0 | crashes 0 redriven 0 wedged 0 wedged_retried 0 late_acks_accepted 0"},
	})
	familytest.Table(t, familytest.Incident(t, "christmas-friday"), 1, 1_000_000, figures, []familytest.Case{
		{Name: "defaults", Want: "messages 880 deliveries 1000 effects 880 duplicates 0 end 17:59:55.25 | held 0 done 880 dlq 0 lost 0 | crashes 120 redriven 40 wedged 0 wedged_retried 0 late_acks_accepted 0"},
		{Name: "max_receives=1", Set: []string{"max_receives", "1"}, Want: "messages 880 deliveries 920 effects 880 duplicates 0 end 17:59:55.25 | held 0 done 880 dlq 0 lost 0 | crashes 40 redriven 40 wedged 0 wedged_retried 0 late_acks_accepted 0"},
	})
}

// TestCloneMidRun: a checkpoint holds the queue's whole state — leases,
// the ring, workers mid-handler, a source still publishing.
func TestCloneMidRun(t *testing.T) {
	familytest.CloneMidRun(t, familytest.Incident(t, "thursday"), 1, nil, "19:43:00", figures...)
	familytest.CloneMidRun(t, familytest.Incident(t, "thursday"), 3, familytest.Set("mode", "ordered", "wedge_p", "0.2"), "20:10:00", figures...)
	familytest.CloneMidRun(t, familytest.Incident(t, "christmas-friday"), 1, nil, "16:30:00", figures...)
}

// TestOf: the queue is found on its own incidents' worlds only; the world
// names it as its family like any other.
func TestOf(t *testing.T) {
	w, err := engine.NewWorld(familytest.Incident(t, "thursday"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sqs.Of(w) == nil || w.Family() != sqs.Of(w) {
		t.Errorf("thursday: Of %v, Family %v", sqs.Of(w), w.Family())
	}
	w, err = engine.NewWorld(familytest.Incident(t, "db-down"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := sqs.Of(w); q != nil || q.QueueLen() != 0 || q.Workers() != nil || w.Family() == nil {
		t.Errorf("db-down: Of %v", q)
	}
}

// TestRecordsInStep: the queue's record of a message is released with the
// kernel's and revived with it by a redrive, in a world and in its clone:
// a long run keeps no record the kernel has let go, and a message the
// queue still holds always has its record.
func TestRecordsInStep(t *testing.T) {
	check := func(name string, w *engine.World) (released int) {
		t.Helper()
		q := sqs.Of(w)
		for id := int32(0); int(id) < w.Published(); id++ {
			m, ok := w.Msg(id)
			r, rok := q.Record(id)
			if ok != rok {
				t.Fatalf("%s at %s: message %d kernel record %v, queue record %v", name, w.Now.Short(), id, ok, rok)
			}
			if !ok {
				released++
				continue
			}
			if m.Status == engine.StInFlight && !r.Deferred && r.Holder < 0 {
				t.Errorf("%s at %s: message %d in flight with no holder", name, w.Now.Short(), id)
			}
			if m.Status == engine.StVisible && r.Holder != -1 {
				t.Errorf("%s at %s: visible message %d held by %d", name, w.Now.Short(), id, r.Holder)
			}
		}
		return released
	}
	for _, c := range []struct {
		id  string
		set []engine.Setting
		mid string
	}{
		{"thursday", familytest.Set("orders", "3000"), "20:00:00"},
		{"christmas-friday", nil, "17:49:00"}, // the redrive comes at 17:50
	} {
		w := familytest.WorldAt(t, familytest.Incident(t, c.id), 1, c.set, c.mid)
		check(c.id+" mid", w)
		cp := w.Clone()
		for i := 1; w.Step(nil); i++ {
			if i%997 == 0 {
				check(c.id, w)
			}
		}
		if n := check(c.id+" end", w); n == 0 {
			t.Errorf("%s: no record released by the end", c.id)
		}
		check(c.id+" checkpoint", cp)
		for cp.Step(nil) {
		}
		check(c.id+" clone's end", cp)
	}
}
