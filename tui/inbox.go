package tui

import (
	"fmt"

	"inflight/engine"
)

// inboxPane is the customer's side: the selected customer's confirmations
// with their times, every copy after the first marked; then every
// customer's latest emails.
func (m Model) inboxPane(w int) (title string, lines []string) {
	wd := m.x.World()
	label := "nobody selected"
	if m.sel >= 0 {
		label = wd.MsgName(m.sel)
	}
	title = "Inbox: " + label
	email := func(e engine.Entry) string {
		s := fmt.Sprintf("%s %s", e.Event.T.Short(), wd.MsgName(e.Event.Msg))
		if e.Event.Aux > 1 {
			return m.st.Bad.Render(fmt.Sprintf("%s COPY %d", s, e.Event.Aux))
		}
		return s
	}
	for _, e := range m.snap.inbox {
		lines = append(lines, " "+email(e))
	}
	switch {
	case m.sel < 0:
	case int(m.sel) >= wd.Published():
		lines = append(lines, m.st.Dim.Render(" not ordered yet"))
	case len(m.snap.inbox) == 0:
		lines = append(lines, m.st.Dim.Render(" no email yet"))
	case len(m.snap.inbox) > 1:
		lines = append(lines, m.st.Bad.Render(fmt.Sprintf(" %d identical emails, one order", len(m.snap.inbox))))
	}
	if len(m.snap.effects) > 0 {
		lines = append(lines, m.st.Dim.Render("── all customers, newest first"))
		for _, e := range m.snap.effects {
			lines = append(lines, " "+email(e))
		}
	}
	return title, lines
}
