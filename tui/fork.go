package tui

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/internal/termtext"
	"inflight/stage"
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
// values, the featured ones (the incident's featured_knobs) first and
// focused. Changing the decision forks just before the event that made
// it; changing only knobs forks at the cursor, from the displayed clock
// on. Typing into a freshly focused row replaces its value; typing what
// cannot begin a value there (a knob's name on a duration) or `/` filters
// the knobs by name. It edits; the root makes the fork when done is
// submitted.
type forkForm struct {
	common
	keys    forkKeyMap
	dec     *engine.Entry
	values  []int64
	labels  []string
	pick    int             // -1: as it was; -2: the value typed in decIn
	decIn   textinput.Model // a value typed for the decision
	knobs   []*engine.Knob  // featured first, then the rest by name
	nfeat   int             // how many of knobs are featured
	inputs  []textinput.Model
	orig    []string
	name    textinput.Model
	row     int                 // 0 decision, 1..len(knobs) knobs, then the name; the actions' row is len(knobs)+2 (shown before the name)
	acts    []engine.ActionSpec // the operator actions the incident's system has
	actIn   textinput.Model     // the actions to take, as --do writes them, separated by spaces or commas
	fresh   bool
	filter  textinput.Model // `/`: knob names containing it
	filters bool            // the filter has the keyboard
	typedAt int             // the row a filter begun by typing began on, -1 for `/`
	err     string
	pos, at int64
	before  bool              // pos is before the displayed clock's events, behind the cursor (forkBefore)
	moment  engine.ForkMoment // where a knob fork stands, as its name says
	decAt   engine.ForkMoment // where a decision's fork stands: before its event
	where   string            // the moment in words, under the title
	spec    *engine.Spec
	unfeat  bool          // an incident with no featured message: its knobs' docs say so
	world   *engine.World // the world at the fork point, for the pins still ahead
	branch  string        // the branch forked from, for the title
	done    outcome       // what the last key asks of the root
}

// formInput is an input of the fork form or of a prompt (/, #, the hunt's
// actions): newInput with formInputKeys.
func formInput(st *Styles, value string) textinput.Model {
	ti := newInput(st, value)
	ti.KeyMap = formInputKeys
	return ti
}

// formInputKeys are the fork form's inputs' keys: textinput's without
// alt+f, alt+b and alt+d, which a terminal also sends for Esc and then f,
// b or d typed fast (escThen); ctrl+←/→ and alt+←/→ still move by words.
var formInputKeys = func() textinput.KeyMap {
	km := textinput.DefaultKeyMap
	km.WordForward = key.NewBinding(key.WithKeys("alt+right", "ctrl+right"))
	km.WordBackward = key.NewBinding(key.WithKeys("alt+left", "ctrl+left"))
	km.DeleteWordForward = key.NewBinding(key.WithKeys("alt+delete"))
	return km
}()

// escThen reads k, a key with alt, as Esc and then the key without it:
// Bubble Tea reads an Esc followed quickly by a key as that key with alt
// (alt+f for Esc then f), and the inputs would type the f. An alt key the
// inputs bind (a word move or delete) stays itself.
func escThen(k tea.KeyMsg) (tea.KeyMsg, bool) {
	km := formInputKeys
	if !k.Alt || key.Matches(k, km.WordForward, km.WordBackward, km.DeleteWordBackward, km.DeleteWordForward) {
		return k, false
	}
	k.Alt = false
	return k, true
}

func newInput(st *Styles, value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.SetValue(value)
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Cursor.Style = st.Selected
	ti.CharLimit = 64
	return ti
}

// written is each knob's value as the branch path's forks wrote it
// ("60s", not "1m0s"), where it is still the value in force.
func written(b *engine.Branch) map[string]string {
	out := map[string]string{}
	path := b.Path()
	for _, br := range path {
		for _, s := range br.Changes {
			out[s.Knob] = s.Value
		}
	}
	return out
}

// newForkForm is the form for x's cursor, displayed at clock at. With
// before, the fork stands before every event at that clock, some of which
// may be behind the cursor (a bookmark shows its moment's events): knob
// changes "from 19:52:00" then act on all of them.
func newForkForm(c common, x *engine.Explorer, at engine.Time, before bool) forkForm {
	return formAt(c, x, findForkPlace(x, at, before))
}

