package tui

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/hunt"
	"inflight/internal/termtext"
)

// The hunt's bounds in the explorer: those of `inflight hunt`'s defaults.
const (
	huntDepth  = 2
	huntBudget = 20000
)

// huntKeyMap is the property list's keys; the list moves with its own.
type huntKeyMap struct {
	Run     key.Binding
	Close   key.Binding
	Actions key.Binding
}

func defaultHuntKeyMap() huntKeyMap {
	return huntKeyMap{
		Run:     binding([]string{"enter"}, "enter", "hunt"),
		Close:   binding([]string{"esc", "q", "x"}, "esc", "close"),
		Actions: binding([]string{"tab"}, "tab", "actions"),
	}
}

// ShortHelp is the list's keys in one line.
func (k huntKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Run, k.Actions, k.Close} }

// FullHelp is the list's keys in columns.
func (k huntKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// huntList chooses which of the incident's properties to hunt a
// counterexample to from the cursor. The root runs the hunt when done is
// submitted.
type huntList struct {
	common
	keys huntKeyMap
	list list.Model
	made bool // the list was made (the zero list cannot be sized)
	done outcome
	note string // on a branch, under the title: what the hunt judges
	// the operator actions the hunt may take, as hunt --actions names
	// them: a row under the list when the incident declares any, typed
	// into after tab
	specs  []engine.ActionSpec
	actIn  textinput.Model
	onActs bool
	check  func(string) ([]string, error) // hunt.ActionNames for this branch
	names  []string                       // the names checked, when submitted
	actErr string                         // the last refusal of the names typed
}

type propertyItem struct{ p *engine.Property }

func (i propertyItem) Title() string       { return i.p.Name }
func (i propertyItem) Description() string { return i.p.Words }
func (i propertyItem) FilterValue() string { return i.p.Name + " " + i.p.Words }

// newHuntList lists spec's properties, for a hunt from clock at; after,
// on a branch, is its fork's moment, what the hunt judges from. specs are
// the incident's operator actions, check reads the names typed as
// hunt --actions does.
func newHuntList(c common, spec *engine.Spec, at engine.Time, after string, specs []engine.ActionSpec, check func(string) ([]string, error)) huntList {
	d := list.NewDefaultDelegate()
	d.Styles = c.st.Item
	var items []list.Item
	for i := range spec.Properties {
		items = append(items, propertyItem{&spec.Properties[i]})
	}
	l := list.New(items, d, 80, 20)
	l.Title = fmt.Sprintf("Hunt from %s: which promise to break? · enter hunts · esc closes", at.Short())
	l.Styles = c.st.List
	l.SetShowHelp(false)
	l.SetFilteringEnabled(false)
	l.SetShowStatusBar(false)
	h := huntList{common: c, keys: defaultHuntKeyMap(), list: l, made: true, specs: specs, check: check}
	h.actIn = formInput(c.st, "")
	h.actIn.Placeholder = "none"
	if after != "" {
		h.note = "judged after the fork (" + after + "): what came before it does not count"
	}
	h.SetSize(c.width, c.height)
	return h
}

// SetSize is the body's size, between the header and the status line.
func (h *huntList) SetSize(w, hh int) {
	h.common.SetSize(w, hh)
	if !h.made {
		return
	}
	if h.note != "" {
		hh-- // the note's line
	}
	if len(h.specs) > 0 {
		hh -= 2 // the actions' row and the line under it
	}
	h.list.SetSize(max(w, 1), max(hh, 1))
}

// Update moves in the list; enter asks the root to hunt the selected
// property, esc to close.
func (h huntList) Update(msg tea.Msg) (huntList, tea.Cmd) {
	h.done = stay
	if k, ok := msg.(tea.KeyMsg); ok && len(h.specs) > 0 {
		switch {
		case key.Matches(k, h.keys.Actions):
			h.onActs = !h.onActs
			if h.onActs {
				h.actIn.Focus()
			} else {
				h.actIn.Blur()
			}
			return h, nil
		case key.Matches(k, h.keys.Run):
			names, err := h.check(h.actIn.Value())
			if err != nil {
				h.actErr = err.Error()
				return h, nil
			}
			h.names, h.actErr, h.done = names, "", submitted
			return h, nil
		case h.onActs && k.String() == "esc":
			h.done = closed
			return h, nil
		case h.onActs:
			var cmd tea.Cmd
			h.actIn, cmd = h.actIn.Update(msg)
			h.actErr = ""
			return h, cmd
		}
	}
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, h.keys.Close):
			h.done = closed
			return h, nil
		case key.Matches(k, h.keys.Run):
			h.done = submitted
			return h, nil
		}
	}
	var cmd tea.Cmd
	h.list, cmd = h.list.Update(msg)
	return h, cmd
}

