package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// forkKeyMap is the fork form's keys.
type forkKeyMap struct {
	Up      key.Binding
	Down    key.Binding
	Prev    key.Binding
	Next    key.Binding
	Confirm key.Binding
	Cancel  key.Binding
}

func defaultForkKeyMap() forkKeyMap {
	return forkKeyMap{
		Up:      binding([]string{"up", "shift+tab"}, "↑", "up"),
		Down:    binding([]string{"down", "tab"}, "↓", "down"),
		Prev:    binding([]string{"left"}, "←", "prev choice"),
		Next:    binding([]string{"right"}, "→", "next choice"),
		Confirm: binding([]string{"enter"}, "enter", "fork"),
		Cancel:  binding([]string{"esc"}, "esc", "cancel"),
	}
}

// ShortHelp is the form's keys in one line.
func (k forkKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Confirm, k.Up, k.Down, k.Prev, k.Next, k.Cancel}
}

// FullHelp is the form's keys in columns.
func (k forkKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Prev, k.Next}, {k.Confirm, k.Cancel}}
}

// forkForm makes a branch from this moment: it shows the decision at the
// cursor with its alternatives, and the incident's knobs with their
// values. Changing the decision forks just before the event that made it;
// changing only knobs forks at the cursor, from the displayed clock on.
// It edits; the root makes the fork when done is submitted.
type forkForm struct {
	common
	keys    forkKeyMap
	dec     *engine.Entry
	values  []int64
	labels  []string
	pick    int // -1: as it was
	knobs   []*engine.Knob
	inputs  []textinput.Model
	orig    []string
	name    textinput.Model
	row     int // 0 decision, 1..len(knobs) knobs, then the name
	err     string
	pos, at int64
	branch  string  // the branch forked from, for the title
	done    outcome // what the last key asks of the root
}

func newInput(st Styles, value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.SetValue(value)
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Cursor.Style = st.Selected
	ti.CharLimit = 64
	return ti
}

// newForkForm is the form for x's cursor, displayed at clock at.
func newForkForm(c common, x *engine.Explorer, at engine.Time) forkForm {
	w := x.World()
	f := forkForm{common: c, keys: defaultForkKeyMap(), pick: -1, pos: x.Pos(), at: int64(at), branch: branchPath(x.Branch())}
	if last := x.Last(1, engine.IsDecision); len(last) == 1 {
		e := last[0]
		f.dec = &e
		f.values, f.labels = w.DecisionChoices(e.Decision)
	}
	// only the knobs this incident reads: the rest would change nothing
	for _, k := range engine.KnobsFor(x.Spec) {
		v := k.Get(&w.P)
		f.knobs = append(f.knobs, k)
		f.orig = append(f.orig, v)
		f.inputs = append(f.inputs, newInput(c.st, v))
	}
	f.name = newInput(c.st, "")
	f.name.Placeholder = "(a name from the changes)"
	f.row = 1
	if f.dec != nil {
		f.row = 0
	}
	f.focus()
	return f
}

func (m *Model) openFork() {
	m.fork = newForkForm(m.common, m.x, m.at)
	m.state = stateFork
}

// focus puts the text cursor in the row's input.
func (f *forkForm) focus() {
	for i := range f.inputs {
		f.inputs[i].Blur()
	}
	f.name.Blur()
	switch {
	case f.row >= 1 && f.row <= len(f.inputs):
		f.inputs[f.row-1].Focus()
	case f.row == len(f.inputs)+1:
		f.name.Focus()
	}
}

// changes are the knob settings the form changes.
func (f *forkForm) changes() []engine.Setting {
	var set []engine.Setting
	for i, in := range f.inputs {
		if v := strings.TrimSpace(in.Value()); v != f.orig[i] {
			set = append(set, engine.Setting{Knob: f.knobs[i].Name, Value: v})
		}
	}
	return set
}

// override is the forced decision, if the form changes it.
func (f *forkForm) override() *engine.DecisionOverride {
	if f.dec == nil || f.pick < 0 || f.values[f.pick] == f.dec.Decision.Value {
		return nil
	}
	return &engine.DecisionOverride{Index: f.dec.Decision.Index, Value: f.values[f.pick]}
}

// Update moves between rows, cycles choices and edits the inputs; enter
// asks the root for the fork (done = submitted), esc to close.
func (f forkForm) Update(msg tea.Msg) (forkForm, tea.Cmd) {
	f.done = stay
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	last := len(f.inputs) + 1
	first := 1
	if f.dec != nil {
		first = 0
	}
	switch {
	case key.Matches(k, f.keys.Cancel):
		f.done = closed
		return f, nil
	case key.Matches(k, f.keys.Confirm):
		f.done = submitted
		return f, nil
	case key.Matches(k, f.keys.Up):
		f.row = max(first, f.row-1)
		f.focus()
		return f, nil
	case key.Matches(k, f.keys.Down):
		f.row = min(last, f.row+1)
		f.focus()
		return f, nil
	case key.Matches(k, f.keys.Prev, f.keys.Next):
		d := 1
		if key.Matches(k, f.keys.Prev) {
			d = -1
		}
		if f.row == 0 && f.dec != nil {
			n := len(f.values) + 1
			f.pick = (f.pick+1+d+n)%n - 1
			return f, nil
		}
		if f.row >= 1 && f.row <= len(f.knobs) && len(f.knobs[f.row-1].Choices) > 0 {
			ch := f.knobs[f.row-1].Choices
			in := &f.inputs[f.row-1]
			i := 0
			for j, c := range ch {
				if c == in.Value() {
					i = j
				}
			}
			in.SetValue(ch[(i+d+len(ch))%len(ch)])
			return f, nil
		}
	}
	var cmd tea.Cmd
	switch {
	case f.row >= 1 && f.row <= len(f.inputs):
		f.inputs[f.row-1], cmd = f.inputs[f.row-1].Update(k)
	case f.row == last:
		f.name, cmd = f.name.Update(k)
	}
	f.err = ""
	return f, cmd
}

