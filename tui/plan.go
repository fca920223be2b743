package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/plan"
	"inflight/stage"
)

// planCursor is the presenter's place in the session's plan (serve
// --plan): which beat the stage is at. The beat's number and title go on
// stage; its notes stay on this screen.
type planCursor struct {
	p   *plan.Plan // nil: no plan, or not the presenter
	cur int        // the beat on stage, -1 before the first
}

// The presenter's beat keys: free on the main view and on the screens
// that take no typing, where a key is never text.
var (
	nextBeatKey = binding([]string{">"}, ">", "next beat")
	prevBeatKey = binding([]string{"<"}, "<", "previous beat")
)

// beatScreens are the screens the beat keys work on: the ones without a
// text input (the fork form, the jump and # prompts, the picker's filter
// and the hunt's list keep > and < for themselves).
var beatScreens = map[state]bool{stateMain: true, stateExercises: true, stateStory: true, stateCompare: true, stateCode: true, stateBranches: true}

// newPlanCursor is a presenter's cursor on plan p, at the beat the stage
// is at when a presenter comes back to it.
func newPlanCursor(o Options) planCursor {
	if o.Plan == nil || !o.Presenter || o.Stage == nil {
		return planCursor{cur: -1}
	}
	c := planCursor{p: o.Plan, cur: -1}
	if st, gen := o.Stage.State(); gen > 0 && st.Beat != nil {
		if i := st.Beat.N - 1; st.Beat.Of == len(o.Plan.Beats) && i >= 0 && i < st.Beat.Of && o.Plan.Beats[i].Title == st.Beat.Title {
			c.cur = i
		}
	}
	return c
}

// stageBeat is the beat as the stage carries it: number and title only.
func (c planCursor) stageBeat() *stage.Beat {
	if c.p == nil || c.cur < 0 || c.cur >= len(c.p.Beats) {
		return nil
	}
	return &stage.Beat{N: c.cur + 1, Of: len(c.p.Beats), Title: c.p.Beats[c.cur].Title}
}

// planKey answers the presenter's beat keys.
func (m *Model) planKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if !m.presenter || m.plan.p == nil || !beatScreens[m.state] {
		return nil, false
	}
	next, prev := key.Matches(k, nextBeatKey), key.Matches(k, prevBeatKey)
	if !next && !prev {
		return nil, false
	}
	i, n := m.plan.cur+1, len(m.plan.p.Beats)
	if prev {
		i = m.plan.cur - 1
	}
	switch {
	case prev && m.plan.cur < 0:
		m.flash = "the plan has not started: > goes to its first beat"
		return nil, true
	case i < 0:
		m.flash = "this is the plan's first beat"
		return nil, true
	case i >= n:
		m.flash = fmt.Sprintf("this is the plan's last beat (%d of %d)", n, n)
		return nil, true
	}
	return m.gotoBeat(i), true
}

// gotoBeat moves the stage to beat i: its incident (the one left is kept,
// with its branches, as i keeps it), its moment on the lesson's run, and
// its question, put to the room or opened to fork. The question of the
// beat left, if still up, is dropped.
func (m *Model) gotoBeat(i int) tea.Cmd {
	b := m.plan.p.Beats[i]
	if q := &m.exercises.q; q.on {
		if q.room {
			m.stage.Poll().Drop(q.seq)
		}
		*q = question{}
		m.exercises.keys = exerciseKeyMap()
	}
	m.state = stateMain
	m.help.ShowAll = false
	m.flash = ""
	if b.Incident != m.x.Spec.ID {
		if err := m.openIncident(b.Incident); err != nil {
			m.flash = fmt.Sprintf("beat %d: %v", i+1, err)
			return nil
		}
	}
	spec := m.x.Spec
	row := -1
	if b.Question != "" {
		row = slices.IndexFunc(spec.Exercises, func(ex engine.Exercise) bool { return ex.Key == b.Question })
	}
	if row >= 0 && b.Asks {
		m.openExercises() // the list the question is asked from, as e, a does
		m.exercises.row = row
		cmd := askQuestion(m, spec.Exercises[row]) // at the question's own moment
		m.onBeatLanded(i)
		return cmd
	}
	return beatMove(spec, b, i, row).run(m)
}

// onBeatLanded makes the running job's end put beat i on stage: the
// room reads the beat's title when the stage is there.
func (m *Model) onBeatLanded(i int) {
	j := m.jobs.cur
	if j == nil {
		m.plan.cur = i
		return
	}
	apply := j.apply
	j.apply = func(m *Model) {
		if apply != nil {
			apply(m)
		}
		m.plan.cur = i
	}
}