// View is the list, on a branch with the note under its title, and the
// actions' row under it when the incident declares any.
func (h huntList) View() string {
	v := h.list.View()
	if h.note != "" {
		title, rest, _ := strings.Cut(v, "\n")
		v = title + "\n" + fitLine(h.st.Dim.Render("   "+h.note), h.width) + "\n" + rest
	}
	if len(h.specs) == 0 {
		return v
	}
	in := h.actIn.Value()
	if h.onActs {
		in = h.actIn.View()
	}
	if in == "" {
		in = h.st.Dim.Render("none")
	}
	mark := "  "
	if h.onActs {
		mark = "> "
	}
	var names []string
	for _, s := range h.specs {
		names = append(names, s.Name)
	}
	under := h.st.Dim.Render("    tab names actions it may take: " + strings.Join(names, ", "))
	if h.actErr != "" {
		under = h.st.Bad.Render("    " + termtext.Clean(h.actErr, termtext.Line))
	}
	return v + "\n" + fitLine(mark+"do: "+in, h.width) + "\n" + fitLine(under, h.width)
}

func (h huntList) selected() (*engine.Property, bool) {
	it, ok := h.list.SelectedItem().(propertyItem)
	return it.p, ok
}

// openHunt opens the property list, or says the incident names none.
func (m *Model) openHunt() {
	if len(m.x.Spec.Properties) == 0 {
		m.flash = m.x.Spec.ID + " names no properties: there is no promise to hunt a break of"
		return
	}
	if c := m.x.Code(); len(c.Forks) > 0 && m.at < c.Forks[len(c.Forks)-1].At {
		// the search plays the branch from its start with its forks: a
		// moment before its own fork belongs to another line
		m.flash = "a hunt on this branch starts at or after its fork (" + c.Forks[len(c.Forks)-1].At.Short() + "): move past it"
		return
	}
	code, spec := m.x.Code(), m.x.Spec
	check := func(s string) ([]string, error) { return hunt.ActionNames(spec, code.Seed, code.Set, s) }
	m.hunt, m.state = newHuntList(m.common, m.x.Spec, m.at, forkMoment(code.Forks), m.x.World().Actions(), check), stateHunt
	b := m.mainView().layout().body
	m.hunt.SetSize(b.w, b.h)
}

// forkMoment is the moment a hunt on a branch with these forks judges
// from, as the hunt says it ("19:52:00 #178"); "" on the lesson's run.
func forkMoment(forks []engine.CodeFork) string {
	if len(forks) == 0 {
		return ""
	}
	f := forks[len(forks)-1]
	return fmt.Sprintf("%s #%d", f.At.Short(), f.Pos)
}

// updateHunt gives the list the key and starts the hunt it asks for.
func (m *Model) updateHunt(k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	m.hunt, cmd = m.hunt.Update(k)
	switch m.hunt.done {
	case closed:
		m.state = stateMain
	case submitted:
		m.state = stateMain
		if p, ok := m.hunt.selected(); ok {
			return m.startHunt(p, m.hunt.names)
		}
	}
	return cmd
}

// huntProgress is what the hunt's goroutine last said, for the progress
// line the update loop draws.
type huntProgress struct {
	mu    sync.Mutex
	start time.Time
	p     hunt.Progress
}

func (h *huntProgress) set(p hunt.Progress) {
	h.mu.Lock()
	h.p = p
	h.mu.Unlock()
}

