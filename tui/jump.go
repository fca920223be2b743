package tui

import (
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// jumpInput reads a clock time to jump to.
type jumpInput struct{ input textinput.Model }

func (m *Model) openJump() {
	ti := newInput(m.st, "")
	ti.Prompt = "jump to clock (HH:MM[:SS]), enter goes, esc cancels: "
	ti.Placeholder = m.at.Short()
	ti.Focus()
	m.jump.input = ti
	m.state = stateJump
}

func (m *Model) updateJump(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.state = stateMain
		return nil
	case "enter":
		m.state = stateMain
		t, err := engine.ParseClock(m.jump.input.Value())
		if err != nil {
			m.flash = err.Error()
			return nil
		}
		return m.seekClock(t, "at "+t.Short()+": nothing at this moment has happened yet (l steps into it; f forks from it)")
	}
	var cmd tea.Cmd
	m.jump.input, cmd = m.jump.input.Update(k)
	return cmd
}
