package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// View draws the form in its width and height, keeping the focused row
// in view.
func (f forkForm) View() string {
	st := f.st
	// where the fork stands is pinned above the rows, as the hint below
	head := []string{st.PaneTitle.Render("Fork a branch here") + fmt.Sprintf("  at %s on %s", strings.TrimPrefix(f.moment.String(), "@"), f.branch)}
	if f.where != "" {
		// which side of its clock's events the fork is on, and how to move it
		for _, l := range wrap(f.where, f.width-2) {
			head = append(head, st.Dim.Render("  "+l))
		}
	}
	out := []string{""}
	focus := 0
	cur := func(row int) string {
		if row == f.row && !f.filters {
			focus = len(out)
			return st.Cursor.Render("▶ ")
		}
		return "  "
	}
	shown := map[int]bool{}
	for _, r := range f.rows() {
		shown[r] = true
	}
	if f.dec != nil {
		out = append(out, "The decision at the cursor (event "+fmt.Sprint(f.dec.Event.Pos)+", "+f.dec.Event.T.Short()+"):")
		for _, l := range wrap(f.dec.DecText, f.width-2) { // what is decided, whole
			out = append(out, "  "+st.Decision.Render(l))
		}
		alts := []string{"as it was"}
		alts = append(alts, f.labels...)
		for i := range alts {
			if i-1 == f.pick {
				alts[i] = st.Selected.Render("[" + alts[i] + "]")
			} else {
				alts[i] = " " + alts[i] + " "
			}
		}
		line := cur(0) + "choose ‹ " + strings.Join(alts, " ") + " ›   ←/→"
		if f.pick == -2 || f.row == 0 {
			v := f.decIn.Value()
			if f.row == 0 {
				v = f.decIn.View()
			}
			line += "  or type: " + v
		}
		out = append(out, line)
		if a := f.allowed(); a != "" {
			out = append(out, st.Dim.Render("    "+a))
		}
	} else {
		out = append(out, st.Dim.Render("No decision before the cursor yet: change knobs below."))
	}
	title := "Knobs from this moment on (type to replace; ←/→ choices; a name filters):"
	out = append(out, "", title)
	if f.filters || f.filter.Value() != "" {
		v := f.filter.Value()
		if f.filters {
			v = f.filter.View()
		}
		out = append(out, "  filter: "+v+st.Dim.Render("  (esc clears)"))
	}
	nw := 0
	for _, k := range f.knobs {
		nw = max(nw, len(k.Name))
	}
	for i, k := range f.knobs {
		if !shown[i+1] {
			continue
		}
		if i == f.nfeat && f.nfeat > 0 {
			out = append(out, st.Dim.Render("  the other knobs:"))
		}
		v := f.inputs[i].View()
		if f.row != i+1 || f.filters {
			v = f.inputs[i].Value()
		}
		ch := " "
		if strings.TrimSpace(f.inputs[i].Value()) != f.orig[i] {
			ch = st.Warn.Render("*")
		}
		v += strings.Repeat(" ", max(0, 14-ansi.StringWidth(v))) // styled: pad by width
		row := fmt.Sprintf("%s%s%-*s %s ", cur(i+1), ch, nw, k.Name, v)
		if f.row != i+1 || f.filters || f.width <= 0 {
			out = append(out, row+st.Dim.Render(f.help(k))) // the frame clips it
			continue
		}
		// the focused knob's doc is whole: it wraps under its own column
		indent := ansi.StringWidth(row)
		lines := append(wrap(f.help(k), max(16, f.width-indent)), "")
		out = append(out, row+st.Dim.Render(lines[0]))
		for _, l := range lines[1 : len(lines)-1] {
			out = append(out, strings.Repeat(" ", indent)+st.Dim.Render(l))
		}
	}
	for _, l := range f.pinsGivingWay() {
		for _, l := range wrap(l, f.width-4) {
			out = append(out, st.Warn.Render("  "+l))
		}
	}
	if shown[len(f.knobs)+2] {
		// what an operator can do now, beside the knobs and the decision:
		// each action's form and what it does; the docs wrap whole while
		// do: has the focus, else one line each (the frame clips it)
		focused := f.row == len(f.knobs)+2 && !f.filters
		out = append(out, "", "Operator actions at this moment (type them after do:, separated by commas):")
		top := len(out) - 1
		v := f.actIn.Value()
		if focused {
			v = f.actIn.View()
		}
		out = append(out, cur(len(f.knobs)+2)+"do: "+v)
		if focused {
			focus = top + max(0, f.height-len(head)-2)/2 // the window starts at the header: the list below it
		}
		if strings.TrimSpace(f.actIn.Value()) != "" {
			// checked as typed against the world at this moment
			if _, err := f.actions(); err != nil {
				for _, l := range wrap(err.Error(), max(16, f.width-4)) {
					out = append(out, st.Bad.Render("  "+l))
				}
			} else {
				// what they do on this moment's state, in the fork's name's words
				for _, l := range wrap("fork name: "+f.defaultName(f.changes(), f.override()), max(16, f.width-4)) {
					out = append(out, st.Dim.Render("  "+l))
				}
			}
		}
		forms := make([]string, len(f.acts))
		fw := 0
		for i, a := range f.acts {
			forms[i] = a.Name
			if a.Arg != "" && a.NeedsArg {
				forms[i] += "=" + a.Arg
			} else if a.Arg != "" {
				forms[i] += "[=" + a.Arg + "]"
			}
			fw = max(fw, ansi.StringWidth(forms[i]))
		}
		if !focused || f.width <= 0 {
			// the forms only, so the form stays short: the docs come with the focus
			w := f.width - 4
			if f.width <= 0 {
				w = 1 << 16 // no width known: one line
			}
			for _, l := range wrap(strings.Join(forms, " · ")+" (on do:, what each does)", max(16, w)) {
				out = append(out, st.Dim.Render("    "+l))
			}
		}
		for i, a := range f.acts {
			row := "    " + forms[i] + strings.Repeat(" ", fw-ansi.StringWidth(forms[i])) + "  "
			if !focused || f.width <= 0 {
				continue
			}
			indent := ansi.StringWidth(row)
			for j, l := range wrap(a.Doc, max(16, f.width-indent)) {
				if j == 0 {
					out = append(out, row+st.Dim.Render(l))
				} else {
					out = append(out, strings.Repeat(" ", indent)+st.Dim.Render(l))
				}
			}
		}
	}
	out = append(out, "")
	out = append(out, cur(len(f.knobs)+1)+"branch name: "+f.name.View())
	def := f.defaultName(f.changes(), f.override())
	out = append(out, st.Dim.Render("  default: "+def))
	if f.err != "" {
		for _, l := range wrap(f.err, f.width-4) { // a refusal names its flag: keep it whole
			out = append(out, st.Bad.Render("  "+l))
		}
	}
	// the way out is always on screen: the hint is pinned under the rows,
	// which scroll to keep the focused one in view
	var hint []string
	for _, l := range wrap("enter creates the branch and switches to it · ↑/↓ moves · esc cancels", f.width) {
		hint = append(hint, st.Dim.Render(l))
	}
	if len(head)+len(out)+1+len(hint) <= f.height || f.height <= 0 {
		return strings.Join(append(append(append(head, out...), ""), hint...), "\n")
	}
	h := max(1, f.height-len(hint)-len(head))
	if f.row == len(f.knobs)+1 {
		focus = len(out) // keep the name and the default in view
	}
	rows := strings.Split(window(out, focus, h), "\n")
	for len(rows) < h {
		rows = append(rows, "")
	}
	return strings.Join(append(append(head, rows...), hint...), "\n")
}

