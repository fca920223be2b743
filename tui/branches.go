package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// branchKeys are the branch list's keys: a scroll list's, marking A and
// B and comparing them, delete and its undo.
type branchKeys struct {
	scrollKeyMap
	MarkA, MarkB, Compare, Delete, Undo key.Binding
}

// ShortHelp is the list's keys in one line.
func (k branchKeys) ShortHelp() []key.Binding {
	return append(k.scrollKeyMap.ShortHelp(), k.MarkA, k.MarkB, k.Compare, k.Delete, k.Undo)
}

// FullHelp is the list's keys in columns.
func (k branchKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func branchKeyMap() branchKeys {
	return branchKeys{scrollKeyMap: scrollKeyMap{
		Up:     binding([]string{"up", "k"}, "↑/k", "previous"),
		Down:   binding([]string{"down", "j", "tab"}, "↓/j", "next"),
		Choose: binding([]string{"enter"}, "enter", "switch"),
		Close:  binding([]string{"esc", "q"}, "esc", "close"),
	},
		MarkA:   binding([]string{"a"}, "a", "mark A"),
		MarkB:   binding([]string{"b"}, "b", "mark B"),
		Compare: binding([]string{"c"}, "c", "compare"),
		Delete:  binding([]string{"d", "delete"}, "d", "delete"),
		Undo:    binding([]string{"u"}, "u", "undo delete"),
	}
}

// branchBook is what the branch list keeps between its openings: the
// branches marked A and B for c, and the deletions u undoes, last first.
// Branches are kept by ID, which a job's clone keeps, for one incident.
type branchBook struct {
	incident   string
	a, b       int // marked branches' IDs
	hasA, hasB bool
	deleted    []deletedBranch
}

// deletedBranch is a deleted branch as its fork made it, for its undo.
type deletedBranch struct {
	id, parent int // its ID and its parent's
	fork       engine.ForkOptions
	current    bool        // the cursor was on it
	pos        int64       // the cursor's event on it, when current
	at         engine.Time // the clock shown, when current
}

// of is the book for x's incident: a book kept for another is empty.
func (k *branchBook) of(x *engine.Explorer) *branchBook {
	if k.incident != x.Spec.ID {
		*k = branchBook{incident: x.Spec.ID}
	}
	return k
}

// byID is x's branch with ID id, nil when there is none.
func byID(x *engine.Explorer, id int) *engine.Branch {
	for _, b := range x.Branches() {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// marked are the branches marked A and B, nil where none is.
func (k *branchBook) marked(x *engine.Explorer) (a, b *engine.Branch) {
	k.of(x)
	if k.hasA {
		a = byID(x, k.a)
	}
	if k.hasB {
		b = byID(x, k.b)
	}
	return a, b
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
	a, b     *engine.Branch // marked A and B, nil none
	undo     string         // the deletion u undoes, "" none
	done     outcome
}

// newBranchList lists x's branches with the cursor's own selected, and
// book's marks.
func newBranchList(c common, x *engine.Explorer, book *branchBook) branchList {
	l := branchList{common: c, keys: branchKeyMap(), branches: x.Branches(), current: x.Branch()}
	for i, b := range l.branches {
		if b == l.current {
			l.row = i
		}
	}
	l.a, l.b = book.marked(x)
	if n := len(book.deleted); n > 0 {
		l.undo = book.deleted[n-1].fork.Name
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
	book := m.book.of(m.x)
	bs := m.x.Branches()
	row := max(0, min(l.row, len(bs)-1))
	switch {
	case key.Matches(k, l.keys.MarkA):
		book.a, book.hasA = bs[row].ID, true
		if book.hasB && book.b == book.a {
			book.hasB = false
		}
		l.a, l.b = book.marked(m.x)
		m.flash = "A is " + branchPath(bs[row]) + ": b marks B, c compares them"
		return nil
	case key.Matches(k, l.keys.MarkB):
		book.b, book.hasB = bs[row].ID, true
		if book.hasA && book.a == book.b {
			book.hasA = false
		}
		l.a, l.b = book.marked(m.x)
		m.flash = "B is " + branchPath(bs[row]) + ": a marks A, c compares them"
		return nil
	case key.Matches(k, l.keys.Compare): // the row stands for the branch on screen
		a, b, news := comparePairWith(m, bs[row])
		if a == nil {
			m.flash = news
			return nil
		}
		return compareJob(m.x, &m.snap, m.sel, a, b).run(m)
	case key.Matches(k, l.keys.Undo):
		return undoDelete(m)
	}
	var cmd tea.Cmd
	*l, cmd = l.Update(k)
	switch l.done {
	case closed:
		m.state = stateMain
	case submitted:
		if l.del { // the list stays open on the rest
			b, current, err := l.remove(m)
			switch {
			case err != nil:
				m.flash = err.Error()
			case b != nil:
				if current {
					m.at = m.x.World().Now
					m.exercise = nil
				}
				m.flash = "deleted branch " + b.Name + ": u brings it back"
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

// remove deletes the row's branch from m's explorer, its memory given
// back, keeps how it was forked for u, and lists the rest; current says
// the cursor was on it.
func (l *branchList) remove(m *Model) (b *engine.Branch, current bool, err error) {
	x := m.x
	bs := x.Branches()
	row := l.row
	if row < 0 || row >= len(bs) {
		return nil, false, nil
	}
	b, current = bs[row], x.Branch() == bs[row]
	d := deletedBranch{id: b.ID, current: current, pos: x.Pos(), at: m.at,
		fork: engine.ForkOptions{Name: b.Name, Pos: b.ForkPos, At: b.ForkAt, Set: b.Changes, Override: b.Override, Faults: b.Faults}}
	if b.Parent != nil {
		d.parent = b.Parent.ID
	}
	if err := x.DeleteBranch(b); err != nil {
		return nil, false, err
	}
	book := m.book.of(x)
	book.deleted = append(book.deleted, d)
	if len(book.deleted) > maxUndo {
		book.deleted = book.deleted[len(book.deleted)-maxUndo:]
	}
	*l = newBranchList(l.common, x, book)
	l.row = min(row, len(l.branches)-1)
	return b, current, nil
}

// maxUndo is how many deletions u can undo, the last first.
const maxUndo = 32

// undoDelete brings back the last branch deleted: forked again from its
// parent as it was (its name, moment and changes, so the same history
// and code), as a job; the cursor stays where it is unless it was on the
// branch, when it goes back there.
func undoDelete(m *Model) tea.Cmd {
	book := m.book.of(m.x)
	n := len(book.deleted)
	if n == 0 {
		m.flash = "nothing to undo: no branch was deleted"
		return nil
	}
	d := book.deleted[n-1]
	parent := byID(m.x, d.parent)
	if parent == nil {
		book.deleted = book.deleted[:n-1]
		m.flash = "cannot bring back " + d.fork.Name + ": the branch it was forked from is gone"
		return nil
	}
	pi, ci, cpos, at := branchIndex(m.x, parent), branchIndex(m.x, m.x.Branch()), m.x.Pos(), m.at
	newID := -1
	return explorerJob{label: "bringing back " + d.fork.Name, try: func(x *engine.Explorer) error {
		cur := x.Branches()[ci]
		x.Switch(x.Branches()[pi])
		x.Goto(d.fork.Pos)
		nb, err := x.Fork(d.fork)
		if err != nil {
			x.Switch(cur)
			x.Goto(cpos)
			return err
		}
		newID = nb.ID
		if d.current {
			x.Goto(d.pos)
		} else {
			x.Switch(cur)
			x.Goto(cpos)
		}
		return nil
	}, apply: func(m *Model) {
		book := m.book.of(m.x)
		if k := len(book.deleted); k > 0 && book.deleted[k-1].id == d.id {
			book.deleted = book.deleted[:k-1]
		}
		// the branch is back under a new ID: what named the old one names it
		for i := range book.deleted {
			if book.deleted[i].parent == d.id {
				book.deleted[i].parent = newID
			}
		}
		if book.hasA && book.a == d.id {
			book.a = newID
		}
		if book.hasB && book.b == d.id {
			book.b = newID
		}
		m.branches = newBranchList(m.common, m.x, book)
		if nb := byID(m.x, newID); nb != nil {
			m.branches.row = branchIndex(m.x, nb) // on the branch brought back
		}
		m.state = stateBranches
		if d.current {
			m.at = max(d.at, m.x.World().Now)
			m.exercise = nil
		} else {
			m.at = at
		}
		m.flash = "brought back branch " + d.fork.Name
	}, fail: func(m *Model, err error) {
		m.flash = "cannot bring back " + d.fork.Name + ": " + err.Error()
	}}.run(m)
}

// View lists the branches, two lines each, keeping the row in view.
func (l branchList) View() string {
	st := l.st
	under := ""
	if l.undo != "" {
		under = st.Dim.Render("u brings back " + l.undo)
	}
	out := []string{st.PaneTitle.Render("Branches") + "  enter switches (same clock) · a/b mark A/B · c compares · d deletes", under}
	for i, b := range l.branches {
		mark := "  "
		if i == l.row {
			mark = st.Cursor.Render("▶ ")
		}
		here := ""
		if b == l.current {
			here = st.Badge.Render(" you are here ")
		}
		switch b {
		case l.a:
			here += " " + st.Header.Render("[A]")
		case l.b:
			here += " " + st.Header.Render("[B]")
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
