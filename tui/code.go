package tui

import (
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// codeView shows the share code of this moment and how to open it.
type codeView struct {
	common
	keys closeKeyMap
	code string // the cursor's share code, set by the root as it moves
	done outcome
}

func (m *Model) openCode() {
	m.code = codeView{common: m.common, keys: closeKeyMap{Close: binding([]string{"esc", "enter", "q", "y"}, "esc", "close")}, code: m.shareCode()}
	m.state = stateCode
}

// shareCode is the code of what is on screen: the branch path with the
// forks' names, the cursor's event and, when they are not what opening
// the event shows anyway, the displayed clock and the selected message.
func (m *Model) shareCode() string {
	c := m.momentCode(false)
	return c.String()
}

// momentCode is the code of the moment on screen: its clock where it is
// not the event's (always, with at), its selection where it is not the
// featured message.
func (m *Model) momentCode(at bool) engine.Code {
	c := m.x.Code()
	if at || m.at != m.x.World().Now {
		c.At, c.HasAt = m.at, true
	}
	if m.sel != m.x.Spec.Featured {
		c.Sel, c.HasSel = m.sel, true
	}
	return c
}

// copyCmd puts s on the terminal's clipboard through OSC 52, which
// terminals honour over SSH too; one write, so that it never lands inside
// a frame the renderer writes.
func copyCmd(r *lipgloss.Renderer, s string) tea.Cmd {
	if r == nil || r.Output() == nil {
		return nil
	}
	out := r.Output()
	seq := ansi.SetSystemClipboard(s)
	return func() tea.Msg {
		_, _ = io.WriteString(out, seq)
		return nil
	}
}

// Update closes on its key.
func (c codeView) Update(msg tea.Msg) (codeView, tea.Cmd) {
	c.done = stay
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, c.keys.Close) {
		c.done = closed
	}
	return c, nil
}

// View is the code, wrapped to the width, and how to open it: over SSH
// when the explorer runs under serve (attendees have ssh, not inflight).
func (c codeView) View() string {
	code, st := c.code, c.st
	out := []string{
		st.PaneTitle.Render("Share this moment"), "",
		"The code names the incident, the seed, every fork on this branch and its name,",
		"the cursor, the clock on screen and the selected message:", "",
		"  " + st.Clock.Render(ansi.Hardwrap(code, max(10, c.width-4), false)), "",
		"Anyone can open exactly this moment with:", "",
	}
	if c.openVia != "" {
		out = append(out, "  "+c.openVia+" open "+shellQuote(code), "",
			st.Dim.Render("or, with inflight installed: inflight open '<code>'"), "")
	} else {
		out = append(out, "  inflight open "+shellQuote(code), "")
	}
	out = append(out,
		st.Dim.Render("A code made by another engine version says so instead of showing a different run."),
		st.Dim.Render("y also copied it to the clipboard, where the terminal allows it (OSC 52, over SSH too)."),
		"", st.Dim.Render("esc or y closes"),
	)
	return strings.Join(out, "\n")
}

// shellQuote quotes s for a POSIX shell: a fork's name may hold spaces,
// semicolons and quotes, and a code is pasted into a shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
