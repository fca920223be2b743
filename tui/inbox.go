package tui

import (
	"fmt"

	"inflight/engine"
)

// inboxPane is the customer's side: the selected customer's confirmations
// with their times, every copy after the first marked; then every
// customer's latest emails.
func (v paneView) inboxPane(w int) (title string, lines []string) {
	wd := v.w
	label := "nobody selected"
	if v.sel >= 0 {
		label = wd.MsgName(v.sel)
	}
	title = "Inbox: " + label
	email := func(e engine.Entry) string {
		s := fmt.Sprintf("%s %s", e.Event.T.Short(), wd.MsgName(e.Event.Msg))
		if e.Event.Aux > 1 {
			return v.st.Bad.Render(fmt.Sprintf("%s COPY %d", s, e.Event.Aux))
		}
		return s
	}
	for _, e := range v.snap.inbox {
		lines = append(lines, " "+email(e))
	}
	switch {
	case v.sel < 0:
	case int(v.sel) >= wd.Published():
		lines = append(lines, v.st.Dim.Render(" not ordered yet"))
	case len(v.snap.inbox) == 0:
		lines = append(lines, v.st.Dim.Render(" no email yet"))
	case len(v.snap.inbox) > 1:
		lines = append(lines, v.st.Bad.Render(fmt.Sprintf(" %d identical emails, one order", len(v.snap.inbox))))
	}
	if len(v.snap.effects) > 0 {
		lines = append(lines, v.st.Dim.Render("── all customers, newest first"))
		for _, e := range v.snap.effects {
			lines = append(lines, " "+email(e))
		}
	}
	return title, lines
}
