package sqs_test

import (
	"fmt"
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
	p := sqs.Of(w).Panes(w, engine.Cursor{At: w.Now, Sel: 0})
	if !strings.HasPrefix(p[0].Title, "Queue ") || !strings.HasPrefix(p[1].Title, "In flight ") {
		t.Fatalf("titles %q, %q", p[0].Title, p[1].Title)
	}
	if want := min(sqs.Of(w).QueueLen(), sqs.ListCap); len(p[0].Rows) < want {
		t.Fatalf("%d queue rows for %d waiting", len(p[0].Rows), sqs.Of(w).QueueLen())
	}
	leases := 0
	for _, r := range p[1].Rows {
		if r.Of > 0 {
			leases++
			if r.Msg < 0 || r.Tail == "" || r.Bar >= 0 {
				t.Fatalf("lease row %+v", r)
			}
		}
	}
	if leases == 0 || leases > len(sqs.Of(w).Leased()) {
		t.Fatalf("%d lease rows for %d leased", leases, len(sqs.Of(w).Leased()))
	}
	if p[3].Title != "Inbox: "+w.MsgName(0) {
		t.Fatalf("inbox title %q", p[3].Title)
	}
	// nobody selected, no email: a blank inbox, not "empty"
	q := sqs.Of(w).Panes(w, engine.Cursor{At: w.Now, Sel: -1})
	if len(q[3].Rows) != 1 || q[3].Rows[0].Text != "" || q[3].Rows[0].Tone != engine.ToneNote {
		t.Fatalf("blank inbox %+v", q[3].Rows)
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

// The queue's rows read as the format they replace.
func TestQueueRowFormat(t *testing.T) {
	w := familytest.WorldAt(t, familytest.Incident(t, "christmas-friday"), 1, nil, "16:51:30")
	at := w.Now + 1500
	p := sqs.Of(w).Panes(w, engine.Cursor{At: at, Sel: -1})
	if len(p[0].Rows) == 0 {
		t.Fatal("nothing waiting")
	}
	for _, r := range p[0].Rows {
		m, _ := w.Msg(r.Msg)
		want := fmt.Sprintf("%-8s age %-6s %d× recv", w.MsgName(r.Msg), (at - m.Published).Brief(), m.Receives)
		if rec, _ := sqs.Of(w).Record(r.Msg); rec.Deferred {
			want += " delay " + (rec.Expiry - at).Brief()
		}
		if r.Text != want {
			t.Fatalf("row %q, want %q", r.Text, want)
		}
	}
}

// The dead letter rows read as the format they replace.
func TestDeadRowFormat(t *testing.T) {
	for _, c := range [][2]string{{"christmas-friday", "17:30:00"}, {"thursday", "20:30:00"}} {
		deadRows(t, familytest.WorldAt(t, familytest.Incident(t, c[0]), 1, nil, c[1]))
	}
}

func deadRows(t *testing.T, w *engine.World) {
	t.Helper()
	p := sqs.Of(w).Panes(w, engine.Cursor{At: w.Now, Sel: -1})
	dead := w.Truth().DeadLetters(sqs.ListCap)
	if len(dead) == 0 || len(p[2].Rows) != len(dead) {
		t.Fatalf("%d dead letter rows for %d", len(p[2].Rows), len(dead))
	}
	for i, d := range dead {
		why := fmt.Sprintf("%d× recv", d.Receives)
		if d.Poison {
			why = "raises KeyError"
		}
		done := fmt.Sprintf("done %d×", d.Effects)
		if d.Effects == 0 {
			done = "work never done"
		}
		if want := fmt.Sprintf("%-8s %s %s · %s", w.MsgName(d.Msg), d.At.Short(), done, why); p[2].Rows[i].Text != want {
			t.Fatalf("row %q, want %q", p[2].Rows[i].Text, want)
		}
	}
}
