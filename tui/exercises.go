package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
	"inflight/stage"
)

func exerciseKeyMap() scrollKeyMap {
	return scrollKeyMap{
		Up:     binding([]string{"up", "k"}, "↑/k", "previous question"),
		Down:   binding([]string{"down", "j"}, "↓/j", "next question"),
		Choose: binding([]string{"enter"}, "enter", "fork at its moment"),
		Close:  binding([]string{"esc", "e", "q"}, "esc", "close"),
	}
}

// exerciseList is the questions this incident can answer, each labelled:
// the lesson's own "Check your understanding", or written for the
// incident; each key is a preset fork at the right moment. The
// root starts the exercise at row when done is submitted, or asks its
// question (asked) when it has choices: predicted alone, or put to the
// room by a presenter. The screen also holds the session's seat in the
// room (room), which outlives the list.
type exerciseList struct {
	common
	keys  scrollKeyMap
	picks []key.Binding // one per exercise: its own key forks at once
	ask   key.Binding   // asks the row's question
	exs   []engine.Exercise
	tried map[string]bool // the exercises a branch already answers, or whose question was revealed
	row   int
	done  outcome
	asked bool // with done submitted: ask the row's question, not fork

	q         question // the question on screen, when q.on
	room      roomSeat
	presenter bool // a asks the room rather than predicting alone
}

// newExerciseList lists x's exercises with row selected.
func newExerciseList(c common, x *engine.Explorer, row int) exerciseList {
	l := exerciseList{common: c, keys: exerciseKeyMap(), exs: x.Spec.Exercises, tried: map[string]bool{}, row: row,
		ask: binding([]string{"a"}, "a", "ask the question")}
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
	old := m.exercises
	m.exercises = newExerciseList(m.common, m.x, old.row)
	m.exercises.room = old.room
	m.exercises.presenter = m.presenter && m.stage != nil
	for k := range old.tried {
		m.exercises.tried[k] = true
	}
	// at a question's bookmark, that question is the one selected
	for i, ex := range m.exercises.exs {
		if ex.Ask != nil && ex.Ask.At == m.at {
			m.exercises.row = i
		}
	}
	m.state = stateExercises
}

// Update moves the row; enter or a question's key asks the root to start
// that exercise (or to ask its question, when it has choices and changes
// nothing), a its question, esc to close. While a question is on screen,
// its own keys answer.
func (l exerciseList) Update(msg tea.Msg) (exerciseList, tea.Cmd) {
	l.done, l.asked = stay, false
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return l, nil
	}
	if l.q.on {
		l.q, l.done = l.q.update(k)
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
	case key.Matches(k, l.ask):
		l.done, l.asked = submitted, true
	default:
		for i, b := range l.picks {
			if key.Matches(k, b) {
				l.row = i
				l.done = submitted
				break
			}
		}
	}
	if l.done == submitted && !l.asked {
		// a question about the lesson's run itself has nothing to fork
		ex := l.exs[l.row]
		l.asked = len(ex.Choices) > 0 && !ex.Changes()
	}
	return l, nil
}

// onKey answers the list's key, or the question's on screen, and starts
// the exercise or asks the question the list asks for.
func (l *exerciseList) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	if l.q.on {
		return l.answer(m, k)
	}
	var cmd tea.Cmd
	*l, cmd = l.Update(k)
	switch l.done {
	case closed:
		m.state = stateMain
	case submitted:
		ex := l.exs[l.row]
		if l.asked {
			if len(ex.Choices) == 0 {
				m.flash = "exercise " + ex.Key + " has no choices to ask: its key forks at its moment"
				return nil
			}
			return askQuestion(m, ex)
		}
		return startExercise(m, ex)
	}
	return cmd
}

// startExercise forks the lesson's run (main) at the exercise's moment
// with its change, and puts the question in the timeline.
func startExercise(m *Model, ex engine.Exercise) tea.Cmd {
	m.state = stateMain
	return m.startJob("starting exercise "+ex.Key, 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		return x, ex.Open(x) // its fork(s), the actions taken in them
	}, func(m *Model) {
		e := ex
		m.exercise = &e
		m.at = max(ex.At, m.x.World().Now)
		if ex.DoAt != nil {
			m.at = max(ex.DoAt.At, m.x.World().Now)
		}
		with := "the lesson's run"
		if p := m.x.Branch().Parent; p != nil && p.Parent != nil {
			with = "the fork before it" // c compares with the parent
		}
		m.flash = "on " + branchPath(m.x.Branch()) + ": space plays on, c compares with " + with
	}, func(m *Model, err error) {
		m.flash = "exercise " + ex.Key + ": " + err.Error()
	})
}

