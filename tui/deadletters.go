package tui

import "fmt"

// deadPane lists the dead letter queue, newest first: when each message
// moved and why, and how many times its work was done anyway.
func (m Model) deadPane(w, limit int) (title string, lines []string, ids []int32, total int) {
	wd := m.x.World()
	title = fmt.Sprintf("Dead letters %d (work done ×)", wd.DLQLen())
	total = len(m.snap.dead)
	for _, d := range m.snap.dead {
		if len(lines) >= limit {
			break
		}
		why := fmt.Sprintf("%d× recv", d.Receives)
		if d.Poison {
			why = "raises KeyError"
		}
		done := m.st.Warn.Render(fmt.Sprintf("done %d×", d.Effects))
		if d.Effects == 0 {
			done = "work never done"
		}
		lines = append(lines, m.mark(d.Msg, fmt.Sprintf("%-8s %s %s · %s", wd.MsgName(d.Msg), d.At.Short(), done, why)))
		ids = append(ids, d.Msg)
	}
	if total == 0 {
		lines = append(lines, m.st.Dim.Render("empty"))
		ids = append(ids, -1)
		total = 1
	}
	return title, lines, ids, total
}