// options is the fork the form describes, or a refusal of a knob value.
func (f *forkForm) options() (engine.ForkOptions, error) {
	set := f.changes()
	for _, s := range set {
		if _, err := engine.ParseSetting(s.Knob + "=" + s.Value); err != nil {
			return engine.ForkOptions{}, err
		}
	}
	o := engine.ForkOptions{Pos: f.pos, At: engine.Time(f.at), Set: set, Override: f.override()}
	if o.Override != nil {
		o.Pos, o.At = f.dec.Event.Pos, f.dec.Event.T
	}
	o.Name = strings.TrimSpace(f.name.Value())
	if o.Name == "" {
		o.Name = f.defaultName(set, o.Override, o.At)
	}
	return o, nil
}

// updateFork gives the form the key and makes the fork it asks for.
func (m *Model) updateFork(k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	m.fork, cmd = m.fork.Update(k)
	switch m.fork.done {
	case closed:
		m.state = stateMain
	case submitted:
		return m.confirmFork()
	}
	return cmd
}

// confirmFork makes the form's fork: a job.
func (m *Model) confirmFork() tea.Cmd {
	o, err := m.fork.options()
	if err != nil {
		m.fork.err = err.Error()
		return nil
	}
	// the fork's replay to its point, and the budget's estimate, run as a
	// job; the form stays up until it is done and shows a refusal
	return m.startJob("forking "+o.Name, 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		x.Goto(o.Pos)
		if _, err := x.Fork(o); err != nil {
			return nil, err
		}
		return x, nil
	}, func(m *Model) {
		m.exercise = nil
		m.state = stateMain
		m.at = max(o.At, m.x.World().Now)
		m.flash = "forked " + branchPath(m.x.Branch()) + ": space plays it, c compares it with its parent"
	}, func(m *Model, err error) {
		m.fork.err = err.Error()
	})
}

// View draws the form in its width and height, keeping the focused row
// in view.
func (f forkForm) View() string {
	st := f.st
	var out []string
	out = append(out, st.PaneTitle.Render("Fork a branch here")+fmt.Sprintf("  at %s on %s", engine.Time(f.at).Short(), f.branch), "")
	focus := 0
	cur := func(row int) string {
		if row == f.row {
			focus = len(out)
			return st.Cursor.Render("▶ ")
		}
		return "  "
	}
	if f.dec != nil {
		out = append(out, "The decision at the cursor (event "+fmt.Sprint(f.dec.Event.Pos)+", "+f.dec.Event.T.Short()+"):")
		out = append(out, "  "+st.Decision.Render(f.dec.DecText))
		alts := []string{"as it was"}
		alts = append(alts, f.labels...)
		for i := range alts {
			if i-1 == f.pick {
				alts[i] = st.Selected.Render("[" + alts[i] + "]")
			} else {
				alts[i] = " " + alts[i] + " "
			}
		}
		out = append(out, cur(0)+"choose ‹ "+strings.Join(alts, " ")+" ›   ←/→")
	} else {
		out = append(out, st.Dim.Render("No decision before the cursor yet: change knobs below."))
	}
	out = append(out, "", "Knobs from this moment on (type a value; ←/→ cycles choices):")
	nw := 0
	for _, k := range f.knobs {
		nw = max(nw, len(k.Name))
	}
	for i, k := range f.knobs {
		v := f.inputs[i].View()
		if f.row != i+1 {
			v = f.inputs[i].Value()
		}
		ch := " "
		if strings.TrimSpace(f.inputs[i].Value()) != f.orig[i] {
			ch = st.Warn.Render("*")
		}
		out = append(out, fmt.Sprintf("%s%s%-*s %-14s %s", cur(i+1), ch, nw, k.Name, v, st.Dim.Render(k.Help)))
	}
	out = append(out, "")
	out = append(out, cur(len(f.knobs)+1)+"branch name: "+f.name.View())
	def := f.defaultName(f.changes(), nil, engine.Time(f.at))
	if o := f.override(); o != nil {
		def = f.defaultName(f.changes(), o, f.dec.Event.T)
	}
	out = append(out, st.Dim.Render("  default: "+def))
	if f.err != "" {
		for _, l := range wrap(f.err, f.width-4) { // a refusal names its flag: keep it whole
			out = append(out, st.Bad.Render("  "+l))
		}
	}
	out = append(out, "", st.Dim.Render("enter creates the branch and switches to it · ↑/↓ moves · esc cancels"))
	if len(out) > f.height && f.row == len(f.knobs)+1 {
		focus = len(out) // keep the name, the default and the hint in view
	}
	return window(out, focus, f.height)
}

// defaultName names a branch by what it changes, the decision by its kind
// and chosen label: "late_ack=accept @19:52:34".
func (f *forkForm) defaultName(set []engine.Setting, o *engine.DecisionOverride, at engine.Time) string {
	if o == nil {
		return engine.ForkName(set, nil, at)
	}
	kind := f.dec.Decision.Kind.String()
	if f.dec.Decision.Kind >= engine.FamilyDecision {
		kind = "decision" // a family's own kind has no engine name
	}
	set = append([]engine.Setting{{Knob: kind, Value: f.labels[f.pick]}}, set...)
	return engine.ForkName(set, nil, at)
}
