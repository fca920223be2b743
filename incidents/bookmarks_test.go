package incidents

import (
	"strings"
	"testing"

	"inflight/engine"
)

// landing is what a bookmark must show once the explorer is seeked to it
// as `]` seeks: the last event that has happened (its kind, its message
// when the title names one, words its caption must carry), and any state
// the title claims.
type landing struct {
	title string
	kind  string
	msg   int32  // -1: the title names no message
	words string // in the landing event's caption ("" : none asked)
	dlq   int    // -1: not claimed
	pub   int    // messages published so far; -1: not claimed
}

// bookmarkLandings lists every bookmark of every bundled incident.
var bookmarkLandings = map[string][]landing{
	"thursday": {
		{"Order placed, delivered", "effect", 14, "the email leaves (answer in 34 s)", -1, -1},
		{"Lease expires, redelivered", "effect", 14, "copy 2", -1, -1},
		{"The first call returns; its ack is refused", "ack_refused", 14, "refused", -1, -1},
		{"Third delivery", "effect", 14, "copy 3", -1, -1},
		{"Moved to the dead letter queue", "dlq", 14, "dead letter queue after 3 deliveries", -1, -1},
	},
	"thursday-fixed": {
		{"Order placed: claim, then send", "effect", 14, "the email leaves", -1, -1},
		{"The redelivery finds a young claim and defers", "defer", 14, "finds a claim 30 s old", -1, -1},
		{"Back at two and a half minutes: sent_at stamped, an easy ack", "ack", 14, "finds sent_at stamped", -1, -1},
	},
	"christmas-friday": {
		{"The new consumer meets the first old message", "crash", 0, "KeyError", 0, -1},
		{"The first poison message reaches the drawer", "crash", 1, "KeyError", 1, -1},
		{"The age alert fires", "alert", -1, "ALERT oldest_age", -1, -1},
		// the fortieth dead letter, before the redrive at the same clock
		{"The fortieth in the drawer; the repair script runs", "dlq", 39, "dead letter queue", 40, -1},
	},
	"cashback": {
		{"5,000 events in the stream", "publish", 4999, "XADD", -1, 5000},
		{"The consumer starts reading", "deliver", -1, "XREADGROUP", -1, -1},
		{"The first crash, after the commit and before XACK", "crash", 133, "after committing the wallet update but before XACK", -1, -1},
		{"Restart: its own pending entries first", "restart", -1, "its own pending", -1, -1},
		{"₹5,500 of extra cashback", "caught_up", -1, "all 5000 events consumed", -1, -1},
	},
	"galewatch": {
		{"620 readings a second", "effect", -1, "stored", -1, -1},
		{"A write times out; it had landed", "effect", 203, "the write landed, but its answer was lost", -1, -1},
		{"The copy thrown away", "reject", 203, "throws the copy away", -1, -1},
		{"A daemon steps a clock back six seconds", "clock_step", -1, "back 6s", -1, -1},
		{"Three genuine readings deleted", "collision", -1, "a genuine reading is thrown away", -1, -1},
		{"Every deduplicator has a window", "effect", -1, "stored", -1, -1},
	},
	"stagefront": {
		{"200,000 people press the same button", "publish", -1, "holds a seat", -1, -1},
		{"The seat is claimed", "effect", 2291, "1 row: the seat is sold", -1, -1},
		{"A crash after the commit, before the ack", "crash", 2291, "after its commit and before its ack", -1, -1},
		{"The second delivery matches zero rows", "zero_rows", 2291, "matches zero rows", -1, -1},
		{"Every held seat sold exactly once", "ack", -1, "deleted", -1, -1},
	},
	"fifo-window": {
		{"The first send: stored, its answer lost", "answer_lost", 0, "the answer to the first send is lost", -1, -1},
		{"Retry after one minute: dropped as a duplicate", "duplicate_dropped", 0, "Retry 1 (minute 1)", -1, -1},
		{"Retry after two more minutes: still remembered", "duplicate_dropped", 0, "Retry 2 (minute 3)", -1, -1},
		// the second email itself, not the accepted retry before it
		{"Minute seven: accepted as new, a second email", "effect", 0, "copy 2", -1, -1},
	},
	"kafka-restart": {
		{"A producer id and sequence numbers", "init_producer", -1, "producer id — 1001", -1, -1},
		{"Its own retry, dropped", "answer_lost", -1, "the producer retries the same batch", -1, -1},
		{"A deploy kills the producer", "crash", -1, "kills producer instance 1", -1, -1},
		// the first duplicate: records 0–38 of orders-1 stored a second time
		{"Restarted without a transactional.id", "produce", -1, "instance 2 sends the batch for orders-1 (39 records, sequence 0–38): stored at offsets 39–77", -1, -1},
	},
	"ordering": {
		{"Keyed by order id", "deliver", 0, "order 0 created", -1, -1},
		{"Order 2's created fails: retried in place, its partition waits", "fail", 2, "retries it in place", -1, -1},
		{"The retry succeeds; paid and shipped follow, in order", "deliver", 2, "order 2 created (v1) from order-events-3 offset 0 (attempt 2)", -1, -1},
		{"The lunchtime rush: lag grows", "publish", -1, "published", -1, -1},
		{"The rush ends a minute behind; still in order", "publish", -1, "published", -1, -1},
	},
	"db-down": {
		{"Healthy: steady and small", "deliver", -1, "writes it to the database", 0, -1},
		{"The database goes down", "db_error", 600, "refuses the connection (attempt 1)", 0, -1},
		{"The first event reaches the dead letter queue", "dlq", 600, "moved to the dead letter queue", 1, -1},
		{"Dumping the stream into the DLQ", "deliver", -1, "writes it to the database", 586, -1},
		{"The database is back", "db_up", -1, "the database is back", -1, -1},
		{"The end: a full drawer", "effect", -1, "row is written", 1186, -1},
	},
}

