package fifowindow

import (
	"fmt"

	"inflight/engine"
	"inflight/engine/fifo"
)

// Panes implements engine.Family in SQS FIFO's terms: the message group
// and the deduplication ids the broker remembers, with their expiry.
func (f *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := []engine.Pane{
		{Title: "orders.fifo: groups · dedup ids"},
		{Title: "in flight (group blocked)"},
		{Title: "dead letter queue"},
		{Title: "customer's inbox"},
	}
	if f.Q == nil {
		return p
	}
	now := int64(w.Now)
	queued, inflight := 0, 0
	for _, m := range f.Q.Messages() {
		if m.State != fifo.Queued {
			continue
		}
		if m.ReceiveCount > 0 && now < m.VisibleAt {
			inflight++
			left := float64(m.VisibleAt-now) / float64(f.Q.Config().VisibilityTimeout)
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: f.Msg, Bar: left,
				Text: fmt.Sprintf("%s  lease until %s · group %s · receive %d", m.ID, engine.Time(m.VisibleAt).Short(), m.Group, m.ReceiveCount)})
		} else {
			queued++
		}
	}
	p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: f.Msg, Bar: -1,
		Text: fmt.Sprintf("group %s  %d waiting · %d in flight", Group, queued, inflight)})
	for _, m := range f.Memory {
		row := engine.PaneRow{Msg: f.Msg, Bar: -1}
		if w.Now < m.Until {
			row.Bar = float64(m.Until-w.Now) / float64(m.Until-m.Accepted)
			row.Text = fmt.Sprintf("id %s  remembered until %s (from %s)", m.ID, m.Until.Short(), m.Accepted.Short())
		} else {
			row.Text = fmt.Sprintf("id %s  forgotten at %s (from %s)", m.ID, m.Until.Short(), m.Accepted.Short())
			row.Mark = "FORGOTTEN"
		}
		p[0].Rows = append(p[0].Rows, row)
	}
	for i, t := range f.Emails {
		row := engine.PaneRow{Msg: f.Msg, Bar: -1, Text: fmt.Sprintf("%s  order 0 confirmed", t.Clock())}
		if i > 0 {
			row.Mark = fmt.Sprintf("COPY %d", i+1)
		}
		p[3].Rows = append(p[3].Rows, row)
	}
	return p
}

// Legend says what SQS FIFO's panes abbreviate.
func (f *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "group", Means: "the message group: one message of it in flight at a time"},
		{Short: "dedup id", Means: "the deduplication id: a send with a remembered one is dropped"},
		{Short: "receive N", Means: "the message's Nth receive"},
		{Short: "FORGOTTEN", Means: "the five-minute memory of the dedup id ended"},
		{Short: "COPY N", Means: "the Nth identical email for one order"},
	}
}
