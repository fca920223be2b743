package tui

import "fmt"

// deadPane lists the dead letter queue, newest first: when each message
// moved and why, and how many times its work was done anyway.
func (v paneView) deadPane(w, limit int) (title string, lines []string, ids []int32, total int) {
	wd := v.w
	title = fmt.Sprintf("Dead letters %d (work done ×)", wd.DLQLen())
	total = len(v.snap.dead)
	for _, d := range v.snap.dead {
		if len(lines) >= limit {
			break
		}
		why := fmt.Sprintf("%d× recv", d.Receives)
		if d.Poison {
			why = "raises KeyError"
		}
		done := v.st.Warn.Render(fmt.Sprintf("done %d×", d.Effects))
		if d.Effects == 0 {
			done = "work never done"
		}
		lines = append(lines, v.mark(d.Msg, fmt.Sprintf("%-8s %s %s · %s", wd.MsgName(d.Msg), d.At.Short(), done, why)))
		ids = append(ids, d.Msg)
	}
	if total == 0 {
		lines = append(lines, v.st.Dim.Render("empty"))
		ids = append(ids, -1)
		total = 1
	}
	return title, lines, ids, total
}
