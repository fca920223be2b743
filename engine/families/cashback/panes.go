package cashback

import (
	"fmt"

	"inflight/engine"
)

// Panes shows the stream in Redis's terms: undelivered entries, the
// pending entries list with delivery counts, the crashes, and u1's wallet.
func (c *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := []engine.Pane{
		{Title: fmt.Sprintf("stream: %d entries not yet read (XREADGROUP >)", c.produced-c.readNew)},
		{Title: fmt.Sprintf("pending entries list: %d delivered, not XACKed", len(c.pel)+c.operatorPending())},
		{Title: fmt.Sprintf("crashes: %d (after commit, before XACK)", c.crashes)},
		{Title: fmt.Sprintf("wallet u1: %s (expected %s)", Rupees(c.balance), Rupees(int64(c.produced)*Amount))},
	}
	if c.k.Dedupe == DedupeSeparate {
		p[2].Title = fmt.Sprintf("crashes: %d (between SADD and the wallet commit)", c.crashes)
	}
	const streamRows = 40 // the soonest; the title has the count
	for k := c.readNew; k < c.produced && len(p[0].Rows) < streamRows; k++ {
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: k, Text: fmt.Sprintf("event %-5d credit ₹100 to u1", k), Bar: -1})
	}
	if n := c.produced - c.readNew - streamRows; n > 0 {
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("… and %d more not listed (# selects any)", n), Bar: -1, Tone: engine.ToneNote})
	}
	for _, q := range c.pel {
		r := engine.PaneRow{Msg: q.entry, Text: fmt.Sprintf("event %-5d consumer-1  delivery count %d", q.entry, q.count), Bar: -1}
		if q.count > 1 {
			r.Mark = "REDELIVERED"
		}
		p[1].Rows = append(p[1].Rows, r)
	}
	for i, t := range c.taken {
		if t.acked || c.takenIndex(t.entry) != i {
			continue
		}
		p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: t.entry, Bar: -1, Mark: "CLAIMED",
			Text: fmt.Sprintf("event %-5d operator    delivery count %d", t.entry, t.count)})
	}
	if c.deadLettered > 0 {
		// dead letters first, each saying whether its credit ever reached
		// the wallet: a delivery count counts re-reads, not failures
		p[2].Title = fmt.Sprintf("dead letters: %d (%d never applied) · %s", c.deadLettered, c.deadNoEffect, p[2].Title)
		for i := c.nDead - 1; i >= 0 && i >= c.nDead-len(c.deadLog); i-- {
			x := c.deadLog[i%len(c.deadLog)]
			r := engine.PaneRow{Msg: x.entry, Bar: -1, Mark: "DEAD", Tone: engine.ToneWarn}
			if x.applied == 0 {
				r.Text, r.Tone = fmt.Sprintf("%s  event %d never applied · %d× delivered", x.at.Clock(), x.entry, x.count), engine.ToneBad
			} else {
				r.Text = fmt.Sprintf("%s  event %d applied %d× · %d× delivered", x.at.Clock(), x.entry, x.applied, x.count)
			}
			p[2].Rows = append(p[2].Rows, r)
		}
	}
	for i := c.nCrashes - 1; i >= 0 && i >= c.nCrashes-len(c.crashLog); i-- {
		x := c.crashLog[i%len(c.crashLog)]
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: x.entry, Text: fmt.Sprintf("%s  event %d, delivery %d", x.at.Clock(), x.entry, x.delivery), Mark: "CRASH", Bar: -1})
	}
	for i := c.nCredits - 1; i >= 0 && i >= c.nCredits-len(c.credits); i-- {
		x := c.credits[i%len(c.credits)]
		r := engine.PaneRow{Msg: x.entry, Bar: -1}
		switch {
		case x.n == 0 && x.lost:
			r.Text, r.Mark = fmt.Sprintf("skip event %d: marked processed, never credited", x.entry), "LOST"
		case x.n == 0:
			r.Text, r.Mark = fmt.Sprintf("skip event %d: already processed", x.entry), "SKIP"
		default:
			r.Text = fmt.Sprintf("+₹100 event %-5d → %s", x.entry, Rupees(x.balance))
			if x.n > 1 {
				r.Mark = "DUP"
			}
		}
		p[3].Rows = append(p[3].Rows, r)
	}
	return p
}

// Legend says what the stream's panes abbreviate, in Redis's terms.
func (c *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "XREADGROUP >", Means: "the consumer group's read of entries never delivered to it"},
		{Short: "XACK", Means: "the consumer's acknowledgement: it takes the entry off the pending entries list"},
		{Short: "delivery count", Means: "times the entry was delivered; a re-read after a crash counts again"},
		{Short: "SADD", Means: "adding the event's id to the set of processed events (the dedupe)"},
		{Short: "REDELIVERED", Means: "delivered more than once"},
		{Short: "CLAIMED", Means: "an operator's XAUTOCLAIM took the entry: it replays it"},
		{Short: "CRASH", Means: "the consumer died there and restarted"},
		{Short: "DEAD", Means: "moved to the dead letters after too many deliveries"},
		{Short: "DUP", Means: "a credit applied again for the same event"},
		{Short: "SKIP", Means: "the dedupe saw the event as processed and skipped it"},
		{Short: "LOST", Means: "marked processed but never credited"},
		{Short: "₹", Means: "rupees"},
	}
}