// View lists the questions, with the answers of those tried, keeping the
// row in view; or shows the question being asked.
func (l exerciseList) View() string {
	if l.q.on {
		return l.viewQuestion()
	}
	st := l.st
	out := heading(st.PaneTitle.Render("Check your understanding"), "press a question's key (or enter) to fork at its moment · a asks one with choices · esc closes", l.width)
	out = append(out, "")
	focus := 0
	for i, ex := range l.exs {
		mark := "  "
		if i == l.row {
			mark = st.Cursor.Render("▶ ")
			focus = len(out)
		}
		what := ex.ExerciseWhat()
		if !ex.Changes() {
			what = "on the lesson's run"
		}
		out = append(out, mark+st.Key.Render("["+ex.Key+"]")+" "+st.Dim.Render(what+" · "+exerciseSource(ex)))
		for _, l := range wrap(ex.Question, l.width-6) {
			out = append(out, "    "+l)
		}
		if len(ex.Choices) > 0 {
			how := "a: predict, then reveal"
			if l.presenter {
				how = "a: ask the room"
			}
			out = append(out, st.Dim.Render(fmt.Sprintf("    %d choices%s · %s", len(ex.Choices), askedAt(ex), how)))
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
	lesson := 0
	for _, ex := range l.exs {
		if ex.FromLesson {
			lesson++
		}
	}
	out = append(out, st.Dim.Render(fmt.Sprintf("%s: %d from the lesson, %d written for this incident",
		plural(len(l.exs), "question", "questions"), lesson, len(l.exs)-lesson)))
	return window(out, focus+2, l.height)
}

// exerciseSource says where a question comes from, honestly: the lesson's
// own list, or written for this incident from the lesson's text.
func exerciseSource(ex engine.Exercise) string {
	if ex.FromLesson {
		return "from the lesson"
	}
	return "written for this incident"
}

// askedAt says where a question is asked: its bookmark's clock, or the
// exercise's moment.
func askedAt(ex engine.Exercise) string {
	return " at " + ex.AskAt().Short()
}

// question is one exercise's question on screen, predict-then-reveal:
// alone, the user picks a choice with one key and a second key reveals
// the answer while the explorer plays on to the moment that proves it;
// a presenter puts it to the room instead (seq is its number in the
// stage's poll) and watches the tally until revealing it.
type question struct {
	on       bool
	ex       engine.Exercise
	pick     int // the user's prediction, -1 none
	revealed bool
	arrived  bool   // the explorer reached the proof moment
	figures  string // what the branch did by then, read from its run
	room     bool   // put to the room by the presenter
	seq      uint64 // the poll's question number, when room
	keys     scrollKeyMap
}

// choiceIndex is the choice a key names, 1–5 or a–e, among n.
func choiceIndex(k tea.KeyMsg, n int) (int, bool) {
	if k.Type != tea.KeyRunes || len(k.Runes) != 1 {
		return 0, false
	}
	r := k.Runes[0]
	i := -1
	switch {
	case r >= '1' && r <= '5':
		i = int(r - '1')
	case r >= 'a' && r <= 'e':
		i = int(r - 'a')
	}
	return i, i >= 0 && i < n
}

// choiceKeys is the help for the choices' keys: "1–3/a–c".
func choiceKeys(n int) string {
	return fmt.Sprintf("1–%d/a–%c", n, 'a'+rune(n-1))
}

// questionKeyMap is a question's keys among n choices, in the list's
// shape so the help bar shows them: predict (alone), reveal, close.
func questionKeyMap(n int, room bool) scrollKeyMap {
	pick := binding([]string{"1", "2", "3", "4", "5", "a", "b", "c", "d", "e"}, choiceKeys(n), "predict")
	if room {
		pick = key.NewBinding(key.WithDisabled()) // the room answers, not the presenter
	}
	return scrollKeyMap{
		Up:     pick,
		Down:   key.NewBinding(key.WithDisabled()),
		Choose: binding([]string{"enter", " "}, "enter", "reveal and play on"),
		Close:  binding([]string{"esc", "q"}, "esc", "close"),
	}
}

// update takes a key: a choice (before the reveal, alone), enter to
// reveal, esc to close.
func (q question) update(k tea.KeyMsg) (question, outcome) {
	switch {
	case key.Matches(k, q.keys.Close):
		return q, closed
	case key.Matches(k, q.keys.Choose):
		return q, submitted
	}
	if i, ok := choiceIndex(k, len(q.ex.Choices)); ok && !q.room && !q.revealed {
		q.pick = i
	}
	return q, stay
}

// askQuestion takes the explorer to the question's moment (a job: on the
// exercise's fork, at its bookmark) and shows the question; a presenter
// puts it to the room there.
func askQuestion(m *Model, ex engine.Exercise) tea.Cmd {
	return m.startJob("going to question "+ex.Key+"'s moment", 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		return x, ex.SeekAsk(x)
	}, func(m *Model) {
		m.state = stateExercises
		room := m.presenter && m.stage != nil
		m.exercises.q = question{on: true, ex: ex, pick: -1, room: room, keys: questionKeyMap(len(ex.Choices), room)}
		m.exercises.keys = m.exercises.q.keys // the help bar shows the question's keys
		if ex.Changes() {
			e := ex
			m.exercise = &e
		}
		m.at = max(ex.AskAt(), m.x.World().Now)
		m.flash = ""
		if room {
			p := m.stage.Poll()
			m.exercises.q.seq = p.Ask(stage.PollQuestion{Incident: m.x.Spec.ID, Key: ex.Key, Text: ex.Question, Choices: ex.Choices, Answer: ex.Answer})
			m.exercises.room.state = p.State()
		}
	}, func(m *Model, err error) {
		m.flash = "question " + ex.Key + ": " + err.Error()
	})
}

// answer answers a key on the question: reveal plays on to the proof
// moment (a job, cancellable like any), close drops a room's question.
func (l *exerciseList) answer(m *Model, k tea.KeyMsg) tea.Cmd {
	var o outcome
	l.q, o = l.q.update(k)
	q := &l.q
	switch o {
	case closed:
		if q.room {
			m.stage.Poll().Drop(q.seq)
		}
		*q = question{}
		l.keys = exerciseKeyMap()
		m.state = stateMain
	case submitted:
		if !q.room && !q.revealed && q.pick < 0 {
			m.flash = "predict first: " + choiceKeys(len(q.ex.Choices))
			return nil
		}
		if q.arrived {
			return nil
		}
		if q.room && !q.revealed {
			p := m.stage.Poll()
			p.Reveal(q.seq)
			l.room.state = p.State()
		}
		q.revealed = true
		q.keys.Up = key.NewBinding(key.WithDisabled()) // predictions are over
		q.keys.Choose = binding([]string{"enter", " "}, "enter", "play on to the proof")
		l.keys = q.keys
		l.tried[q.ex.Key] = true
		return playToProof(m, q.ex)
	}
	return nil
}

// playToProof plays on to the moment that proves the question's answer.
func playToProof(m *Model, ex engine.Exercise) tea.Cmd {
	if ex.Proof == nil {
		return nil
	}
	at := ex.Proof.At
	var figs string
	return m.startJob("playing on to "+at.Short(), 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		ex.SeekProof(x)
		figs = proofFigures(x)
		return x, nil
	}, func(m *Model) {
		m.at = max(at, m.x.World().Now)
		if q := &m.exercises.q; q.on && q.ex.Key == ex.Key {
			q.arrived, q.figures = true, figs
			q.keys.Choose.SetEnabled(false) // already there: enter would do nothing
			m.exercises.keys = q.keys
		}
	}, func(m *Model, err error) {
		m.flash = "playing on to " + at.Short() + ": " + err.Error()
	})
}

