package tui

import (
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"inflight/engine"
)

// asciiRenderer pins the colour profile so goldens hold plain text.
func asciiRenderer() *lipgloss.Renderer {
	return lipgloss.NewRenderer(io.Discard, termenv.WithProfile(termenv.Ascii))
}

func newTest(t testing.TB, o Options, w, h int) Model {
	t.Helper()
	o.Renderer = asciiRenderer()
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	waitChart(m)
	return resize(m, w, h)
}

// waitChart waits for the whole-run chart of the branch on screen.
func waitChart(m Model) {
	if m.charts.cur != nil {
		<-m.charts.cur.ready
	}
}

// chartOf is the whole-run chart the model draws, as far as it is known.
func chartOf(m Model) ([]engine.Sample, engine.Time, bool) {
	c := m.charts.view(m.x)
	return c.samples, c.end, c.done
}

func resize(m Model, w, h int) Model {
	nm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return nm.(Model)
}

// keyMsg turns "l", "space", "enter", "ctrl+c", "shift+right" into a key.
func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "space", " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends keys one by one, running no commands but waiting for any
// job a key starts, as a user who waits for the progress line would.
func press(m Model, keys ...string) Model {
	for _, k := range keys {
		nm, _ := m.Update(keyMsg(k))
		m = settle(nm.(Model))
	}
	return m
}

// settle waits for the running job, if any, and delivers its end.
func settle(m Model) Model {
	for m.jobs.cur != nil {
		<-m.jobs.cur.done
		nm, _ := m.Update(jobDoneMsg{id: m.jobs.cur.id})
		m = nm.(Model)
	}
	waitChart(m)
	return m
}

// typeText sends each rune of s as a key.
func typeText(m Model, s string) Model {
	for _, r := range s {
		nm, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		m = nm.(Model)
	}
	return m
}
