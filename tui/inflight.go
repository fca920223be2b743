package tui

import (
	"fmt"

	"inflight/engine"
)

// flightPane lists the leases: message, worker and box, a countdown bar to
// the lease's expiry; then the workers still running a handler on a
// message whose lease has already passed to somebody else — superseded.
func (v paneView) flightPane(w int) (title string, lines []string, ids []int32, total int) {
	wd := v.w
	workers := wd.Workers()
	title = fmt.Sprintf("In flight %d", len(v.snap.leased))
	if n := len(v.snap.stale); n > 0 {
		title += fmt.Sprintf(" · %d superseded", n)
	}
	vt := wd.P.VisibilityTimeout
	for _, id := range v.snap.leased {
		mm, _ := wd.Msg(id)
		who := "?"
		if h := int(mm.Holder); h >= 0 && h < len(workers) {
			who = workers[h].Name + "@" + workers[h].Box
		}
		left := mm.Expiry - v.at
		head := fmt.Sprintf("%-8s %-4s #%d ", wd.MsgName(id), who, mm.Receives)
		tail := " " + fmtDur(left)
		bw := max(3, min(w-len(head)-len(tail)-2, 20))
		lines = append(lines, v.mark(id, head+bar(left, max(vt, mm.Expiry-mm.LeaseAt), bw)+tail))
		ids = append(ids, id)
	}
	for _, i := range v.snap.stale {
		wk := workers[i]
		s := fmt.Sprintf("%-8s %s@%s #%d SUPERSEDED, still calling (its lease ended %s)", wd.MsgName(wk.Msg), wk.Name, wk.Box, wk.Delivery, wk.LeaseEnd.Short())
		if wk.Wedged {
			s = fmt.Sprintf("%-8s %s@%s WEDGED: the call never returns", wd.MsgName(wk.Msg), wk.Name, wk.Box)
		}
		lines = append(lines, v.mark(wk.Msg, v.st.Bad.Render(s)))
		ids = append(ids, wk.Msg)
	}
	idle, off := 0, 0
	for _, wk := range workers {
		switch wk.State {
		case engine.WIdle:
			idle++
		case engine.WOff:
			off++
		}
	}
	if len(lines) == 0 {
		msg := fmt.Sprintf("nothing leased · %d of %d workers idle", idle, len(workers))
		if off == len(workers) {
			msg = fmt.Sprintf("nothing leased · %d workers start at %s", off, v.spec.Workers.Start.Short())
		}
		lines = append(lines, v.st.Dim.Render(msg))
		ids = append(ids, -1)
	}
	return title, lines, ids, len(lines)
}