// viewQuestion is the question with its choices; once revealed, the
// answer, the verdict on the prediction (or the room's tally beside the
// truth) and, from the proof moment on, the lesson's explanation.
func (l exerciseList) viewQuestion() string {
	q, st := l.q, l.st
	w := max(l.width-6, 20)
	title := "Predict, then reveal"
	if q.room {
		title = "Asking the room"
	}
	out := []string{st.PaneTitle.Render(title) + st.Dim.Render(fmt.Sprintf("  question %s · at %s", q.ex.Key, q.ex.AskAt().Short())), ""}
	for _, s := range wrap(q.ex.Question, w) {
		out = append(out, "  "+s)
	}
	out = append(out, "")
	var tally []int
	if q.room {
		tally = l.room.state.Tally
		if l.room.state.Seq != q.seq || len(tally) != len(q.ex.Choices) {
			tally = make([]int, len(q.ex.Choices))
		}
	}
	out = append(out, choiceLines(st, q.ex.Choices, q.pick, q.ex.Answer, q.revealed, tally, l.width)...)
	out = append(out, "")
	proof := "the proof"
	if q.ex.Proof != nil {
		proof = q.ex.Proof.At.Short()
	}
	switch {
	case q.room && !q.revealed:
		rs := l.room.state
		out = append(out, hint(st, fmt.Sprintf("%s answered · %d not yet · enter reveals the answer and plays on to %s · esc drops the question",
			plural(rs.Answered, "attendee", "attendees"), rs.Waiting, proof), l.width)...)
	case !q.revealed && q.pick < 0:
		out = append(out, hint(st, "press "+choiceKeys(len(q.ex.Choices))+" to predict, then enter to reveal", l.width)...)
	case !q.revealed:
		out = append(out, hint(st, fmt.Sprintf("your prediction: %c · enter reveals the answer and plays on to %s", 'a'+rune(q.pick), proof), l.width)...)
	default:
		out = append(out, verdict(st, q, l.room.state)...)
		if !q.arrived {
			out = append(out, hint(st, "playing on to "+proof+"… (enter plays on again if it was cancelled)", l.width)...)
		} else {
			out = append(out, hint(st, "the explorer is at "+proof+", the moment that shows it · esc closes", l.width)...)
			if q.figures != "" {
				out = append(out, hint(st, q.figures, l.width)...)
			}
			if q.ex.Explain != "" {
				out = append(out, "")
				for _, s := range wrap(q.ex.Explain, w) {
					out = append(out, "  "+s)
				}
			}
		}
	}
	return window(out, 0, l.height)
}