// forkPlace is what the form reads of the engine before it opens: where
// the fork stands, in words, and the last decision. Finding it replays
// from checkpoints (tens of ms on a big run), so `f` finds it in a job
// (openForkJob) and the form is built from it in Update.
type forkPlace struct {
	pos, at int64
	before  bool
	moment  engine.ForkMoment
	where   string
	world   *engine.World // the world at the fork point when it is not the cursor's (a world of its own)
	dec     *engine.Entry
	decAt   engine.ForkMoment
}

// findForkPlace is the form's place for x's cursor at clock at.
func findForkPlace(x *engine.Explorer, at engine.Time, before bool) forkPlace {
	w := x.World()
	b := x.Branch()
	f := forkPlace{pos: x.Pos(), at: int64(at)}
	// the events at the displayed clock, and which side of them the fork is
	lo, evs := x.ClockEvents(b, at)
	if before && at <= w.Now && lo < f.pos {
		f.pos, f.before = lo, true
		for _, e := range evs[:min(len(evs), int(x.Pos()-lo))] {
			if e.Event.Kind == engine.EvKnob { // the knobs in force there differ
				f.world = x.WorldAt(b, lo)
			}
		}
	}
	f.moment = engine.ForkMoment{At: at, Pos: -1}
	if f.pos > lo {
		f.moment.Pos = f.pos
	}
	f.where = momentWords(cmp.Or(f.world, w), lo, evs, f.pos, at)
	// the decision's fork stands before its event: after another at its
	// clock, its moment counts; Last's pass sees the event before it
	var prev engine.Event
	decMid, known := false, false
	keep := func(e *engine.Entry) bool {
		ok := engine.IsDecision(e)
		if ok {
			known = e.Event.Pos == 0 || (prev.Pos == e.Event.Pos-1 && prev.T <= e.Event.T)
			decMid = e.Event.Pos > 0 && prev.Pos == e.Event.Pos-1 && prev.T == e.Event.T
		}
		prev = e.Event
		return ok
	}
	if last := x.Last(1, keep); len(last) == 1 {
		e := last[0]
		f.dec = &e
		switch {
		case !known: // the first event of Last's span: ask
			f.decAt = x.MomentAt(b, e.Event.Pos, e.Event.T)
		case decMid:
			f.decAt = engine.ForkMoment{At: e.Event.T, Pos: e.Event.Pos}
		default:
			f.decAt = engine.ForkMoment{At: e.Event.T, Pos: -1}
		}
	}
	return f
}

// openForkJob opens the form for the cursor at clock at: the place is found
// on the job's clone, which only reads and is dropped (the cursor's world
// is the same on both), and the form built from it; open finishes it (a
// follower's restore), nil none.
func openForkJob(at engine.Time, before bool, open func(f *forkForm)) explorerJob {
	var p forkPlace
	return explorerJob{label: "opening the fork form", read: true, seek: func(x *engine.Explorer) {
		p = findForkPlace(x, at, before)
	}, apply: func(m *Model) {
		m.fork, m.state = formAt(m.common, m.x, p), stateFork
		if open != nil {
			open(&m.fork)
		}
	}}
}

