package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// viewCode shows the share code of this moment and how to open it.
func (m Model) viewCode(r rect) string {
	code := m.x.Code().String()
	st := m.st
	out := []string{
		st.PaneTitle.Render("Share this moment"), "",
		"The code names the incident, the seed, every fork on this branch and the cursor:", "",
		"  " + st.Clock.Render(ansi.Hardwrap(code, max(10, r.w-4), false)), "",
		"Anyone can open exactly this moment with:", "",
		"  inflight open '" + code + "'", "",
		st.Dim.Render("A code made by another engine version says so instead of showing a different run."),
		"", st.Dim.Render("esc or y closes"),
	}
	return strings.Join(out, "\n")
}
