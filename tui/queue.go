package tui

import (
	"fmt"

	"inflight/engine"
)

// queuePane lists the messages waiting: visible ones in queue order, then
// the ones handed back with a delay. Each row: id, age, deliveries so far,
// remaining delay.
// Only the first limit rows are drawn: the queue may hold millions.
func (v paneView) queuePane(w, limit int) (title string, lines []string, ids []int32, total int) {
	wd := v.w
	title = fmt.Sprintf("Queue %d", wd.QueueLen())
	if n := len(v.snap.delayed); n > 0 {
		title += fmt.Sprintf(" +%d delayed", n)
	}
	row := func(id int32, delayed bool) string {
		mm, _ := wd.Msg(id)
		s := fmt.Sprintf("%-8s age %-6s %d× recv", wd.MsgName(id), fmtDur(v.at-mm.Published), mm.Receives)
		if delayed {
			s += " delay " + fmtDur(mm.Expiry-v.at)
		}
		return v.mark(id, s)
	}
	total = len(v.snap.queue) + len(v.snap.delayed)
	for _, id := range v.snap.queue {
		if len(lines) >= limit {
			break
		}
		lines, ids = append(lines, row(id, false)), append(ids, id)
	}
	for _, id := range v.snap.delayed {
		if len(lines) >= limit {
			break
		}
		lines, ids = append(lines, row(id, true)), append(ids, id)
	}
	if total == 0 {
		lines = append(lines, v.st.Dim.Render("empty"))
		ids = append(ids, -1)
		total = 1
	}
	return title, lines, ids, total
}

// mark draws a row of message id: reversed and with a pointer when it is
// the selected message.
func (v paneView) mark(id int32, s string) string {
	if id == v.sel && id >= 0 {
		return v.st.Selected.Render("›" + s)
	}
	return " " + s
}

// bar is a countdown: filled for the part of total still left.
func bar(left, total engine.Duration, w int) string {
	if w <= 0 {
		return ""
	}
	f := 0
	if total > 0 {
		f = int(int64(max(0, min(left, total))) * int64(w) / int64(total))
	}
	out := make([]rune, 0, w)
	for i := 0; i < w; i++ {
		if i < f {
			out = append(out, '█')
		} else {
			out = append(out, '·')
		}
	}
	return string(out)
}
