package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// jumpKeyMap is the clock prompt's keys; the input edits with its own.
type jumpKeyMap struct {
	Go     key.Binding
	Cancel key.Binding
}

// ShortHelp is the prompt's keys in one line.
func (k jumpKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Go, k.Cancel} }

// FullHelp is the prompt's keys in columns.
func (k jumpKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// jumpInput reads a clock time to jump to, on the news line. The root
// seeks there when done is submitted.
type jumpInput struct {
	common
	keys  jumpKeyMap
	input textinput.Model
	done  outcome
}

// newJumpInput is the prompt, with the displayed clock as its placeholder.
func newJumpInput(c common, at engine.Time) jumpInput {
	ti := formInput(c.st, "")
	ti.Prompt = "jump to clock (HH:MM[:SS], or a fork's HH:MM:SS #N), enter goes, esc cancels: "
	ti.Placeholder = at.Short()
	ti.Focus()
	return jumpInput{common: c, input: ti, keys: jumpKeyMap{
		Go:     binding([]string{"enter"}, "enter", "jump"),
		Cancel: binding([]string{"esc"}, "esc", "cancel"),
	}}
}

// Update edits the clock; enter asks the root to jump, esc to close.
func (j jumpInput) Update(msg tea.Msg) (jumpInput, tea.Cmd) {
	j.done = stay
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, j.keys.Cancel):
			j.done = closed
			return j, nil
		case key.Matches(k, j.keys.Go):
			j.done = submitted
			return j, nil
		}
	}
	var cmd tea.Cmd
	j.input, cmd = j.input.Update(msg)
	return j, cmd
}

// View is the prompt, one line as wide as the screen.
func (j jumpInput) View() string { return fitLine(j.input.View(), j.width) }

// jumpJob is the move to the clock typed, in spec's incident, or to the
// exact moment a fork's name ends with ("19:52:00 #181").
func jumpJob(spec *engine.Spec, typed string) explorerJob {
	if strings.Contains(typed, "#") {
		return momentJob(spec, typed)
	}
	t, err := engine.ParseClock(typed)
	if err != nil {
		return explorerJob{news: err.Error()}
	}
	if start := spec.Start; t < start {
		return explorerJob{news: "/ " + t.Short() + " is before the incident starts (" + start.Short() + ")"}
	}
	return explorerJob{label: "seeking to " + t.Short(), seek: func(x *engine.Explorer) { x.SeekTime(t) }, apply: func(m *Model) {
		w := m.x.World()
		if m.x.AtEnd() && t > w.Stats.LastEvent {
			// as the CLI's --at refuses it: no moment of this branch is there
			m.at = w.Now
			m.flash = "/ " + t.Short() + " is after the branch ends (" + w.Stats.LastEvent.Short() + "): the cursor is at its end"
			return
		}
		m.at = max(t, w.Now)
		m.flash = "at " + t.Short() + ": nothing at this moment has happened yet (l steps into it; f forks from it)"
	}}
}

// momentJob moves to the moment typed as a fork's name ends: its clock
// and the events behind it, "19:52:00 #181". The cursor stands exactly
// there, so f forks there (as after l).
func momentJob(spec *engine.Spec, typed string) explorerJob {
	mo, err := engine.ParseForkMoment(typed)
	if err != nil {
		return explorerJob{news: "/ " + err.Error()}
	}
	if mo.At < spec.Start {
		return explorerJob{news: "/ " + mo.At.Short() + " is before the incident starts (" + spec.Start.Short() + ")"}
	}
	var news string
	return explorerJob{label: "seeking to " + strings.TrimPrefix(mo.String(), "@"), seek: func(x *engine.Explorer) {
		b := x.Branch()
		x.Goto(mo.Pos)
		switch lo, hi := x.PosAtTime(b, mo.At), x.PosAfterTime(b, mo.At); {
		case x.Pos() != mo.Pos:
			news = fmt.Sprintf("/ #%d: the branch ends at event %d", mo.Pos, x.Pos())
		case mo.Pos < lo || mo.Pos > hi:
			// the count and the clock disagree: go by the count, and say so
			news = fmt.Sprintf("/ %s: #%d is at %s, not %s (the branch's events at %s are #%d to #%d)",
				strings.TrimSpace(typed), mo.Pos, x.World().Now.Short(), mo.At.Short(), mo.At.Short(), lo, hi)
		}
	}, apply: func(m *Model) {
		w := m.x.World()
		m.stepped = markOf(m.x)
		m.at = w.Now
		if news == "" {
			m.at = max(mo.At, w.Now)
			news = "at " + strings.TrimPrefix(mo.String(), "@") + ": after " + fmt.Sprint(mo.Pos) + " events (f forks exactly here)"
		}
		m.flash = news
	}}
}