// line is the progress line: branches tried, branches per second, the
// depth searched and the branch that came nearest so far.
func (h *huntProgress) line(label string) string {
	h.mu.Lock()
	p := h.p
	h.mu.Unlock()
	rate := float64(p.Tried) / max(time.Since(h.start).Seconds(), 0.001)
	at := fmt.Sprintf("depth %d", p.Depth)
	if p.Depth == 0 {
		at = "random schedules"
	}
	if p.Tried == 0 {
		at = "playing the run once"
	}
	s := fmt.Sprintf("%s: %s tried, %.0f/s, %s", label, plural(p.Tried, "branch", "branches"), rate, at)
	if p.Best != "" {
		s += " · best so far " + p.Best
	}
	return s
}

// startHunt hunts a branch breaking p from the cursor's clock on the
// branch on screen, as a job: esc cancels it. A counterexample opens
// as a branch named after p (its forced decisions, one fork each), the
// cursor just past the first violation.
func (m *Model) startHunt(p *engine.Property, actions []string) tea.Cmd {
	code := m.x.Code()
	// the command's bounds, and under a server no more than the
	// session's event budget
	// the clone's copy of the branch hunted, found by its place: the
	// explorer's own branches are not the job's to touch
	cur := branchIndex(m.x, m.x.Branch())
	o := hunt.Options{Spec: m.x.Spec, Seed: code.Seed, Set: code.Set, Forks: code.Forks, From: m.at, Property: p,
		Depth: huntDepth, Budget: huntBudget, Faults: true, Actions: actions}
	if m.jobs.slots != nil {
		o.Events = m.x.Limits().Events
	}
	o.Account = huntAccount(m.x)
	if o.From <= 0 {
		o.From = 0
	}
	prog := &huntProgress{start: time.Now()}
	o.Progress = prog.set
	label := "hunting " + p.Name
	if after := forkMoment(code.Forks); after != "" {
		label += " after the fork (" + after + ")"
	}
	name := "hunt: " + p.Name
	var res *hunt.Result
	var pos int64 // where the cursor goes: just past the first violation
	work := func(x *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error) {
		o.Cancel = mt.Cancelled()
		o.Stop = func() error {
			if mt.Pace != nil { // a server's work slot, waited for as a long job
				return mt.Pace()
			}
			return nil
		}
		r, err := hunt.Hunt(o)
		if err != nil {
			return nil, err
		}
		res = r
		if !r.Found || r.Unforced {
			// nothing to open: the job fails so that its clone is not
			// swapped in and the cursor stays where it was
			return nil, huntAnswer{r}
		}
		x.Switch(x.Branches()[cur]) // the counterexample forks the branch hunted
		for i, f := range r.Forced {
			x.Goto(f.Pos)
			fo := engine.ForkOptions{Name: name, Pos: f.Pos, At: f.At}
			if i < len(r.Forced)-1 {
				fo.Name = fmt.Sprintf("%s %d/%d", name, i+1, len(r.Forced))
			}
			switch {
			case f.Act != nil:
				fo.Actions = []engine.Action{*f.Act}
			case f.Fault != nil:
				fo.Faults = []engine.Fault{*f.Fault}
			default:
				fo.Override = &engine.DecisionOverride{Index: f.Index, Value: f.Value}
			}
			if _, err := x.Fork(fo); err != nil {
				return nil, fmt.Errorf("hunt: the counterexample did not fork: %w", err)
			}
		}
		pos = firstViolation(x, r)
		x.Goto(pos)
		return x, nil
	}
	apply := func(m *Model) {
		m.state = stateMain
		m.at = m.x.World().Now
		m.flash = huntNews(res)
		if res.Found && !res.Unforced {
			if msg := violationMsg(res); msg >= 0 {
				m.sel = msg
			}
		}
	}
	fail := func(m *Model, err error) {
		var a huntAnswer
		if errors.As(err, &a) {
			m.flash = huntNews(a.r)
			return
		}
		if errors.Is(err, hunt.ErrCancelled) || errors.Is(err, engine.ErrCancelled) {
			m.flash = "cancelled: " + label
			return
		}
		m.flash = err.Error()
	}
	return m.startJobLine(label, func() string { return prog.line(label) }, work, apply, fail)
}

