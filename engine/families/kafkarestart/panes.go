package kafkarestart

import (
	"fmt"
	"slices"

	"inflight/engine"
	"inflight/engine/kafka"
)

// maxRows bounds a pane's rows; the rest are counted in a last row.
const maxRows = 200

// Panes implements engine.Family in Kafka's terms: partitions with their
// log end, last stable and committed offsets; the uncommitted range; the
// aborted records read_committed skips; the customer's emails.
func (f *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := []engine.Pane{
		{Title: "orders: partitions"},
		{Title: "uncommitted"},
		{Title: "aborted: read_committed skips"},
		{Title: "emails sent"},
	}
	if f.C == nil {
		return p
	}
	aborted := 0
	for part := 0; part < Partitions; part++ {
		tp := kafka.TP{Topic: Topic, Partition: part}
		leo, lso := f.C.LogEndOffset(tp), f.C.LastStableOffset(tp)
		com, ok := f.C.Committed(Group, tp)
		cs := "none"
		if ok {
			cs = fmt.Sprint(com)
		}
		owner := f.C.Owner(Group, tp)
		if slices.Contains(f.Deaths, owner) {
			owner += " (dead: keeps it until its session times out)"
		}
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: -1, Bar: -1,
			Text: fmt.Sprintf("p%d  LEO %d · LSO %d · committed %s · lag %d · %s", part, leo, lso, cs, f.C.Lag(Group, tp), owner)})
		if f.Cons != nil {
			if pos, ok := f.Cons.Position(tp); ok && pos > com {
				p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Bar: -1,
					Text: fmt.Sprintf("p%d  %d–%d read, not committed (%s)", part, com, pos-1, f.memberID(f.Member))})
			}
		}
		if lso < leo {
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Bar: -1, Mark: "OPEN",
				Text: fmt.Sprintf("p%d  transaction open from %d: read_committed stops there", part, lso)})
		}
		log := f.C.Log(tp)
		for i, ab := range abortedFlags(log) {
			if !ab {
				continue
			}
			if len(p[2].Rows) >= maxRows {
				aborted++
				continue
			}
			e := &log[i]
			p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: order(e.Record), Bar: -1, Mark: "ABORTED",
				Text: fmt.Sprintf("p%d@%d  %s · pid %d epoch %d", part, e.Offset, w.MsgName(order(e.Record)), e.ProducerID, e.Epoch)})
		}
	}
	if f.Handling {
		p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: order(f.Cur.Record), Bar: -1,
			Text: fmt.Sprintf("%s  %s (p%d@%d): email, then commit", f.memberID(f.Member), w.MsgName(order(f.Cur.Record)), f.Cur.TP.Partition, f.Cur.Offset)})
	}
	if aborted > 0 {
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("… and %d more", aborted)})
	}
	// the newest emails first
	for i := len(f.Emails) - 1; i >= 0 && len(p[3].Rows) < maxRows; i-- {
		m := f.Emails[i]
		row := engine.PaneRow{Msg: m.Order, Bar: -1, Text: fmt.Sprintf("%s  %s confirmed (p%d@%d)", m.At.Clock(), w.MsgName(m.Order), m.TP.Partition, m.Off)}
		if m.Copy > 1 {
			row.Mark = fmt.Sprintf("COPY %d", m.Copy)
		}
		p[3].Rows = append(p[3].Rows, row)
	}
	if n := len(f.Emails) - len(p[3].Rows); n > 0 {
		p[3].Rows = append(p[3].Rows, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("… and %d earlier", n)})
	}
	return p
}

// reread reports whether the latest email for order id (at offset off)
// repeats an earlier email from the same record.
func (f *Family) reread(id int32, off int64) bool {
	n := len(f.Emails)
	if n == 0 {
		return false
	}
	last := f.Emails[n-1]
	for _, m := range f.Emails[:n-1] {
		if m.Order == id && m.TP == last.TP && m.Off == off {
			return true
		}
	}
	return false
}

// Legend says what Kafka's panes abbreviate.
func (f *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "p0", Means: "partition 0 of the topic"},
		{Short: "p0@12", Means: "partition 0, offset 12: one record"},
		{Short: "LEO", Means: "log end offset: the offset the next record gets"},
		{Short: "LSO", Means: "last stable offset: read_committed reads below it; an open transaction holds it back"},
		{Short: "committed", Means: "the group's committed offset: where a restarted consumer resumes"},
		{Short: "lag", Means: "LEO minus committed: records not yet committed"},
		{Short: "pid · epoch", Means: "the producer's id and epoch: a new epoch fences the old producer"},
		{Short: "OPEN", Means: "a transaction neither committed nor aborted"},
		{Short: "ABORTED", Means: "written by an aborted transaction: read_committed skips it"},
		{Short: "COPY N", Means: "the Nth identical email for one order"},
	}
}