// defaultName names a branch by what it changes, the decision by its kind
// and chosen label, and where it stands: "late_ack=accept @19:52:34 #188".
func (f *forkForm) defaultName(set []engine.Setting, o *engine.DecisionOverride) string {
	acts, _ := f.actions()
	if len(acts) > 0 && f.world != nil {
		m := f.moment
		if o != nil {
			m = f.decAt
		}
		return f.world.ForkLabel(set, o, acts, m)
	}
	if o == nil {
		return engine.ForkNameAt(set, nil, f.moment)
	}
	kind := f.dec.Decision.Kind.String()
	if f.dec.Decision.Kind >= engine.FamilyDecision {
		kind = "decision" // a family's own kind has no engine name
	}
	_, label, _, _ := f.decValue()
	set = append([]engine.Setting{{Knob: kind, Value: label}}, set...)
	return engine.ForkNameAt(set, nil, f.decAt)
}

// help is k's doc for this incident: a knob that acts on the featured
// message says so when an imported incident features none (the engine
// then never applies it).
func (f forkForm) help(k *engine.Knob) string {
	const featured = "the featured order's "
	if !f.unfeat || !strings.HasPrefix(k.Help, featured) {
		return k.Help
	}
	label := f.spec.Label
	if label == "" {
		label = "message"
	}
	rest := strings.TrimSuffix(strings.TrimPrefix(k.Help, featured), " (0s: never)")
	return "no " + label + " is featured here, so never (where one is: its " + rest + ")"
}