// formAt is the form for x's cursor at the place p found.
func formAt(c common, x *engine.Explorer, p forkPlace) forkForm {
	w := x.World()
	f := forkForm{common: c, keys: defaultForkKeyMap(), pick: -1, pos: p.pos, at: p.at, branch: branchPath(x.Branch()),
		spec: x.Spec, world: cmp.Or(p.world, w), before: p.before, moment: p.moment, where: p.where, dec: p.dec, decAt: p.decAt}
	if f.dec != nil {
		f.values, f.labels = w.DecisionChoices(f.dec.Decision)
	}
	f.decIn = formInput(c.st, "")
	f.decIn.Placeholder = "as it was"
	// only the knobs this incident reads: the rest would change nothing
	all := engine.KnobsFor(x.Spec)
	var feat, rest []*engine.Knob
	for _, n := range x.Spec.FeaturedKnobs {
		for _, k := range all {
			if k.Name == n {
				feat = append(feat, k)
			}
		}
	}
	for _, k := range all {
		if !containsKnob(feat, k) {
			rest = append(rest, k)
		}
	}
	f.knobs, f.nfeat = append(feat, rest...), len(feat)
	wr := written(x.Branch())
	for _, k := range f.knobs {
		v := k.Get(&w.Knobs)
		if raw, ok := wr[k.Name]; ok {
			var p engine.Params = w.Knobs
			if k.Set(&p, raw) == nil && k.Get(&p) == v {
				v = raw // the same value, as the user wrote it
			}
		}
		f.orig = append(f.orig, v)
		f.inputs = append(f.inputs, formInput(c.st, v))
	}
	f.name = formInput(c.st, "")
	f.name.Placeholder = "(a name from the changes)"
	f.acts = w.Actions()
	f.actIn = formInput(c.st, "")
	f.actIn.Placeholder = "none"
	f.filter = formInput(c.st, "")
	f.unfeat = x.Spec.Featured < 0
	// the knob the incident is about, else the decision
	f.row = 1
	if f.dec != nil && f.nfeat == 0 {
		f.row = 0
	}
	f.focus()
	return f
}

func containsKnob(ks []*engine.Knob, k *engine.Knob) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// rows are the form's rows in order, the knobs the filter leaves.
func (f *forkForm) rows() []int {
	var out []int
	if f.dec != nil {
		out = append(out, 0)
	}
	q := strings.ToLower(strings.TrimSpace(f.filter.Value()))
	for i, k := range f.knobs {
		if q == "" || strings.Contains(k.Name, q) {
			out = append(out, i+1)
		}
	}
	if len(f.acts) > 0 && q == "" { // a filter leaves knobs only
		out = append(out, len(f.knobs)+2)
	}
	return append(out, len(f.knobs)+1)
}

// actions are the operator actions typed, or a refusal naming the one
// that is wrong.
func (f *forkForm) actions() ([]engine.Action, error) {
	var acts []engine.Action
	for _, s := range strings.FieldsFunc(f.actIn.Value(), func(r rune) bool { return r == ' ' || r == ',' }) {
		a, err := engine.ParseAction(s)
		if err != nil {
			return nil, err
		}
		acts = append(acts, a)
	}
	if f.world != nil {
		if err := f.world.CheckActionsAt(engine.Time(f.at), acts); err != nil {
			return nil, err
		}
	}
	return acts, nil
}

// move goes d rows up or down, wrapping at either end.
func (f *forkForm) move(d int) {
	rs := f.rows()
	at := 0
	for i, r := range rs {
		if r == f.row {
			at = i
		}
	}
	f.row = rs[(at+d+len(rs))%len(rs)]
	f.focus()
}

// focus puts the text cursor in the row's input; the next typed key
// replaces its value.
func (f *forkForm) focus() {
	for i := range f.inputs {
		f.inputs[i].Blur()
	}
	f.name.Blur()
	f.decIn.Blur()
	f.actIn.Blur()
	f.filter.Blur()
	f.fresh = true
	switch {
	case f.filters:
		f.filter.Focus()
	case f.row == 0:
		f.decIn.Focus()
	case f.row >= 1 && f.row <= len(f.inputs):
		f.inputs[f.row-1].Focus()
	case f.row == len(f.inputs)+1:
		f.name.Focus()
	case f.row == len(f.inputs)+2:
		f.actIn.Focus()
	}
}

// changes are the knob settings the form changes, as typed.
func (f *forkForm) changes() []engine.Setting {
	var set []engine.Setting
	for i, in := range f.inputs {
		if v := strings.TrimSpace(in.Value()); v != f.orig[i] {
			set = append(set, engine.Setting{Knob: f.knobs[i].Name, Value: v})
		}
	}
	return set
}

// pinsGivingWay words the pins the knobs being typed would make give way
// (a value that does not parse changes nothing here: enter refuses it).
func (f *forkForm) pinsGivingWay() []string {
	if f.world == nil || len(f.spec.Pins) == 0 {
		return nil
	}
	p := f.world.Knobs
	for _, s := range f.changes() {
		for _, k := range f.knobs {
			if k.Name == s.Knob {
				_ = k.Set(&p, s.Value)
			}
		}
	}
	var out []string
	for _, g := range engine.PinsGivingWay(f.spec, f.world, p) {
		out = append(out, strings.Replace(g.Line, "pin gave way:", "pin gives way:", 1))
	}
	return out
}

