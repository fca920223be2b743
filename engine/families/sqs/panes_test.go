package sqs_test

import (
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/sqs"
)

// Mid-incident, the queue's panes word the world's state: one row per
// waiting message and per lease, each lease with its countdown, and a
// customer's inbox that names them.
func TestPanes(t *testing.T) {
	w := familytest.WorldAt(t, familytest.Incident(t, "thursday"), 1, nil, "19:52:34")
	p := sqs.Panes(w, sqs.Cursor{At: w.Now, Sel: 0})
	if !strings.HasPrefix(p.QueueTitle, "Queue ") || !strings.HasPrefix(p.InFlightTitle, "In flight ") {
		t.Fatalf("titles %q, %q", p.QueueTitle, p.InFlightTitle)
	}
	if want := min(w.QueueLen(), sqs.ListCap); len(p.Queue) < want {
		t.Fatalf("%d queue rows for %d waiting", len(p.Queue), w.QueueLen())
	}
	leases := 0
	for _, r := range p.InFlight {
		if r.Of > 0 {
			leases++
			if r.Msg < 0 || r.Tail == "" || r.Bar >= 0 {
				t.Fatalf("lease row %+v", r)
			}
		}
	}
	if leases == 0 || leases > len(w.Leased()) {
		t.Fatalf("%d lease rows for %d leased", leases, len(w.Leased()))
	}
	if p.InboxTitle != "Inbox: "+w.MsgName(0) {
		t.Fatalf("inbox title %q", p.InboxTitle)
	}
	// nobody selected, no email: a blank inbox, not "empty"
	q := sqs.Panes(w, sqs.Cursor{At: w.Now, Sel: -1})
	if len(q.Inbox) != 1 || q.Inbox[0].Text != "" || q.Inbox[0].Tone != engine.ToneNote {
		t.Fatalf("blank inbox %+v", q.Inbox)
	}
}

// Brief words spans as the panes print them.
func TestBrief(t *testing.T) {
	for d, want := range map[engine.Duration]string{
		0: "0s", 4200: "4.2s", 45 * engine.Second: "45s", 3 * engine.Minute: "3m",
		185 * engine.Second: "3m05s", 2*engine.Hour + 7*engine.Minute: "2h07m", -1500: "-1.5s",
	} {
		if got := d.Brief(); got != want {
			t.Errorf("%d: %q, want %q", d, got, want)
		}
	}
}
