package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// branchList picks a branch to switch to.
type branchList struct{ row int }

func (m *Model) openBranches() {
	m.branches.row = 0
	for i, b := range m.x.Branches() {
		if b == m.x.Branch() {
			m.branches.row = i
		}
	}
	m.state = stateBranches
}

func (m *Model) updateBranches(k tea.KeyMsg) tea.Cmd {
	bs := m.x.Branches()
	m.branches.row = max(0, min(m.branches.row, len(bs)-1))
	switch k.String() {
	case "esc", "b", "q":
		m.state = stateMain
	case "up", "k":
		m.branches.row = max(0, m.branches.row-1)
	case "down", "j", "tab":
		m.branches.row = min(len(bs)-1, m.branches.row+1)
	case "enter":
		m.state = stateMain
		if b := bs[m.branches.row]; b != m.x.Branch() {
			return m.switchTo(b)
		}
	}
	return nil
}

func (m Model) viewBranches(r rect) string {
	st := m.st
	out := []string{st.PaneTitle.Render("Branches") + "  enter switches (same clock) · esc closes", ""}
	for i, b := range m.x.Branches() {
		mark := "  "
		if i == m.branches.row {
			mark = st.Cursor.Render("▶ ")
		}
		here := ""
		if b == m.x.Branch() {
			here = st.Badge.Render(" you are here ")
		}
		line := mark + st.Branch.Render(branchPath(b)) + " " + here
		out = append(out, line)
		if b.Parent != nil {
			var what []string
			for _, s := range b.Changes {
				what = append(what, s.Knob+"="+s.Value)
			}
			if b.Override != nil {
				what = append(what, fmt.Sprintf("decision %d forced to %d", b.Override.Index, b.Override.Value))
			}
			out = append(out, st.Dim.Render(fmt.Sprintf("     forked from %s at event %d (%s): %s", b.Parent.Name, b.ForkPos, b.ForkAt.Short(), strings.Join(what, ", "))))
		} else {
			out = append(out, st.Dim.Render("     the lesson's run"))
		}
	}
	return window(out, m.branches.row*2+2, r.h)
}

// window shows h of lines, keeping line focus in view.
func window(lines []string, focus, h int) string {
	if len(lines) > h && h > 0 {
		from := max(0, min(focus-h/2, len(lines)-h))
		lines = lines[from : from+h]
	}
	return strings.Join(lines, "\n")
}