// decValue is the value typed or chosen for the decision, ok false for
// "as it was"; err refuses a typed value the decision cannot take.
func (f *forkForm) decValue() (v int64, label string, ok bool, err error) {
	if f.dec == nil {
		return 0, "", false, nil
	}
	if f.pick >= 0 {
		return f.values[f.pick], f.labels[f.pick], true, nil
	}
	t := strings.TrimSpace(f.decIn.Value())
	if f.pick == -1 || t == "" || strings.EqualFold(t, "as it was") {
		return 0, "", false, nil
	}
	for i, l := range f.labels {
		if strings.EqualFold(strings.TrimSpace(strings.TrimSuffix(l, " s"))+"s", strings.ReplaceAll(t, " ", "")) || strings.EqualFold(l, t) {
			return f.values[i], f.labels[i], true, nil
		}
	}
	d := f.dec.Decision
	switch d.Kind {
	case engine.DecLatency:
		dur, err := engine.ParseDuration(t, false)
		if err != nil {
			return 0, "", false, err
		}
		return int64(dur), t, true, nil
	case engine.DecWorker, engine.DecLateAck, engine.DecBranch, engine.DecWedge, engine.DecCrash:
		return 0, "", false, fmt.Errorf("decision %q: choose one of %s", t, strings.Join(f.labels, ", "))
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < d.Lo || n > d.Hi {
		return 0, "", false, fmt.Errorf("decision %q: a whole number from %d to %d", t, d.Lo, d.Hi)
	}
	return n, t, true, nil
}

// allowed is the range the knobs in force give the decision.
func (f *forkForm) allowed() string {
	d := f.dec.Decision
	switch d.Kind {
	case engine.DecLatency:
		return fmt.Sprintf("the knobs allow %s–%s; type any other, like 45s", f.labels[0], f.labels[len(f.labels)-1])
	case engine.DecWorker, engine.DecLateAck, engine.DecBranch, engine.DecWedge, engine.DecCrash:
		return "" // its choices are all it can take
	}
	if d.Hi-d.Lo <= 8 {
		return "" // every value it can take is a choice
	}
	return fmt.Sprintf("the knobs allow %d–%d; type any of them", d.Lo, d.Hi)
}

// override is the forced decision, if the form changes it.
func (f *forkForm) override() *engine.DecisionOverride {
	v, _, ok, err := f.decValue()
	if !ok || err != nil || v == f.dec.Decision.Value {
		return nil
	}
	return &engine.DecisionOverride{Index: f.dec.Decision.Index, Value: v}
}

// Update moves between rows (↑/↓ wrap), cycles choices and edits the
// inputs; `/` filters the knobs by name; enter asks the root for the
// fork (done = submitted), esc to close.
func (f forkForm) Update(msg tea.Msg) (forkForm, tea.Cmd) {
	f.done = stay
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	if f.filters {
		switch {
		case key.Matches(k, f.keys.Cancel):
			f.filter.SetValue("")
			f.filters = false
		case key.Matches(k, f.keys.Confirm, f.keys.Down, f.keys.Up):
			f.filters = false
		default:
			return f, f.typeFilter(k)
		}
		f.focus()
		return f, nil
	}
	switch {
	case key.Matches(k, f.keys.Cancel):
		if f.filter.Value() != "" {
			f.filter.SetValue("")
			f.focus()
			return f, nil
		}
		f.done = closed
		return f, nil
	case key.Matches(k, f.keys.Confirm):
		f.done = submitted
		return f, nil
	case key.Matches(k, f.keys.Up):
		f.move(-1)
		return f, nil
	case key.Matches(k, f.keys.Down):
		f.move(1)
		return f, nil
	case k.Type == tea.KeyRunes && string(k.Runes) == "/" && f.row != len(f.knobs)+1:
		f.filters = true
		f.typedAt = -1
		f.focus()
		return f, nil
	case key.Matches(k, f.keys.Prev, f.keys.Next):
		d := 1
		if key.Matches(k, f.keys.Prev) {
			d = -1
		}
		if f.row == 0 && f.dec != nil {
			n := len(f.values) + 1
			f.pick = (max(f.pick, -1)+1+d+n)%n - 1
			f.decIn.SetValue("")
			if f.pick >= 0 {
				f.decIn.SetValue(f.labels[f.pick])
			}
			f.fresh = true
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
			f.fresh = true
			return f, nil
		}
	}
	// a knob's name typed where it cannot be a value (a letter on a
	// duration, say) filters the knobs, as `/` does
	if f.fresh && k.Type == tea.KeyRunes && f.row <= len(f.knobs) && !f.couldStart(string(k.Runes)) {
		f.filters = true
		f.typedAt = f.row
		f.filter.SetValue("")
		f.focus()
		return f, f.typeFilter(k)
	}
	var in *textinput.Model
	switch {
	case f.row == 0 && f.dec != nil:
		in = &f.decIn
		f.pick = -2
	case f.row >= 1 && f.row <= len(f.inputs):
		in = &f.inputs[f.row-1]
	case f.row == len(f.inputs)+1:
		in = &f.name
	case f.row == len(f.inputs)+2:
		in = &f.actIn
	}
	if in == nil {
		return f, nil
	}
	if f.fresh && (k.Type == tea.KeyRunes || k.Type == tea.KeySpace) {
		in.SetValue("") // typing replaces the value: no "30s45s"
	}
	f.fresh = false
	var cmd tea.Cmd
	*in, cmd = in.Update(k)
	f.err = ""
	return f, cmd
}

// typeFilter types k into the knobs' filter and focuses the first knob
// it leaves.
func (f *forkForm) typeFilter(k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	f.filter, cmd = f.filter.Update(k)
	if f.typedAt >= 0 && !f.leavesKnob() {
		// no knob's name holds what was typed: it was meant as the
		// field's value ("true" on a duration), which enter then refuses
		row, v := f.typedAt, f.filter.Value()
		f.filter.SetValue("")
		f.filters = false
		f.row = row
		f.focus()
		f.fresh = false
		in := &f.decIn
		if row == 0 {
			f.pick = -2
		}
		if row >= 1 && row <= len(f.inputs) {
			in = &f.inputs[row-1]
		}
		in.SetValue(v)
		in.CursorEnd()
		return cmd
	}
	if rs := f.rows(); len(rs) > 0 {
		f.row = rs[0]
		for _, r := range rs {
			if r >= 1 && r <= len(f.knobs) {
				f.row = r
				break
			}
		}
	}
	return cmd
}

// leavesKnob reports whether the filter leaves a knob in the form.
func (f *forkForm) leavesKnob() bool {
	for _, r := range f.rows() {
		if r >= 1 && r <= len(f.knobs) {
			return true
		}
	}
	return false
}

// couldStart reports whether typed, typed first into the focused row,
// could begin one of its values: digits and units on a duration, digits
// on a number, the start of a choice; any text on a text knob.
func (f *forkForm) couldStart(typed string) bool {
	typed = strings.ToLower(typed)
	prefixOf := func(words []string) bool {
		for _, w := range words {
			if strings.HasPrefix(strings.ToLower(w), typed) {
				return true
			}
		}
		return false
	}
	number := func(extra string) bool { // a number first, then its unit
		return typed != "" && strings.ContainsRune("-0123456789.", rune(typed[0])) &&
			strings.Trim(typed, "-0123456789."+extra) == ""
	}
	if f.row == 0 {
		if f.dec == nil {
			return true
		}
		switch f.dec.Decision.Kind {
		case engine.DecLatency:
			return number(durationLetters) || prefixOf(f.labels)
		case engine.DecWorker, engine.DecLateAck, engine.DecBranch, engine.DecWedge, engine.DecCrash:
			return prefixOf(append(f.labels, "as it was"))
		}
		return number("") || prefixOf(append(f.labels, "as it was"))
	}
	k := f.knobs[f.row-1]
	switch k.Type {
	case engine.KnobInt:
		return number("")
	case engine.KnobDuration:
		return number(durationLetters)
	case engine.KnobProbability:
		return number("e")
	case engine.KnobChoice:
		return prefixOf(k.Choices)
	}
	return true
}

// durationLetters are the letters a duration's units are written with
// (ms, s, m, h).
const durationLetters = "msh"

// options is the fork the form describes, or a refusal of a value.
func (f *forkForm) options() (engine.ForkOptions, error) {
	set := f.changes()
	for _, s := range set {
		if _, err := engine.ParseSetting(s.Knob + "=" + s.Value); err != nil {
			return engine.ForkOptions{}, err
		}
	}
	if _, _, _, err := f.decValue(); err != nil {
		return engine.ForkOptions{}, err
	}
	acts, err := f.actions()
	if err != nil {
		return engine.ForkOptions{}, err
	}
	o := engine.ForkOptions{Pos: f.pos, At: engine.Time(f.at), Set: set, Override: f.override(), Actions: acts}
	if o.Override != nil {
		o.Pos, o.At = f.dec.Event.Pos, f.dec.Event.T
	}
	// a pasted name may hold what a share code refuses: the guard's name
	o.Name = strings.TrimSpace(termtext.Clean(f.name.Value(), termtext.Name))
	if o.Name == "" {
		o.Name = f.defaultName(set, o.Override)
	}
	return o, nil
}

// staged is the form as it is filled in, for the stage.
func (f *forkForm) staged() *stage.Fork {
	sf := &stage.Fork{Row: f.row, Pick: f.pick, Dec: f.decIn.Value(), Name: f.name.Value(), Filter: f.filter.Value(), Filters: f.filters, Before: f.before}
	for _, in := range f.inputs {
		sf.Values = append(sf.Values, in.Value())
	}
	return sf
}

// forkJob makes the fork o describes: the fork's replay to its point,
// and the budget's estimate, run as a job; the form stays up until it is
// done and shows a refusal.
func forkJob(o engine.ForkOptions) explorerJob {
	return explorerJob{label: "forking " + o.Name, try: func(x *engine.Explorer) error {
		x.Goto(o.Pos)
		_, err := x.Fork(o)
		return err
	}, apply: func(m *Model) {
		m.exercise = nil
		m.state = stateMain
		m.at = max(o.At, m.x.World().Now)
		m.flash = "forked " + branchPath(m.x.Branch()) + ": space plays it, c compares it with its parent"
	}, fail: func(m *Model, err error) {
		m.fork.err = err.Error()
	}}
}

// momentWords says which side of evs, the events at the clock at from
// event first on, a fork at event pos stands on, and which of them see
// its change:
// "before all 3 events at 19:52:00 (publish, order 14 first): they see
// the change". Nothing when no event shares the clock.
func momentWords(w *engine.World, first int64, evs []engine.Entry, pos int64, at engine.Time) string {
	n := int64(len(evs))
	if n == 0 {
		return ""
	}
	word := func(e engine.Entry) string {
		s := w.KindName(e.Event.Kind)
		if e.Event.Msg >= 0 {
			s += ", " + w.MsgName(e.Event.Msg)
		}
		return s
	}
	clock := at.Short()
	if n == 1 {
		if pos <= first {
			return "before the one event at " + clock + " (" + word(evs[0]) + "): it sees the change · l steps past it"
		}
		return "after the one event at " + clock + " (" + word(evs[0]) + "): it does not see the change · h steps back before it"
	}
	switch k := pos - first; {
	case k <= 0:
		return fmt.Sprintf("before all %d events at %s (%s first): they see the change · l/h step between them", n, clock, word(evs[0]))
	case k >= n:
		return fmt.Sprintf("after all %d events at %s (%s last): none sees the change · l/h step between them", n, clock, word(evs[n-1]))
	default:
		return fmt.Sprintf("after %d of the %d events at %s (%s), before %s · l/h step between them", k, n, clock, word(evs[k-1]), word(evs[k]))
	}
}

// stepMark is a cursor's exact place: its branch and event.
type stepMark struct {
	b   *engine.Branch
	pos int64
}

func markOf(x *engine.Explorer) stepMark { return stepMark{x.Branch(), x.Pos()} }
