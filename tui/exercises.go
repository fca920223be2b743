package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// exerciseList is the lesson's "Check your understanding" questions this
// incident can answer; each key is a preset fork at the right moment.
type exerciseList struct{ row int }

func (m *Model) openExercises() {
	if len(m.x.Spec.Exercises) == 0 {
		m.flash = "this incident has no exercises"
		return
	}
	m.state = stateExercises
}

func (m *Model) updateExercises(k tea.KeyMsg) tea.Cmd {
	exs := m.x.Spec.Exercises
	if len(exs) == 0 {
		m.state = stateMain
		return nil
	}
	m.exercises.row = max(0, min(m.exercises.row, len(exs)-1))
	switch s := k.String(); s {
	case "esc", "e", "q":
		m.state = stateMain
	case "up", "k":
		m.exercises.row = max(0, m.exercises.row-1)
	case "down", "j":
		m.exercises.row = min(len(exs)-1, m.exercises.row+1)
	case "enter":
		return m.startExercise(exs[m.exercises.row])
	default:
		for i, ex := range exs {
			if ex.Key == s {
				m.exercises.row = i
				return m.startExercise(ex)
			}
		}
	}
	return nil
}

// startExercise forks the lesson's run (main) at the exercise's moment
// with its change, and puts the question in the timeline.
func (m *Model) startExercise(ex engine.Exercise) tea.Cmd {
	m.state = stateMain
	return m.startJob("starting exercise "+ex.Key, 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		if root := x.Branches()[0]; x.Branch() != root {
			x.Switch(root)
		}
		x.SeekTime(ex.At)
		_, err := x.Fork(engine.ForkOptions{
			Name: "exercise " + ex.Key + ": " + engine.ForkName(ex.Set, ex.Override, ex.At),
			Pos:  x.Pos(), At: ex.At, Set: ex.Set, Override: ex.Override,
		})
		return x, err
	}, func(m *Model) {
		e := ex
		m.exercise = &e
		m.at = max(ex.At, m.x.World().Now)
		m.flash = "on " + branchPath(m.x.Branch()) + ": space plays on, c compares with the lesson's run"
	}, func(m *Model, err error) {
		m.flash = "exercise " + ex.Key + ": " + err.Error()
	})
}

// tried reports whether a branch for exercise key exists.
func (m Model) tried(key string) bool {
	for _, b := range m.x.Branches() {
		if strings.HasPrefix(b.Name, "exercise "+key+":") {
			return true
		}
	}
	return false
}

func (m Model) viewExercises(r rect) string {
	st := m.st
	out := []string{st.PaneTitle.Render("Check your understanding") + "  press a question's key (or enter) to fork at its moment · esc closes", ""}
	focus := 0
	for i, ex := range m.x.Spec.Exercises {
		mark := "  "
		if i == m.exercises.row {
			mark = st.Cursor.Render("▶ ")
			focus = len(out)
		}
		what := engine.ForkName(ex.Set, ex.Override, ex.At)
		out = append(out, mark+st.Key.Render("["+ex.Key+"]")+" "+st.Dim.Render(what))
		for _, l := range wrap(ex.Question, r.w-6) {
			out = append(out, "    "+l)
		}
		if m.tried(ex.Key) && ex.Explain != "" {
			for i, l := range wrap("Answer: "+ex.Explain, r.w-6) {
				if i == 0 {
					l = strings.Replace(l, "Answer:", st.Good.Render("Answer:"), 1)
				}
				out = append(out, "    "+l)
			}
		} else if ex.Explain != "" {
			out = append(out, st.Dim.Render("    (the answer appears here once you have tried it)"))
		}
		out = append(out, "")
	}
	out = append(out, st.Dim.Render(fmt.Sprintf("%d questions from the lesson this incident can answer", len(m.x.Spec.Exercises))))
	return window(out, focus+2, r.h)
}
