package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/internal/savedtree"
	"inflight/internal/termtext"
)

// Keep is where a local explorer keeps its branch tree between runs
// (package savedtree): written when the program ends, offered back by the
// next explorer on the same incident. Options.Keep is nil under serve, and
// NewSession clears it: an attendee's branches are not the server's to
// read from or write to its disk.
type Keep struct {
	Dir   string // the state directory (savedtree.Dir)
	File  string // the incident file the explorer was started on; "" a bundled incident
	Fresh bool   // --fresh: start on the lesson's run without the offer
}

// keeper is a session's Keep at work: the incident it keeps, what it
// found saved, and whether the session holds the saved tree's sequel.
type keeper struct {
	Keep
	spec     *engine.Spec
	offer    *savedtree.Tree // read at the start, until answered
	restored bool            // the tree on screen continues the saved one
}

// path is the file spec's tree goes in: the incident the explorer was
// started on by its file, any other (the picker's, bundled) by its id.
func (k *keeper) path(spec *engine.Spec) string {
	file := ""
	if spec == k.spec {
		file = k.File
	}
	return filepath.Join(k.Dir, savedtree.Name(spec.ID, file))
}

// shownPath is a path as a screen line may show it.
func shownPath(p string) string { return termtext.Clean(p, termtext.Line) }

// startKeeping sets up m's keeper for o.Keep and reads the saved tree of
// m's incident: a tree of this run is offered (the restore prompt), a
// file that cannot be used is news, one line, and left as it is.
func startKeeping(m *Model, o *Keep) {
	k := &keeper{Keep: *o, spec: m.x.Spec}
	m.keep = k
	if k.Fresh {
		return
	}
	p := k.path(k.spec)
	t, err := readTree(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		m.flash = fmt.Sprintf("saved branches %s: %s: not restored", shownPath(p), errLine(err))
		return
	}
	if c := t.At; c.Incident != m.x.Spec.ID || c.Seed != m.x.Seed || !slices.Equal(c.Set, m.x.Set) {
		m.flash = fmt.Sprintf("saved branches %s are of %s, not this run: not offered (a quit with branches replaces them)",
			shownPath(p), runName(c))
		return
	}
	k.offer = &t
	where := "main"
	if t.Cursor > 0 { // the name the branch had
		forks := t.Branches[t.Cursor-1].Code.Forks
		where = m.x.ForkNameOf(forks[len(forks)-1])
	}
	m.restore = newRestoreOffer(m.common, t, where)
	m.state = stateRestore
}

// runName is a code's run: incident@seed and the knobs set from the start.
func runName(c engine.Code) string {
	s := fmt.Sprintf("%s@%d", c.Incident, c.Seed)
	for i, st := range c.Set {
		s += map[bool]string{true: "+", false: ","}[i == 0] + st.Knob + "=" + st.Value
	}
	return s
}

// readTree reads and parses the saved tree at p.
func readTree(p string) (savedtree.Tree, error) {
	data, err := savedtree.Read(p)
	if err != nil {
		return savedtree.Tree{}, err
	}
	return savedtree.Parse(data)
}

// restoreOffer is the one-line prompt the explorer opens on when the
// incident has a saved tree: restore it, or start fresh.
type restoreOffer struct {
	common
	keys  restoreKeys
	tree  savedtree.Tree
	where string  // the cursor's branch, by name
	done  outcome // submitted restores, closed starts fresh
	quit  bool
}

type restoreKeys struct {
	Restore, Fresh, Quit key.Binding
}

func (k restoreKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Restore, k.Fresh, k.Quit} }
func (k restoreKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func newRestoreOffer(c common, t savedtree.Tree, where string) restoreOffer {
	return restoreOffer{common: c, tree: t, where: where, keys: restoreKeys{
		Restore: binding([]string{"r", "enter"}, "r/enter", "restore them"),
		Fresh:   binding([]string{"n", "esc"}, "n/esc", "start fresh"),
		Quit:    binding([]string{"q"}, "q", "quit"),
	}}
}

func (r *restoreOffer) helpKeys() help.KeyMap { return r.keys }

// Update answers the offer's keys.
func (r restoreOffer) Update(msg tea.Msg) (restoreOffer, tea.Cmd) {
	r.done = stay
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, r.keys.Restore):
			r.done = submitted
		case key.Matches(k, r.keys.Fresh):
			r.done = closed
		case key.Matches(k, r.keys.Quit):
			r.quit = true
		}
	}
	return r, nil
}

