package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// An explorerJob is engine work a key asks for, described rather than
// done: a move of the cursor (a far seek plays events that are not known
// yet), a comparison, a message's story. The main screen's keys, the mouse
// and the screens build one, and it runs as a job on a clone of the
// explorer. Work that cannot be done is news instead.
type explorerJob struct {
	label string // for the progress line
	total int64  // the events it is expected to play, 0 unknown
	seek  func(x *engine.Explorer)
	apply func(m *Model) // what it leaves on screen once swapped in
	news  string         // set instead of seek: why there is no such work
	// work that the engine may refuse (a fork) sets try instead of seek,
	// and fail says so on screen
	try  func(x *engine.Explorer) error
	fail func(m *Model, err error)
	// read marks work that only reads (a comparison, a story): its clone
	// is dropped at the end, never swapped in, so that reading cannot
	// change the branches, the cursor or anything else of the explorer's
	read bool
}

// run runs mv as the model's job, or says why there is none.
func (mv explorerJob) run(m *Model) tea.Cmd {
	if mv.seek == nil && mv.try == nil {
		m.flash = mv.news
		return nil
	}
	return m.startJob(mv.label, mv.total, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		if mv.try != nil {
			if err := mv.try(x); err != nil {
				return nil, err
			}
			return x, nil
		}
		mv.seek(x)
		if mv.read {
			return nil, nil
		}
		return x, nil
	}, mv.apply, mv.fail)
}

// stepBy moves x's cursor n events (not a job: a step is small) and the
// clock *at to the last event's moment, and says why it did not.
func stepBy(x *engine.Explorer, n int64, at *engine.Time) (news string) {
	if n < 0 && x.Pos() == 0 {
		return "already at the first event"
	}
	if err := x.Run(nil, func() { x.Step(n) }); err != nil {
		news = err.Error()
	}
	*at = x.World().Now
	return news
}

// tickMove moves the clock at by d of simulated time, never before the
// incident's start: forward, everything up to and at the new moment has
// happened; back, the same for the earlier one.
func tickMove(spec *engine.Spec, at engine.Time, d engine.Duration) explorerJob {
	t := max(at+d, spec.Start)
	return explorerJob{label: "seeking to " + t.Short(), seek: func(x *engine.Explorer) { x.SeekTimeEnd(t) }, apply: func(m *Model) {
		m.at = clampToEnd(m.x, t)
	}}
}

// seekMove shows the moment t, nothing at t happened yet, with news.
func seekMove(t engine.Time, news string) explorerJob {
	return explorerJob{label: "seeking to " + t.Short(), seek: func(x *engine.Explorer) { x.SeekTime(t) }, apply: func(m *Model) {
		m.at = max(t, m.x.World().Now)
		m.flash = news
	}}
}

// decisionMove moves just past the next (or previous) decision.
func decisionMove(next bool) explorerJob {
	var e engine.Entry
	var ok bool
	label := "finding the previous decision"
	if next {
		label = "finding the next decision"
	}
	return explorerJob{label: label, seek: func(x *engine.Explorer) {
		if next {
			e, ok = x.NextDecision()
		} else {
			e, ok = x.PrevDecision()
		}
	}, apply: func(m *Model) {
		if !ok {
			m.flash = "no more decisions that way"
			return
		}
		m.at = m.x.World().Now
		m.stepped = markOf(m.x)
		m.flash = "decision: " + e.DecText
	}}
}

