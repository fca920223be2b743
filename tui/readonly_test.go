package tui

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"inflight/engine"
)

// treeState is what a read-only key must leave as it was: the branch
// tree (each branch's name, parent, fork and share code, and the trace
// hash that code reopens to), the explorer itself, the cursor, the clock
// shown and the selection.
type treeState struct {
	x        *engine.Explorer
	branches []string
	hashes   []string
	cur, pos int64
	at       engine.Time
	sel      int32
}

func snapTree(t *testing.T, m Model) treeState {
	t.Helper()
	s := treeState{x: m.x, cur: int64(m.x.Branch().ID), pos: m.x.Pos(), at: m.at, sel: m.sel}
	for i, b := range m.x.Branches() {
		parent := -1
		if b.Parent != nil {
			parent = b.Parent.ID
		}
		// the branch's code at its end, made on a clone: reading it here
		// must not move the cursor either
		c := m.x.Clone()
		c.Switch(c.Branches()[i])
		c.End()
		code := c.Code()
		s.branches = append(s.branches, fmt.Sprintf("%d %q parent %d at event %d (%s) %s", b.ID, b.Name, parent, b.ForkPos, b.ForkAt.Short(), code))
		o, err := engine.OpenCode(code, m.x.Spec)
		if err != nil {
			t.Fatalf("branch %s's code %s does not open: %v", b.Name, code, err)
		}
		s.hashes = append(s.hashes, o.Summary(o.Branch()).TraceSHA256)
	}
	return s
}

// readOnlyActions are key sequences that only read, each back on the main
// view: compare (from the main view and from the branch list, with
// marks), a life story, the share code, the help, the branch list and the
// hunt's list opened and closed, scrolling on the way.
var readOnlyActions = [][]string{
	{"c", "esc"}, {"c", "down", "down", "up", "esc"},
	{"enter", "esc"}, {"enter", "down", "esc"},
	{"y", "esc"}, {"?"},
	{"b", "esc"}, {"b", "down", "esc"},
	{"b", "a", "down", "b", "c", "esc"}, {"b", "up", "a", "c", "esc"}, {"b", "down", "b", "c", "down", "esc"},
	{"x", "esc"}, {"x", "down", "esc"},
}

// randomTree forks r's choice of branches of m's explorer at random
// events with random knob changes or a decision's other outcome, then
// puts the cursor on a random branch at a random event and selects a
// published message.
func randomTree(t *testing.T, m Model, r *rand.Rand) Model {
	t.Helper()
	x := m.x
	knobs := [][2]string{{"visibility_timeout", "60s"}, {"visibility_timeout", "45s"}, {"late_ack", "accept"}, {"latency_max", "20s"}, {"max_receives", "5"}}
	for range 1 + r.IntN(4) {
		bs := x.Branches()
		b := bs[r.IntN(len(bs))]
		x.Switch(b)
		x.End()
		pos := b.ForkPos + 1 + r.Int64N(max(1, x.Pos()-b.ForkPos-1))
		x.Goto(pos)
		if r.IntN(3) == 0 { // a forced decision: the next one's other outcome
			if e, ok := x.NextDecision(); ok && e.Decision != nil {
				d := e.Decision
				v := d.Lo
				if v == d.Value {
					v = d.Hi
				}
				x.Goto(d.Pos)
				_, _ = x.Fork(engine.ForkOptions{Pos: d.Pos, At: x.World().Now, Override: &engine.DecisionOverride{Index: d.Index, Value: v}}) // refused: a smaller tree
			}
			continue
		}
		k := knobs[r.IntN(len(knobs))]
		st, err := engine.ParseSetting(k[0] + "=" + k[1])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{st}}) // refused: a smaller tree
	}
	bs := x.Branches()
	x.Switch(bs[r.IntN(len(bs))])
	x.End()
	x.Goto(r.Int64N(x.Pos() + 1))
	m.at = x.World().Now
	if n := x.World().Published(); n > 0 {
		m.sel = int32(r.IntN(n))
	}
	m.refresh(true)
	return m
}

// TestReadingNeverWrites: after any sequence of read-only keys on a
// random tree, the tree, the explorer, the cursor, the clock and the
// selection are as they were, and every branch's code reopens to the
// same trace hash.
func TestReadingNeverWrites(t *testing.T) {
	trials := 12
	if testing.Short() {
		trials = 4
	}
	for trial := range trials {
		r := rand.New(rand.NewPCG(uint64(trial), 23))
		m := randomTree(t, start(t), r)
		before := snapTree(t, m)
		var keys []string
		for range 2 + r.IntN(5) {
			a := readOnlyActions[r.IntN(len(readOnlyActions))]
			keys = append(keys, a[0])
			m = press(m, a[0])
			if m.state == stateMain { // no screen opened (news instead): the
				continue // rest would be the main view's keys, ↓ a selection
			}
			keys = append(keys, a[1:]...)
			m = press(m, a[1:]...)
			if m.state != stateMain {
				t.Fatalf("trial %d: after %v the screen is %s, not the main view", trial, keys, m.state)
			}
		}
		after := snapTree(t, m)
		if after.x != before.x {
			t.Errorf("trial %d: %v handed back another explorer", trial, keys)
		}
		if after.cur != before.cur || after.pos != before.pos || after.at != before.at || after.sel != before.sel {
			t.Errorf("trial %d: %v moved the cursor or the selection: branch %d event %d at %s sel %d, was branch %d event %d at %s sel %d",
				trial, keys, after.cur, after.pos, after.at.Short(), after.sel, before.cur, before.pos, before.at.Short(), before.sel)
		}
		if fmt.Sprint(after.branches) != fmt.Sprint(before.branches) {
			t.Errorf("trial %d: %v changed the tree:\nbefore %q\nafter  %q", trial, keys, before.branches, after.branches)
		}
		if fmt.Sprint(after.hashes) != fmt.Sprint(before.hashes) {
			t.Errorf("trial %d: %v changed what the codes reopen to:\nbefore %v\nafter  %v", trial, keys, before.hashes, after.hashes)
		}
	}
}

// The random trees are trees: some have forks of forks and forced
// decisions, so that the property is tested on more than main.
func TestRandomTreesBranch(t *testing.T) {
	deep, forced := 0, 0
	for trial := range 12 {
		m := randomTree(t, start(t), rand.New(rand.NewPCG(uint64(trial), 23)))
		for _, b := range m.x.Branches() {
			if len(b.Path()) > 2 {
				deep++
			}
			if b.Override != nil {
				forced++
			}
		}
	}
	if deep == 0 || forced == 0 {
		t.Fatalf("over 12 trees: %d forks of forks, %d forced decisions", deep, forced)
	}
}
