package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

func exerciseKeyMap() scrollKeyMap {
	return scrollKeyMap{
		Up:     binding([]string{"up", "k"}, "↑/k", "previous question"),
		Down:   binding([]string{"down", "j"}, "↓/j", "next question"),
		Choose: binding([]string{"enter"}, "enter", "fork at its moment"),
		Close:  binding([]string{"esc", "e", "q"}, "esc", "close"),
	}
}

// exerciseList is the lesson's "Check your understanding" questions this
// incident can answer; each key is a preset fork at the right moment. The
// root starts the exercise at row when done is submitted.
type exerciseList struct {
	common
	keys  scrollKeyMap
	picks []key.Binding // one per exercise: its own key forks at once
	exs   []engine.Exercise
	tried map[string]bool // the exercises a branch already answers
	row   int
	done  outcome
}

// newExerciseList lists x's exercises with row selected.
func newExerciseList(c common, x *engine.Explorer, row int) exerciseList {
	l := exerciseList{common: c, keys: exerciseKeyMap(), exs: x.Spec.Exercises, tried: map[string]bool{}, row: row}
	for _, ex := range l.exs {
		l.picks = append(l.picks, binding([]string{ex.Key}, ex.Key, "fork for this question"))
		for _, b := range x.Branches() {
			if strings.HasPrefix(b.Name, "exercise "+ex.Key+":") {
				l.tried[ex.Key] = true
			}
		}
	}
	return l
}

func (m *Model) openExercises() {
	if len(m.x.Spec.Exercises) == 0 {
		m.flash = "this incident has no exercises"
		return
	}
	m.exercises = newExerciseList(m.common, m.x, m.exercises.row)
	m.state = stateExercises
}

// Update moves the row; enter or a question's key asks the root to start
// that exercise, esc to close.
func (l exerciseList) Update(msg tea.Msg) (exerciseList, tea.Cmd) {
	l.done = stay
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return l, nil
	}
	if len(l.exs) == 0 {
		l.done = closed
		return l, nil
	}
	l.row = max(0, min(l.row, len(l.exs)-1))
	switch {
	case key.Matches(k, l.keys.Close):
		l.done = closed
	case key.Matches(k, l.keys.Up):
		l.row = max(0, l.row-1)
	case key.Matches(k, l.keys.Down):
		l.row = min(len(l.exs)-1, l.row+1)
	case key.Matches(k, l.keys.Choose):
		l.done = submitted
	default:
		for i, b := range l.picks {
			if key.Matches(k, b) {
				l.row = i
				l.done = submitted
				break
			}
		}
	}
	return l, nil
}

func (m *Model) updateExercises(k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	m.exercises, cmd = m.exercises.Update(k)
	switch m.exercises.done {
	case closed:
		m.state = stateMain
	case submitted:
		return m.startExercise(m.exercises.exs[m.exercises.row])
	}
	return cmd
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

// View lists the questions, with the answers of those tried, keeping the
// row in view.
func (l exerciseList) View() string {
	st := l.st
	out := []string{st.PaneTitle.Render("Check your understanding") + "  press a question's key (or enter) to fork at its moment · esc closes", ""}
	focus := 0
	for i, ex := range l.exs {
		mark := "  "
		if i == l.row {
			mark = st.Cursor.Render("▶ ")
			focus = len(out)
		}
		what := engine.ForkName(ex.Set, ex.Override, ex.At)
		out = append(out, mark+st.Key.Render("["+ex.Key+"]")+" "+st.Dim.Render(what))
		for _, l := range wrap(ex.Question, l.width-6) {
			out = append(out, "    "+l)
		}
		if l.tried[ex.Key] && ex.Explain != "" {
			for i, l := range wrap("Answer: "+ex.Explain, l.width-6) {
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
	out = append(out, st.Dim.Render(plural(len(l.exs), "question", "questions")+" from the lesson this incident can answer"))
	return window(out, focus+2, l.height)
}