// View is the offer, one line: how many branches and where the cursor
// was, as much of it as fits; words are dropped whole, never cut.
func (r restoreOffer) View() string {
	n := branchCount(len(r.tree.Branches))
	badge := r.st.Badge.Render(" saved ") + " "
	for _, s := range []string{
		fmt.Sprintf("Restore your %s from last time? r restores · n starts fresh · the cursor was on %s", n, r.where),
		fmt.Sprintf("Restore your %s from last time? r restores · n starts fresh", n),
		fmt.Sprintf("Restore %s? r restores · n fresh", n),
	} {
		if cellWidth(badge+s) <= r.width {
			return badge + s
		}
	}
	return fitLine(badge+fmt.Sprintf("Restore %s? r restores · n fresh", n), r.width)
}

func branchCount(n int) string {
	if n == 1 {
		return "1 branch"
	}
	return fmt.Sprintf("%d branches", n)
}

func (r *restoreOffer) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	*r, _ = r.Update(k)
	switch {
	case r.quit:
		return tea.Quit
	case r.done == closed:
		m.state = stateMain
		m.keep.offer = nil
		m.flash = "started fresh: the saved branches stay until a quit with branches replaces them"
	case r.done == submitted:
		m.state = stateMain
		t := *m.keep.offer
		m.keep.offer = nil
		return restoreJob(m.keep.path(m.keep.spec), t).run(m)
	}
	return nil
}

// restoreJob rebuilds a saved tree on the explorer, which holds only the
// lesson's run: every branch, in the order made, then the cursor. A tree
// the incident no longer plays the same (a fingerprint that differs) or a
// fork the engine refuses is reported in one line, and the explorer stays
// as it was.
func restoreJob(p string, t savedtree.Tree) explorerJob {
	n := len(t.Branches)
	return explorerJob{label: "restoring " + branchCount(n),
		try: func(x *engine.Explorer) error { return restoreTree(x, t) },
		apply: func(m *Model) {
			m.keep.restored = true
			m.at, m.sel = m.x.World().Now, m.x.Spec.Featured
			showMoment(m, &t.At)
			m.flash = fmt.Sprintf("restored %s from %s", branchCount(n), shownPath(p))
		},
		fail: func(m *Model, err error) {
			m.flash = fmt.Sprintf("saved branches %s: %v: not restored, starting fresh", shownPath(p), errLine(err))
		}}
}

func errLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// errStale says a saved tree's incident no longer plays as it did.
var errStale = errors.New("the incident no longer plays as it did when they were saved (its file changed, or another version of inflight)")

// restoreTree makes t's branches on x, which holds only main, and puts
// the cursor where t's is.
func restoreTree(x *engine.Explorer, t savedtree.Tree) error {
	if len(x.Branches()) != 1 {
		return errors.New("the explorer already has branches")
	}
	bs := []*engine.Branch{x.Branches()[0]}
	for i, br := range t.Branches {
		f := br.Code.Forks[len(br.Code.Forks)-1]
		x.Switch(bs[br.Parent])
		x.Goto(f.Pos)
		if x.Pos() != f.Pos {
			return fmt.Errorf("branch %d forks at event %d, but its parent ends at event %d", i+1, f.Pos, x.Pos())
		}
		if fp32(x.World().Fingerprint()) != br.Code.Fingerprint {
			return errStale
		}
		b, err := x.Fork(engine.ForkOptions{Name: x.ForkNameOf(f), Pos: f.Pos, At: f.At, Set: f.Set, Override: f.Override, Faults: f.Faults})
		if err != nil {
			return fmt.Errorf("branch %d: %w", i+1, err)
		}
		if b.Parent != bs[br.Parent] {
			return fmt.Errorf("branch %d forks from branch %s, not %d as saved", i+1, b.Parent.Name, br.Parent)
		}
		bs = append(bs, b)
	}
	c := t.At
	x.Switch(bs[t.Cursor])
	if c.Cursor < 0 {
		x.End()
	} else if x.Goto(c.Cursor); x.Pos() != c.Cursor {
		return fmt.Errorf("the cursor is at event %d, but its branch ends at event %d", c.Cursor, x.Pos())
	}
	if fp32(x.World().Fingerprint()) != c.Fingerprint {
		return errStale
	}
	return nil
}

