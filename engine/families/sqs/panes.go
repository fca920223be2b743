package sqs

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"inflight/engine"
)

// ListCap bounds the rows read from the queue and from the dead letter
// queue for the panes: either may hold millions of messages.
const ListCap = 1000

// Panes words the queue for the explorer at its cursor: the queue, the
// leases, the dead letter queue, the customer's inbox.
func (q *Family) Panes(w *engine.World, c engine.Cursor) []engine.Pane {
	return []engine.Pane{queuePane(w, c), flightPane(w, c), deadPane(w), inboxPane(w, c)}
}

// Status is the queue's figure for the status line: its busy workers.
func (q *Family) Status(*engine.World) []engine.Gauge {
	busy := 0
	for i := range q.workers {
		if q.workers[i].State == WBusy {
			busy++
		}
	}
	return []engine.Gauge{{Name: "busy", N: busy, Of: inServiceOf(q.workers)}}
}

// Words are the queue's: its effect is an email to a customer.
func (q *Family) Words() engine.Words { return words }

var words = engine.Words{
	Waiting: "queue", Taken: "in flight", Effect: "email", Effects: "emails", AnEffect: "an email", EffectMark: "✉",
	Sent: "emails sent", Duplicates: "duplicate emails", Lost: "lost (never sent)",
	Inbox: "'s customer's inbox", NoEffect: "no email",
	Did: map[engine.Kind]string{EvDefer: "deferred", EvClaim: "claimed"},
}

// queuePane lists the messages waiting: visible ones in queue order, then
// the ones handed back with a delay. Each row: id, age, deliveries so far,
// remaining delay.
func queuePane(w *engine.World, c engine.Cursor) engine.Pane {
	q := Of(w)
	queue := q.Queue(w, ListCap)
	var delayed []int32
	for _, id := range q.Leased() {
		if r, ok := q.Record(id); ok && r.Deferred {
			delayed = append(delayed, id)
		}
	}
	title := fmt.Sprintf("Queue %d", Of(w).QueueLen())
	if n := len(delayed); n > 0 {
		title += fmt.Sprintf(" +%d delayed", n)
	}
	// a thousand rows at every frame of full-speed play: appended, not
	// formatted ("%-8s age %-6s %d× recv")
	var b []byte
	row := func(id int32, delayed bool) engine.PaneRow {
		mm, _ := w.Msg(id)
		b = pad(append(b[:0], w.MsgName(id)...), 0, 8)
		b = append(b, " age "...)
		n := len(b)
		b = pad(append(b, (c.At-mm.Published).Brief()...), n, 6)
		b = append(strconv.AppendUint(append(b, ' '), uint64(mm.Receives), 10), "× recv"...)
		if delayed {
			r, _ := q.Record(id)
			b = append(append(b, " delay "...), (r.Expiry - c.At).Brief()...)
		}
		return engine.PaneRow{Msg: id, Text: string(b), Bar: -1}
	}
	rows := make([]engine.PaneRow, 0, len(queue)+len(delayed))
	for _, id := range queue {
		rows = append(rows, row(id, false))
	}
	for _, id := range delayed {
		rows = append(rows, row(id, true))
	}
	return engine.Pane{Title: title, Rows: rows}
}

// flightPane lists the leases: message, worker and box, a countdown bar to
// the lease's expiry; then the workers still running a handler on a
// message whose lease has already passed to somebody else — superseded.
func flightPane(w *engine.World, c engine.Cursor) engine.Pane {
	q := Of(w)
	workers := q.Workers()
	var leased []int32
	for _, id := range q.Leased() {
		if r, ok := q.Record(id); !ok || !r.Deferred {
			leased = append(leased, id)
		}
	}
	var stale []int
	for i, wk := range workers {
		if wk.State != WBusy {
			continue
		}
		mm, ok := w.Msg(wk.Msg)
		if r, _ := q.Record(wk.Msg); !ok || r.Holder != int16(i) || mm.Status != engine.StInFlight {
			stale = append(stale, i)
		}
	}
	title := fmt.Sprintf("In flight %d", len(leased)) + pastLease(w, stale)
	vt := KnobsOf(&w.Knobs).VisibilityTimeout
	var rows []engine.PaneRow
	for _, id := range leased {
		mm, _ := w.Msg(id)
		r, _ := q.Record(id)
		who := "?"
		if h := int(r.Holder); h >= 0 && h < len(workers) {
			who = workers[h].Name + "@" + workers[h].Box
		}
		left := r.Expiry - c.At
		rows = append(rows, engine.PaneRow{
			Msg:  id,
			Text: fmt.Sprintf("%-8s %-4s #%d ", w.MsgName(id), who, mm.Receives),
			Bar:  -1,
			Left: left,
			Of:   max(vt, r.Expiry-r.LeaseAt),
			Tail: " " + left.Brief(),
		})
	}
	for _, i := range stale {
		wk := workers[i]
		s := fmt.Sprintf("%-8s %s@%s #%d %s", w.MsgName(wk.Msg), wk.Name, wk.Box, wk.Delivery, afterLease(w, wk))
		if wk.Wedged {
			s = fmt.Sprintf("%-8s %s@%s WEDGED: the call never returns", w.MsgName(wk.Msg), wk.Name, wk.Box)
		}
		rows = append(rows, engine.PaneRow{Msg: wk.Msg, Text: s, Bar: -1, Tone: engine.ToneBad})
	}
	if len(rows) == 0 {
		idle, off, dead := 0, 0, 0
		for _, wk := range workers {
			switch wk.State {
			case WIdle:
				idle++
			case WOff:
				off++
			case WDead:
				dead++
			}
		}
		of := inServiceOf(workers) // a stopped worker is no longer one of them
		msg := fmt.Sprintf("nothing leased · %d of %d workers idle", idle, of)
		switch {
		case dead == of:
			msg = fmt.Sprintf("nothing leased · all %d workers dead, restarting", dead)
		case dead > 0:
			msg += fmt.Sprintf(", %d dead", dead)
		}
		if off == of {
			msg = fmt.Sprintf("nothing leased · %d workers start at %s", off, w.Spec().Workers.Start.Short())
		}
		rows = append(rows, engine.PaneRow{Msg: -1, Text: msg, Bar: -1, Tone: engine.ToneNote})
	}
	return engine.Pane{Title: title, Rows: rows}
}