// beatMove takes the lesson's run (the first branch) to beat b, the
// plan's i-th, and opens the exercises on row (-1 none).
func beatMove(spec *engine.Spec, b plan.Beat, i, row int) explorerJob {
	var news string
	return explorerJob{label: fmt.Sprintf("going to beat %d", i+1), seek: func(x *engine.Explorer) {
		if root := x.Branches()[0]; x.Branch() != root {
			x.Switch(root)
		}
		switch {
		case b.Bookmark >= 0 && b.Bookmark < len(spec.Bookmarks):
			x.SeekBookmark(spec.Bookmarks[b.Bookmark])
		case b.At.Pos >= 0:
			if x.Goto(b.At.Pos); x.Pos() != b.At.Pos {
				news = fmt.Sprintf("beat %d: #%d is past the run's end (event %d)", i+1, b.At.Pos, x.Pos())
			}
		default:
			x.SeekTime(b.At.At)
		}
	}, apply: func(m *Model) {
		m.exercise = nil
		switch {
		case b.At.Pos >= 0:
			m.stepped = markOf(m.x)
			m.at = m.x.World().Now
			if news == "" {
				m.at = max(b.At.At, m.at)
			}
		default:
			m.at = clampToEnd(m.x, b.At.At)
		}
		m.flash = news
		m.plan.cur = i
		if row >= 0 {
			m.openExercises()
			m.exercises.row = row
		}
	}}
}

// openIncident makes the bundled incident id the explorer's, as the
// picker does: the one left is kept with its branches, one kept before is
// taken back as it was left.
func (m *Model) openIncident(id string) error {
	if k, ok := m.kept[id]; ok {
		m.kept.swap(m, k.x)
		m.sel, m.at = k.sel, max(k.at, m.x.World().Now)
		m.refresh(true)
		return nil
	}
	spec, err := bundledSpec(id)
	if err != nil {
		return err
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		return err
	}
	m.kept.swap(m, x)
	m.at = x.World().Now
	m.refresh(true)
	return nil
}

// planLines are the lines the plan adds above the status line: for the
// presenter, the beat, where it is and the next, then the beat's notes
// (at most a fifth of the screen); for a follower's mirror, the beat's
// title as the stage carries it. w is the width.
func (m *Model) planLines(w int) []string {
	st := m.st
	if m.shownBeat != nil {
		return []string{fitLine(st.PaneTitle.Render(m.shownBeat.String()), w)}
	}
	c := m.plan
	if c.p == nil {
		return nil
	}
	n := len(c.p.Beats)
	if c.cur < 0 {
		first := c.p.Beats[0]
		return []string{fitLine(st.PaneTitle.Render("plan: "+c.p.Title)+st.Dim.Render(fmt.Sprintf(" · %d beats · > goes to beat 1: %s", n, first.Title)), w)}
	}
	b := c.p.Beats[c.cur]
	head := st.PaneTitle.Render(fmt.Sprintf("beat %d/%d · %s", c.cur+1, n, b.Title)) + st.Dim.Render(" · "+b.Incident+", "+b.Where())
	if c.cur+1 < n {
		head += st.Dim.Render(fmt.Sprintf(" · > %s", c.p.Beats[c.cur+1].Title))
	} else {
		head += st.Dim.Render(" · the last beat")
	}
	out := []string{fitLine(head, w)}
	var notes []string
	for _, l := range strings.Split(strings.TrimSpace(b.Notes), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		for _, s := range wrap(l, max(w-4, 20)) {
			notes = append(notes, "  "+s)
		}
	}
	limit := max(1, m.height/5)
	if len(notes) > limit {
		notes = append(notes[:limit-1], "  "+fmt.Sprintf("… %d more lines of notes: a taller terminal shows them", len(notes)-limit+1))
	}
	for _, l := range notes {
		out = append(out, fitLine(st.Words.Render(l), w))
	}
	return out
}

// planKeys are a screen's keys with the beat keys first in the help
// bar (which drops keys from its middle, never the first) and in the
// full help.
type planKeys struct{ help.KeyMap }

func (k planKeys) ShortHelp() []key.Binding {
	return append([]key.Binding{nextBeatKey, prevBeatKey}, k.KeyMap.ShortHelp()...)
}

// FullHelp puts the beat keys in the moves' column (the explorer's
// second, with the bookmarks): a fifth column is cut at 80 columns.
func (k planKeys) FullHelp() [][]key.Binding {
	cols := slices.Clone(k.KeyMap.FullHelp())
	i := min(1, len(cols)-1)
	if i < 0 {
		return [][]key.Binding{{nextBeatKey, prevBeatKey}}
	}
	cols[i] = append(slices.Clone(cols[i]), nextBeatKey, prevBeatKey)
	return cols
}

// withPlanKeys is km with the beat keys, on the screens they work on,
// when the presenter has a plan.
func (m *Model) withPlanKeys(km help.KeyMap) help.KeyMap {
	if m.presenter && m.plan.p != nil && beatScreens[m.state] && !m.exercises.room.view {
		return planKeys{km}
	}
	return km
}

// stageBeatLine is the beat on stage as a follower's question overlay
// shows it under the question: none without a plan's beat.
func (m *Model) stageBeatLine() []string {
	if m.stage == nil || m.presenter {
		return nil
	}
	st, _ := m.stage.State()
	if st.Beat == nil {
		return nil
	}
	return []string{fitLine(m.st.PaneTitle.Render(st.Beat.String()), m.width)}
}