func fp32(fp uint64) uint32 { return uint32(fp >> 32) }

// treeOf is x's branch tree as a file keeps it, the cursor's moment the
// code c (the cursor's share code as the screen shows it). A tree of more
// than savedtree.MaxBranches keeps the first ones, the cursor going to
// main's start when its branch is not among them; dropped says how many
// were left out.
func treeOf(x *engine.Explorer, c engine.Code) (t savedtree.Tree, dropped int) {
	return treeOfMax(x, c, savedtree.MaxBranches)
}

// treeOfMax is treeOf keeping at most limit branches besides main (a
// reconnect's work keeps fewer to fit its size cap).
func treeOfMax(x *engine.Explorer, c engine.Code, limit int) (t savedtree.Tree, dropped int) {
	bs := x.Branches()
	if len(bs)-1 > limit {
		dropped = len(bs) - 1 - limit
		bs = bs[:limit+1]
	}
	num := make(map[*engine.Branch]int, len(bs))
	for i, b := range bs {
		num[b] = i
		if i == 0 {
			continue
		}
		code := branchLine(x, b)
		code.Fingerprint = fp32(x.WorldAt(b, b.ForkPos).Fingerprint()) // its fork point: the parent's state there
		t.Branches = append(t.Branches, savedtree.Branch{Parent: num[b.Parent], Code: code})
	}
	cur, ok := num[x.Branch()]
	if !ok {
		main := bs[0]
		cur, c = 0, engine.Code{Incident: x.Spec.ID, Seed: x.Seed, Set: x.Set, Fingerprint: fp32(x.WorldAt(main, 0).Fingerprint())}
	}
	t.Cursor, t.At = cur, c
	return t, dropped
}

// saveTrees writes the tree of every incident the session explored that
// has branches, each in its file; a tree the session restored and whose
// branches were all deleted since is removed. Run calls it when the
// program has ended, off the update loop (a tree is a few KB). It returns
// what went wrong, one line a file.
func (m Model) saveTrees() error {
	k := m.keep
	if k == nil {
		return nil
	}
	type held struct {
		x   *engine.Explorer
		at  engine.Code
		own bool // the incident the explorer was started on
	}
	var all []held
	if m.x != nil {
		all = append(all, held{m.x, m.momentCode(false), m.x.Spec == k.spec})
	}
	ids := make([]string, 0, len(m.kept))
	for id := range m.kept {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		e := m.kept[id]
		c := e.x.Code()
		if e.at != e.x.World().Now {
			c.At, c.HasAt = e.at, true
		}
		if e.sel != e.x.Spec.Featured {
			c.Sel, c.HasSel = e.sel, true
		}
		all = append(all, held{e.x, c, e.x.Spec == k.spec})
	}
	var errs []error
	for _, h := range all {
		if !h.own {
			if s, err := bundledSpec(h.x.Spec.ID); err != nil || s != h.x.Spec {
				continue // an incident that is neither the one started on nor bundled: no file to key it by
			}
		}
		p := k.path(h.x.Spec)
		if len(h.x.Branches()) == 1 {
			if h.own && k.restored { // every restored branch deleted: nothing left to offer
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("saved branches %s: %w", p, err))
				}
			}
			continue
		}
		if err := writeTree(p, h.x, h.at); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeTree saves x's tree at p, checked first by the parser that will
// read it: a file the next run could not read is never written.
func writeTree(p string, x *engine.Explorer, at engine.Code) error {
	t, dropped := treeOf(x, at)
	data := t.Format()
	if _, err := savedtree.Parse(data); err != nil {
		return fmt.Errorf("saved branches %s: not saved, the tree does not read back: %w", p, err)
	}
	if err := savedtree.Write(p, data); err != nil {
		return fmt.Errorf("saved branches %s: %w", p, err)
	}
	if dropped > 0 {
		return fmt.Errorf("saved branches %s: saved the first %d branches; %d more were left out", p, savedtree.MaxBranches, dropped)
	}
	return nil
}
