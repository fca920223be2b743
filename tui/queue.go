package tui

import (
	"inflight/engine"
)

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