// huntAccount is what a hunt from x may take: the explorer's memory
// budget less what its checkpoints hold, and the pool it draws on.
func huntAccount(x *engine.Explorer) *engine.Account {
	l := x.Limits()
	a := engine.NewAccount(engine.Limits{Bytes: l.Bytes, BytesFlag: l.BytesFlag}, nil)
	_ = a.Charge(x.Bytes()) // held already, and by the pool already
	a.Pool, a.Of = x.Pool(), "the hunt"
	return a
}

// huntAnswer is a hunt's answer that opens nothing (nothing found, or
// the branch as it stands breaks the property): the job ends as a
// failure, so the explorer, the cursor and the selection are left alone.
type huntAnswer struct{ r *hunt.Result }

func (a huntAnswer) Error() string { return huntNews(a.r) }

// violationMsg is the message a counterexample breaks the property on:
// the broken check's, else the last forced decision's.
func violationMsg(r *hunt.Result) int32 {
	for _, b := range r.Broken {
		if b.Msg >= 0 {
			return b.Msg
		}
	}
	if n := len(r.Forced); n > 0 {
		return r.Forced[n-1].Msg
	}
	return -1
}

// firstViolation is where the counterexample's break shows: just past the
// message's first effect or dead-lettering after the event of the last
// forced decision (the duplicate email, the order given up on), else the last
// fork point.
func firstViolation(x *engine.Explorer, r *hunt.Result) int64 {
	last := r.Forced[len(r.Forced)-1].Pos
	msg := violationMsg(r)
	if msg < 0 {
		return last
	}
	// the forced event itself may be the effect the fault strikes after
	hist := x.History(x.Branch(), msg, last, func(e *engine.Entry) bool {
		return e.Event.Pos > last && (e.Event.Kind == engine.EvEffect || e.Event.Kind == engine.EvDLQ)
	})
	if len(hist) == 0 {
		return last
	}
	return hist[0].Event.Pos + 1
}

// huntNews words a hunt's answer on the news line: the broken check, the
// forced decisions in the lesson's words and `c`; or that nothing broke
// it, with the branches tried and whether the depth was exhausted.
func huntNews(r *hunt.Result) string {
	var b strings.Builder
	var got []string
	for _, c := range r.Broken {
		got = append(got, c.Got)
	}
	after := ""
	if r.After != "" {
		after = " after the fork (" + r.After + ")"
	}
	switch {
	case r.Unforced && r.After != "":
		var said []string
		for _, c := range r.Broken {
			if key, _, _ := strings.Cut(c.Check, ":"); c.Msg < 0 && !strings.HasPrefix(key, "message.") {
				said = append(said, key+" "+c.Got) // "duplicate_effects 1 since the fork (28 in all)"
			} else {
				said = append(said, c.Got)
			}
		}
		fmt.Fprintf(&b, "%s is broken after the fork (%s) by the branch as it stands, %s: nothing to search", r.Property, r.After, strings.Join(said, "; "))
	case r.Unforced:
		fmt.Fprintf(&b, "%s is broken by the run as it stands (%s): nothing to search", r.Property, strings.Join(got, "; "))
	case r.Found:
		fmt.Fprintf(&b, "hunt: %s broken%s, %s · forced ", r.Property, after, strings.Join(got, "; "))
		for i, f := range r.Forced {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.Clock + " " + f.Words)
		}
		fmt.Fprintf(&b, " · %s tried · c compares", plural(r.Tried, "branch", "branches"))
	default:
		fmt.Fprintf(&b, "hunt: no branch up to depth %d breaks %s%s · %s tried", huntDepth, r.Property, after, plural(r.Tried, "branch", "branches"))
		if r.Exhausted {
			fmt.Fprintf(&b, ", the depth-%d space (%d) exhausted", r.Depth, r.Space)
		} else {
			fmt.Fprintf(&b, ", the budget ran out before the depth-%d space was exhausted", r.Depth)
		}
		if r.Random > 0 {
			fmt.Fprintf(&b, ", %s", plural(r.Random, "random schedule", "random schedules"))
		}
	}
	return b.String()
}
