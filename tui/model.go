package tui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// Model is the explorer's root model: one per session.
type Model struct {
	x      *engine.Explorer
	r      *lipgloss.Renderer
	width  int
	height int
}

func newModel(x *engine.Explorer, r *lipgloss.Renderer, o Options) Model {
	return Model{x: x, r: r}
}

// Init starts nothing until the first window size arrives.
func (m Model) Init() tea.Cmd { return nil }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		if msg.String() == "q" || msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
	}
	return m, nil
}

// View draws the explorer.
func (m Model) View() string { return m.x.Spec.Title + " " + m.x.World().Now.Short() }