// bookmarkMove moves from the clock at to spec's next (or previous) beat
// of the lesson, with everything at its moment already happened.
func bookmarkMove(spec *engine.Spec, at engine.Time, next bool) explorerJob {
	bms := spec.Bookmarks
	if len(bms) == 0 {
		return explorerJob{news: "this incident has no bookmarks"}
	}
	idx := -1
	if next {
		for i, b := range bms {
			if b.At > at {
				idx = i
				break
			}
		}
	} else {
		for i := len(bms) - 1; i >= 0; i-- {
			if bms[i].At < at {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		return explorerJob{news: "no more bookmarks that way"}
	}
	bm := bms[idx]
	return explorerJob{label: "seeking to " + bm.At.Short(), seek: func(x *engine.Explorer) { x.SeekBookmark(bm) }, apply: func(m *Model) {
		m.at = clampToEnd(m.x, bm.At)
		m.flash = ""
	}}
}

// clampToEnd is the clock to show for the moment t once x's cursor has
// moved there: t, or the cursor's own moment when the branch ends before
// t (a file loaded without validate's run check may hold a bookmark
// there), so that no clock past the end is shown or shared.
func clampToEnd(x *engine.Explorer, t engine.Time) engine.Time {
	w := x.World()
	if t > w.Now && x.AtEnd() && t > w.Stats.LastEvent {
		return w.Now
	}
	return max(t, w.Now)
}

// endMove plays x's branch to its end and moves there: a big branch is
// millions of events.
func endMove(x *engine.Explorer) explorerJob {
	return explorerJob{label: "playing to the end", total: x.EstimateLen(x.Branch()), seek: func(x *engine.Explorer) { x.End() }, apply: func(m *Model) {
		m.at = m.x.World().Now
		m.flash = "" // a cancelled G's news is old
	}}
}

// currentBookmark is spec's last bookmark at or before the moment at.
func currentBookmark(spec *engine.Spec, at engine.Time) (engine.Bookmark, bool) {
	var out engine.Bookmark
	ok := false
	for _, b := range spec.Bookmarks {
		if b.At <= at {
			out, ok = b, true
		}
	}
	return out, ok
}

// nextBranchMove switches from the clock at to x's next branch in
// creation order.
func nextBranchMove(x *engine.Explorer, at engine.Time) explorerJob {
	bs := x.Branches()
	if len(bs) < 2 {
		return explorerJob{news: "only one branch: f forks one here, e opens the exercises"}
	}
	i := branchIndex(x, x.Branch())
	return switchMove(x, bs[(i+1)%len(bs)], at)
}

// switchMove moves the cursor onto x's branch b at the same moment at.
func switchMove(x *engine.Explorer, b *engine.Branch, at engine.Time) explorerJob {
	i := branchIndex(x, b)
	return explorerJob{label: "switching to " + b.Name, seek: func(x *engine.Explorer) {
		x.Switch(x.Branches()[i])
		x.SeekTimeEnd(at)
	}, apply: func(m *Model) {
		m.at = max(at, m.x.World().Now)
		m.exercise = nil
		m.flash = "on branch " + branchPath(m.x.Branch())
	}}
}

// branchIndex is b's place in x's branches: a job's clone has branches of
// its own, found by that place.
func branchIndex(x *engine.Explorer, b *engine.Branch) int {
	for i, c := range x.Branches() {
		if c == b {
			return i
		}
	}
	return 0
}

// branchPath is "main ▸ vt60 @19:52:00".
func branchPath(b *engine.Branch) string {
	s := ""
	for i, c := range b.Path() {
		if i > 0 {
			s += " ▸ "
		}
		s += c.Name
		if i > 0 && !containsAt(c.Name) {
			s += " @" + c.ForkAt.Short()
		}
	}
	return s
}

func containsAt(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			return true
		}
	}
	return false
}

// nextSelectable is the message d places from sel among the messages
// the panes show (ids), wrapping; from none, the first or the last.
func nextSelectable(ids []int32, sel int32, d int) (int32, bool) {
	if len(ids) == 0 {
		return -1, false
	}
	i := -1
	for j, id := range ids {
		if id == sel {
			i = j
		}
	}
	switch {
	case i < 0 && d > 0:
		i = 0
	case i < 0:
		i = len(ids) - 1
	default:
		i = (i + d + len(ids)) % len(ids)
	}
	return ids[i], true
}

// setSel selects message id: the inbox and life story follow it.
func (s *mainScreen) setSel(m *Model, id int32) {
	if id == m.sel {
		return
	}
	m.sel = id
	m.snap.noteSel(m.x, id)
	m.snap.readInbox(m.x, id)
	m.flash = fmt.Sprintf("selected %s: enter tells its life story", m.x.World().MsgName(id))
}