// deadPane lists the dead letter queue, newest first: when each message
// moved and why, and how many times its work was done anyway.
func deadPane(w *engine.World) engine.Pane {
	dead := w.Truth().DeadLetters(ListCap)
	// how many had their work done anyway: the point of a DLQ full of
	// emails already sent ("done N×" on the row; the legend says more)
	title := fmt.Sprintf("Dead letters %d", w.DLQLen())
	done := 0
	for _, d := range dead {
		if d.Effects > 0 {
			done++
		}
	}
	switch {
	case done == 0:
	case len(dead) < w.DLQLen():
		title += fmt.Sprintf(" · work done for %d of the newest %d", done, len(dead))
	default:
		title += fmt.Sprintf(" · work done for %d", done)
	}
	rows := make([]engine.PaneRow, 0, len(dead))
	// appended, not formatted: "%-8s %s done %d× · %d× recv"
	var b []byte
	for _, d := range dead {
		b = pad(append(b[:0], w.MsgName(d.Msg)...), 0, 8)
		b = append(append(b, ' '), d.At.Short()...)
		tone := engine.ToneWarn
		if d.Effects == 0 {
			b, tone = append(b, " work never done"...), engine.TonePlain
		} else {
			b = append(strconv.AppendUint(append(b, " done "...), uint64(d.Effects), 10), "×"...)
		}
		if d.Poison {
			b = append(b, " · raises KeyError"...)
		} else {
			b = append(strconv.AppendUint(append(b, " · "...), uint64(d.Receives), 10), "× recv"...)
		}
		rows = append(rows, engine.PaneRow{Msg: d.Msg, Text: string(b), Bar: -1, Tone: tone})
	}
	return engine.Pane{Title: title, Rows: rows}
}

// inboxPane is the customer's side: the selected customer's confirmations
// with their times, every copy after the first marked; then every
// customer's latest emails. Its rows select nothing. With nobody selected
// and no email sent it is blank.
func inboxPane(w *engine.World, c engine.Cursor) engine.Pane {
	label := "nobody selected"
	if c.Sel >= 0 {
		label = w.MsgName(c.Sel)
	}
	title := "Inbox: " + label
	email := func(e engine.Entry) engine.PaneRow {
		s := fmt.Sprintf("%s %s", e.Event.T.Clock(), w.MsgName(e.Event.Msg)) // one width: the column holds still
		if e.Event.Copy() > 1 {
			return engine.PaneRow{Msg: -1, Text: fmt.Sprintf("%s COPY %d", s, e.Event.Copy()), Bar: -1, Tone: engine.ToneBad}
		}
		return engine.PaneRow{Msg: -1, Text: s, Bar: -1}
	}
	var rows []engine.PaneRow
	for _, e := range c.Inbox {
		rows = append(rows, email(e))
	}
	remark := func(tone engine.Tone, s string) {
		rows = append(rows, engine.PaneRow{Msg: -1, Text: s, Bar: -1, Tone: tone})
	}
	switch {
	case c.Sel < 0:
	case int(c.Sel) >= w.Published():
		remark(engine.ToneDim, "not ordered yet")
	case len(c.Inbox) == 0:
		remark(engine.ToneDim, "no email yet")
	case len(c.Inbox) > 1:
		remark(engine.ToneBad, fmt.Sprintf("%d identical emails, one order", len(c.Inbox)))
	}
	if len(c.Effects) > 0 {
		remark(engine.ToneNote, "── all customers, newest first")
		for _, e := range c.Effects {
			rows = append(rows, email(e))
		}
	}
	if len(rows) == 0 {
		remark(engine.ToneNote, "")
	}
	return engine.Pane{Title: title, Rows: rows}
}

// pad pads b[from:] with spaces to width runes, as %-*s does.
func pad(b []byte, from, width int) []byte {
	for n := utf8.RuneCount(b[from:]); n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

// Legend says what the queue's panes abbreviate.
func (q *Family) Legend() []engine.Term { return legend }

var legend = []engine.Term{
	{Short: "busy N/M", Means: "workers running a handler, of all the workers (the status line)"},
	{Short: "age", Means: "time since the order was published"},
	{Short: "N× recv", Means: "times the queue has handed the message to a worker"},
	{Short: "+N delayed · delay", Means: "handed back to wait: the time left before it is visible again"},
	{Short: "A1@A #N", Means: "worker A1 on box A holds the lease of the message's Nth delivery; the bar is the lease's time left"},
	{Short: "SUPERSEDED by X", Means: "its lease passed to worker X while this one still works on it"},
	{Short: "past its lease", Means: "this worker still works on it, its lease ended, and no worker holds it now"},
	{Short: "WEDGED", Means: "the worker's call never returns"},
	{Short: "done N×", Means: "a dead letter's work (its email) was done N times before the queue gave up on it"},
	{Short: "raises KeyError", Means: "a poison message: the new handler fails on its old format every time"},
	{Short: "COPY N", Means: "the Nth identical email for one order"},
}
