package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// branchKeys are the branch list's keys: a scroll list's, and delete.
type branchKeys struct {
	scrollKeyMap
	Delete key.Binding
}

// ShortHelp is the list's keys in one line.
func (k branchKeys) ShortHelp() []key.Binding {
	return append(k.scrollKeyMap.ShortHelp(), k.Delete)
}

// FullHelp is the list's keys in columns.
func (k branchKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func branchKeyMap() branchKeys {
	return branchKeys{scrollKeyMap: scrollKeyMap{
		Up:     binding([]string{"up", "k"}, "↑/k", "previous branch"),
		Down:   binding([]string{"down", "j", "tab"}, "↓/j", "next branch"),
		Choose: binding([]string{"enter"}, "enter", "switch to it"),
		Close:  binding([]string{"esc", "b", "q"}, "esc", "close"),
	}, Delete: binding([]string{"d", "delete"}, "d", "delete it")}
}

// branchList picks a branch to switch to. The root switches when done is
// submitted.
type branchList struct {
	common
	keys     branchKeys
	row      int
	del      bool // done submitted asks to delete the row, not switch
	branches []*engine.Branch
	current  *engine.Branch
	done     outcome
}

// newBranchList lists x's branches with the cursor's own selected.
func newBranchList(c common, x *engine.Explorer) branchList {
	l := branchList{common: c, keys: branchKeyMap(), branches: x.Branches(), current: x.Branch()}
	for i, b := range l.branches {
		if b == l.current {
			l.row = i
		}
	}
	return l
}

// Update moves the row; enter asks the root to switch, esc to close.
func (l branchList) Update(msg tea.Msg) (branchList, tea.Cmd) {
	l.done, l.del = stay, false
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return l, nil
	}
	l.row = max(0, min(l.row, len(l.branches)-1))
	switch {
	case key.Matches(k, l.keys.Close):
		l.done = closed
	case key.Matches(k, l.keys.Up):
		l.row = max(0, l.row-1)
	case key.Matches(k, l.keys.Down):
		l.row = min(len(l.branches)-1, l.row+1)
	case key.Matches(k, l.keys.Choose):
		l.done = submitted
	case key.Matches(k, l.keys.Delete):
		l.done, l.del = submitted, true
	}
	return l, nil
}

// onKey switches to the branch chosen (a follower choosing one of its own
// branches detaches) or deletes it, the list staying open on the rest.
func (l *branchList) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	cmd := l.answer(m, k)
	if m.follower.on && l.done == submitted && !l.del {
		m.flash = m.follower.detach()
	}
	return cmd
}

func (l *branchList) answer(m *Model, k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	*l, cmd = l.Update(k)
	switch l.done {
	case closed:
		m.state = stateMain
	case submitted:
		if l.del { // the list stays open on the rest
			b, current, err := l.remove(m.x)
			switch {
			case err != nil:
				m.flash = err.Error()
			case b != nil:
				if current {
					m.at = m.x.World().Now
					m.exercise = nil
				}
				m.flash = "deleted branch " + b.Name
			}
			return nil
		}
		m.state = stateMain
		// by place: a job since the list opened may have cloned them
		if bs := m.x.Branches(); l.row < len(bs) && bs[l.row] != m.x.Branch() {
			return switchMove(m.x, bs[l.row], m.at).run(m) // a job: it pauses
		}
	}
	return cmd
}

// remove deletes the row's branch from x, its memory given back, and
// lists the rest; current says the cursor was on it.
func (l *branchList) remove(x *engine.Explorer) (b *engine.Branch, current bool, err error) {
	bs := x.Branches()
	row := l.row
	if row < 0 || row >= len(bs) {
		return nil, false, nil
	}
	b, current = bs[row], x.Branch() == bs[row]
	if err := x.DeleteBranch(b); err != nil {
		return nil, false, err
	}
	*l = newBranchList(l.common, x)
	l.row = min(row, len(l.branches)-1)
	return b, current, nil
}

// View lists the branches, two lines each, keeping the row in view.
func (l branchList) View() string {
	st := l.st
	out := []string{st.PaneTitle.Render("Branches") + "  enter switches (same clock) · d deletes · esc closes", ""}
	for i, b := range l.branches {
		mark := "  "
		if i == l.row {
			mark = st.Cursor.Render("▶ ")
		}
		here := ""
		if b == l.current {
			here = st.Badge.Render(" you are here ")
		}
		line := mark + st.Branch.Render(branchPath(b)) + " " + here
		out = append(out, line)
		if b.Parent != nil {
			out = append(out, st.Dim.Render(fmt.Sprintf("     forked from %s at event %d (%s): %s", b.Parent.Name, b.ForkPos, b.ForkAt.Short(), strings.Join(b.Words(), "; "))))
		} else {
			out = append(out, st.Dim.Render("     the lesson's run"))
		}
	}
	return window(out, l.row*2+2, l.height)
}

// window shows h of lines, keeping line focus in view.
func window(lines []string, focus, h int) string {
	if len(lines) > h && h > 0 {
		from := max(0, min(focus-h/2, len(lines)-h))
		lines = lines[from : from+h]
	}
	return strings.Join(lines, "\n")
}