// heading is an overlay's title and its line of help: on one line when
// they fit in width, else the help wrapped under the title, so no word is
// cut.
func heading(title, help string, width int) []string {
	if one := title + "  " + help; lipgloss.Width(one) <= width {
		return []string{one}
	}
	out := []string{title}
	for _, l := range wrap(help, max(width-2, 20)) {
		out = append(out, "  "+l)
	}
	return out
}

// hint is a dim line of keys and news, wrapped to the screen.
func hint(st *Styles, s string, width int) []string {
	var out []string
	for _, l := range wrap(s, max(width-4, 20)) {
		out = append(out, st.Dim.Render("  "+l))
	}
	return out
}

// verdict says, once revealed, whether the prediction was right, or how
// the room answered.
func verdict(st *Styles, q question, rs stage.PollState) []string {
	right := fmt.Sprintf("%c", 'a'+rune(q.ex.Answer))
	if q.room {
		n := 0
		if rs.Seq == q.seq && q.ex.Answer < len(rs.Tally) {
			n = rs.Tally[q.ex.Answer]
		}
		return []string{"  " + st.Good.Render("The answer is "+right+".") + fmt.Sprintf(" %d of %s answered it.", n, plural(rs.Answered, "attendee", "attendees"))}
	}
	if q.pick == q.ex.Answer {
		return []string{"  " + st.Good.Render("Right: the answer is "+right+".")}
	}
	return []string{"  " + st.Bad.Render(fmt.Sprintf("You predicted %c; the answer is %s.", 'a'+rune(q.pick), right))}
}

// choiceLines draws the choices, one a line: the key, a mark (▶ the
// user's own choice, ✓ the right one once revealed), the text and, for a
// room, the tally as a bar.
func choiceLines(st *Styles, choices []string, mine, answer int, revealed bool, tally []int, width int) []string {
	most := 1
	for _, n := range tally {
		most = max(most, n)
	}
	textW := width - 8
	barW := 0
	if tally != nil {
		barW = max(4, min(30, width/4))
		textW = width - 8 - barW - 6
	}
	var out []string
	for i, c := range choices {
		mark := "  "
		switch {
		case revealed && i == answer:
			mark = st.Good.Render("✓ ")
		case i == mine:
			mark = st.Cursor.Render("▶ ")
		}
		// a choice too long for its column wraps under itself: its words
		// are the question's, none cut
		texts := wrap(c, max(textW, 10))
		for j, t := range texts {
			texts[j] = fitLine(t, max(textW, 10))
			if i == mine {
				texts[j] = st.Selected.Render(texts[j])
			}
		}
		line := mark + st.Key.Render(fmt.Sprintf("[%c]", 'a'+rune(i))) + " " + texts[0]
		if tally != nil {
			n := tally[i]
			bar := strings.Repeat("█", n*barW/most)
			line += fmt.Sprintf(" %4d ", n) + bar
		}
		out = append(out, line)
		for _, t := range texts[1:] {
			out = append(out, "      "+t)
		}
	}
	return out
}

// proofFigures are what the branch at x's cursor did from where it
// parts from the lesson's run to the cursor, read from its events: the
// figures a question's answer is proved by.
func proofFigures(x *engine.Explorer) string {
	b := x.Branch()
	path := b.Path()
	if len(path) < 2 {
		return ""
	}
	w := x.World()
	w0 := x.WorldAt(b, path[1].ForkPos)
	words := engine.WordsOf(w.Family())
	out := fmt.Sprintf("since the fork at %s: %s %+d, dups %+d, DLQ %d → %d", path[1].ForkAt.Short(), words.Effects,
		w.Stats.Effects-w0.Stats.Effects, w.Stats.Duplicates-w0.Stats.Duplicates, w0.DLQLen(), w.DLQLen())
	if engine.RecoveryWanted(w) {
		var s engine.RecoveryScan
		x.ScanRecovery(b, &s, x.Pos(), 1<<62)
		if r := s.Figure(x.Pos(), w.Now); r != nil {
			out += " · worst recovery: " + r.Words
		}
	}
	return out
}
