package ordering

import (
	"fmt"
	"strings"

	"inflight/engine"
	"inflight/engine/kafka"
)

// short names a member in a pane: "fulfilment-2" → "c2".
func short(member string) string {
	if i := strings.LastIndexByte(member, '-'); i >= 0 {
		return "c" + member[i+1:]
	}
	return member
}

// maxRows bounds a pane's rows; the rest are counted in a last row.
const maxRows = 200

// Panes implements engine.Family in Kafka's terms.
func (f *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := []engine.Pane{
		{Title: Topic + ": partitions"},
		{Title: "handlers (c consumer/t thread)"},
		{Title: "rows behind their last event"},
		{Title: "orders table"},
	}
	for part := 0; part < f.C.Partitions(Topic); part++ {
		tp := kafka.TP{Topic: Topic, Partition: part}
		com, ok := f.C.Committed(Group, tp)
		cs := "none"
		if ok {
			cs = fmt.Sprint(com)
		}
		owner := f.C.Owner(Group, tp)
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: -1, Bar: -1,
			Text: fmt.Sprintf("p%d  LEO %d · committed %s · lag %d · %s", part, f.C.LogEndOffset(tp), cs, f.C.Lag(Group, tp), short(owner))})
	}
	for i := range f.Cons {
		c := &f.Cons[i]
		for th, t := range c.Threads {
			if !t.Busy {
				continue
			}
			id := msgOf(t.Rec.Record)
			row := engine.PaneRow{Msg: id, Bar: -1, Text: fmt.Sprintf("c%d/t%d  %s · p%d@%d", i+1, th+1, f.ev(id), t.Rec.TP.Partition, t.Rec.Offset)}
			if t.Waiting {
				row.Mark = "RETRY"
			}
			p[1].Rows = append(p[1].Rows, row)
		}
		if len(c.Buf) > 0 {
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("c%d  %d fetched, waiting for a thread", i+1, len(c.Buf))})
		}
		// only an operator's action leaves a consumer stopping or without
		// a partition
		switch {
		case c.Gone:
		case c.Leaving:
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Bar: -1, Mark: "STOPPING", Text: fmt.Sprintf("c%d  stopped: finishing what it holds, then it commits and leaves", i+1)})
		case len(f.C.Assignment(Group, memberID(i))) == 0:
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Bar: -1, Mark: "IDLE", Text: fmt.Sprintf("c%d  no partition: idle (%d consumers, %d partitions)", i+1, f.active(), f.C.Partitions(Topic))})
		}
	}
	behind := 0
	for o := range f.Status {
		if s, seen := f.Status[o], f.Seen[o]; seen > s {
			if len(p[2].Rows) >= maxRows {
				behind++
				continue
			}
			p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: -1, Bar: -1, Mark: "BEHIND",
				Text: fmt.Sprintf("order %d  row %s, saw %s", o, statuses[s], statuses[seen])})
		}
	}
	if behind > 0 {
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("… and %d more", behind)})
	}
	// the table's newest orders first
	rows := 0
	for o := len(f.Status) - 1; o >= 0; o-- {
		s, seen := f.Status[o], f.Seen[o]
		if seen == 0 {
			continue
		}
		rows++
		if len(p[3].Rows) >= maxRows {
			continue
		}
		row := engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("order %d  %s (v%d)", o, statuses[s], s)}
		if seen > s {
			row.Mark = "WRONG"
		}
		p[3].Rows = append(p[3].Rows, row)
	}
	if n := rows - len(p[3].Rows); n > 0 {
		p[3].Rows = append(p[3].Rows, engine.PaneRow{Msg: -1, Bar: -1, Text: fmt.Sprintf("… and %d older orders", n)})
	}
	return p
}

// Legend says what the partitions' and handlers' panes abbreviate.
func (f *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "p0", Means: "partition 0 of the topic"},
		{Short: "p0@12", Means: "partition 0, offset 12: one record"},
		{Short: "LEO", Means: "log end offset: the offset the next record gets"},
		{Short: "committed", Means: "the group's committed offset: where a restarted consumer resumes"},
		{Short: "lag", Means: "LEO minus committed: records not yet committed"},
		{Short: "c1 · c1/t2", Means: "consumer 1 · its handler thread 2"},
		{Short: "v3", Means: "the order's status version: each event moves it one on"},
		{Short: "RETRY", Means: "the handler waits to try the write again"},
		{Short: "IDLE", Means: "a consumer beyond the partition count: the group gives it no partition"},
		{Short: "STOPPING", Means: "an operator stopped the consumer: it finishes its records, commits and leaves"},
		{Short: "BEHIND", Means: "the row's status is older than the last event seen for it"},
		{Short: "WRONG", Means: "the table holds an older status than the order reached"},
	}
}