// TestBookmarksLandOnTheirEvent seeks each bookmark as the explorer's `]`
// does and checks the event it lands on is the one its title describes.
func TestBookmarksLandOnTheirEvent(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All() {
		seen[s.ID] = true
		want, ok := bookmarkLandings[s.ID]
		if !ok {
			t.Errorf("%s: its bookmarks are not in the table", s.ID)
			continue
		}
		if len(want) != len(s.Bookmarks) {
			t.Errorf("%s: %d bookmarks, %d in the table", s.ID, len(s.Bookmarks), len(want))
			continue
		}
		x, err := engine.NewExplorer(s, s.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range s.Bookmarks {
			w := want[i]
			name := s.ID + " " + b.At.Short() + " " + b.Title
			if w.title != b.Title {
				t.Errorf("%s: bookmark %d is %q, the table has %q", s.ID, i+1, b.Title, w.title)
				continue
			}
			x.SeekBookmark(b)
			p := x.Pos()
			if p == 0 {
				t.Errorf("%s: lands before anything happened", name)
				continue
			}
			e := x.Events(p-1, p)[0]
			if got := x.World().KindName(e.Event.Kind); got != w.kind {
				t.Errorf("%s: lands on %s (%s), want %s", name, got, e.Caption, w.kind)
			}
			if w.msg >= 0 && e.Event.Msg != w.msg {
				t.Errorf("%s: lands on message %d (%s), want %d", name, e.Event.Msg, e.Caption, w.msg)
			}
			if !strings.Contains(e.Caption, w.words) {
				t.Errorf("%s: lands on %q, want it to say %q", name, e.Caption, w.words)
			}
			if w.dlq >= 0 && x.World().DLQLen() != w.dlq {
				t.Errorf("%s: DLQ holds %d, want %d", name, x.World().DLQLen(), w.dlq)
			}
			if w.pub >= 0 && x.World().Published() != w.pub {
				t.Errorf("%s: %d published, want %d", name, x.World().Published(), w.pub)
			}
		}
	}
	for id := range bookmarkLandings {
		if !seen[id] {
			t.Errorf("%s: in the table but not a bundled incident", id)
		}
	}
}
