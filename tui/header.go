package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// fitHeaderRight is the header's right side (clock, play state, branch,
// badges: right) shortened so that the title beside it reads: whole if it
// can be, else at least headerTitleMin cells (layout.go). The play state goes
// compact first ("⏸ 10×", padded so the header holds still), then a path
// of several forks keeps its last one only; the branch is cut last.
func (v mainView) fitHeaderRight(right []string) string {
	title := lipgloss.Width(v.x.Spec.Title)
	fits := func(keep int) bool {
		return v.width-lipgloss.Width(strings.Join(right, "  "))-2 >= min(title, keep)
	}
	if fits(title) || len(right) < 3 {
		return strings.Join(right, "  ")
	}
	right = append([]string(nil), right...)
	right[1] = v.play.compactLabel()
	if fits(title) {
		return strings.Join(right, "  ")
	}
	if path := v.x.Branch().Path(); len(path) > 2 {
		last := path[len(path)-1]
		s := last.Name
		if !containsAt(s) {
			s += " @" + last.ForkAt.Short()
		}
		right[2] = "⎇ …▸ " + v.st.Branch.Render(s)
	}
	if fits(headerTitleMin) {
		return strings.Join(right, "  ")
	}
	others := lipgloss.Width(strings.Join(right, "  ")) - lipgloss.Width(right[2])
	room := max(8, v.width-2-min(title, headerTitleMin)-others)
	right[2] = ansi.Truncate(right[2], room, "…")
	return strings.Join(right, "  ")
}

// compactLabel is the play state without its word ("⏸ 10×"), padded to
// the widest such label.
func (p player) compactLabel() string {
	short := func(q player) string {
		s := "⏸ "
		if q.on {
			s = "▶ "
		}
		return s + q.speedLabel()
	}
	w := 0
	for i := range speeds {
		w = max(w, lipgloss.Width(short(player{speed: i})))
	}
	s := short(p)
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}
