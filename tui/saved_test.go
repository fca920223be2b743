package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
	"inflight/internal/savedtree"
)

// withBranches is thursday with three branches, one a fork of another,
// the cursor on the last with its clock ahead of its event and another
// message selected.
func withBranches(t *testing.T, k *Keep) Model {
	t.Helper()
	m := newTest(t, Options{Keep: k}, 120, 40)
	if m.state != stateMain {
		t.Fatalf("opened on %s, with nothing saved", m.state)
	}
	m = press(m, "]", "]", "]", "f", "6", "0", "s", "enter") // visibility_timeout=60s
	m = press(m, "l", "l", "l", "f", "9", "0", "s", "enter") // a fork of it
	m = press(m, "b", "k", "k", "enter")                     // back on main: the cursor stays, the clock too
	m = press(m, "]", "f", "4", "5", "s", "enter", "l", "L", "j")
	if n := len(m.x.Branches()); n != 4 {
		t.Fatalf("%d branches, want 4: %s", n, m.flash)
	}
	return m
}

// A tree saved on quit comes back on the next start, after the offer:
// the same branches (their codes, names and parents), the cursor on the
// same branch at the same moment, and every branch replays to the trace
// hash it had.
func TestSavedTreeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := withBranches(t, &Keep{Dir: dir})
	if err := m.saveTrees(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "thursday.branches")
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	r := newTest(t, Options{Keep: &Keep{Dir: dir}}, 120, 40)
	if r.state != stateRestore || len(r.x.Branches()) != 1 {
		t.Fatalf("state %s, %d branches: no offer", r.state, len(r.x.Branches()))
	}
	if v := r.View(); !strings.Contains(v, "Restore your 3 branches from last time") {
		t.Fatalf("the offer is not on screen:\n%s", v)
	}
	r = press(r, "r")
	if r.state != stateMain || !strings.HasPrefix(r.flash, "restored 3 branches from ") {
		t.Fatalf("state %s, news %q", r.state, r.flash)
	}
	a, b := m.x.Branches(), r.x.Branches()
	if len(a) != len(b) {
		t.Fatalf("%d branches restored of %d", len(b), len(a))
	}
	for i := range a {
		if a[i].Name != b[i].Name || branchLine(m.x, a[i]).String() != branchLine(r.x, b[i]).String() ||
			(a[i].Parent == nil) != (b[i].Parent == nil) || a[i].Parent != nil && a[i].Parent.ID != b[i].Parent.ID {
			t.Errorf("branch %d: %s %s, restored as %s %s", i, a[i].Name, branchLine(m.x, a[i]), b[i].Name, branchLine(r.x, b[i]))
		}
		if ha, hb := m.x.Summary(a[i]).TraceSHA256, r.x.Summary(b[i]).TraceSHA256; ha != hb {
			t.Errorf("branch %s plays to %s, restored to %s", a[i].Name, ha, hb)
		}
	}
	if m.shareCode() != r.shareCode() || m.x.Branch().ID != r.x.Branch().ID {
		t.Errorf("cursor %s on %d, restored %s on %d", m.shareCode(), m.x.Branch().ID, r.shareCode(), r.x.Branch().ID)
	}
	// the restored tree's code reopens to the same trace
	c := parsedCode(t, r.shareCode())
	x, err := engine.OpenCode(*c, r.x.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if x.Summary(x.Branch()).TraceSHA256 != m.x.Summary(m.x.Branch()).TraceSHA256 {
		t.Error("the restored cursor's code opens another run")
	}
	// the restored session's quit writes the same file again
	before, _ := os.ReadFile(p)
	if err := r.saveTrees(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Errorf("saved again as\n%s\nnot\n%s", after, before)
	}
}

// --fresh starts on the lesson's run without the offer; a quit with
// branches still replaces the saved tree, and one without leaves it.
func TestSavedTreeFresh(t *testing.T) {
	dir := t.TempDir()
	if err := withBranches(t, &Keep{Dir: dir}).saveTrees(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "thursday.branches")
	saved, _ := os.ReadFile(p)
	m := newTest(t, Options{Keep: &Keep{Dir: dir, Fresh: true}}, 120, 40)
	if m.state != stateMain || m.flash != "" || len(m.x.Branches()) != 1 {
		t.Fatalf("--fresh: state %s, news %q", m.state, m.flash)
	}
	if err := m.saveTrees(); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(p); string(now) != string(saved) {
		t.Fatal("a fresh start without branches changed the saved tree")
	}
	m = press(m, "]", "f", "6", "0", "s", "enter")
	if err := m.saveTrees(); err != nil {
		t.Fatal(err)
	}
	if now, _ := readTree(p); len(now.Branches) != 1 {
		t.Fatalf("the fresh start's branch did not replace the tree: %d branches", len(now.Branches))
	}
	// n at the offer is the same as --fresh
	m = press(newTest(t, Options{Keep: &Keep{Dir: dir}}, 120, 40), "n")
	if m.state != stateMain || len(m.x.Branches()) != 1 || !strings.HasPrefix(m.flash, "started fresh") {
		t.Fatalf("n: state %s, %d branches, news %q", m.state, len(m.x.Branches()), m.flash)
	}
	// q at the offer quits
	m = newTest(t, Options{Keep: &Keep{Dir: dir}}, 120, 40)
	if _, cmd := m.Update(keyMsg("q")); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q at the offer does not quit")
	}
}

// A restored tree whose branches are all deleted leaves nothing to offer.
func TestSavedTreeAllDeleted(t *testing.T) {
	dir := t.TempDir()
	if err := withBranches(t, &Keep{Dir: dir}).saveTrees(); err != nil {
		t.Fatal(err)
	}
	m := press(newTest(t, Options{Keep: &Keep{Dir: dir}}, 120, 40), "r")
	for bs := m.x.Branches(); len(bs) > 1; bs = m.x.Branches() {
		if err := m.x.DeleteBranch(bs[len(bs)-1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.saveTrees(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "thursday.branches")); !os.IsNotExist(err) {
		t.Fatalf("the emptied tree's file is still there: %v", err)
	}
}

// A saved file that is bad or stale is reported in one line naming the
// file, and the explorer starts fresh; the file is left for the user.
func TestSavedTreeRefused(t *testing.T) {
	good := func(t *testing.T, dir string) string {
		if err := withBranches(t, &Keep{Dir: dir}).saveTrees(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "thursday.branches"))
		return string(data)
	}
	for _, tc := range []struct {
		name  string
		edit  func(string) string
		opt   Options
		offer bool
		want  string
	}{
		{name: "garbage", edit: func(string) string { return "\x1b]52;c;aGk=\x07 not a tree\n" }, want: "line 1: want"},
		{name: "cut short", edit: func(s string) string { return s[:len(s)/2] }, want: "cut short"},
		{name: "another seed", edit: func(s string) string { return s }, opt: Options{Seed: 7, SeedSet: true}, want: "are of thursday@1, not this run"},
		{name: "stale branch", offer: true, want: "no longer plays as it did", edit: func(s string) string {
			i := strings.Index(s, "branch 0 ")
			j := i + strings.Index(s[i:], "#")
			k := j + strings.Index(s[j:], ".") + 1
			return s[:k] + "00000000" + s[k+8:]
		}},
		{name: "stale cursor", offer: true, want: "no longer plays as it did", edit: func(s string) string {
			i := strings.Index(s, "cursor ")
			j := i + strings.Index(s[i:], "#")
			k := j + strings.Index(s[j:], ".") + 1
			return s[:k] + "00000000" + s[k+8:]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := tc.edit(good(t, dir))
			p := filepath.Join(dir, "thursday.branches")
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			o := tc.opt
			o.Keep = &Keep{Dir: dir}
			m := newTest(t, o, 120, 40)
			if tc.offer {
				if m.state != stateRestore {
					t.Fatalf("no offer: %q", m.flash)
				}
				m = press(m, "r")
			}
			if m.state != stateMain || len(m.x.Branches()) != 1 || !strings.Contains(m.flash, p) || !strings.Contains(m.flash, tc.want) || strings.Contains(m.flash, "\n") {
				t.Fatalf("state %s, %d branches, news %q; want one line naming %s with %q", m.state, len(m.x.Branches()), m.flash, p, tc.want)
			}
			if strings.Contains(m.View(), "\x1b]") {
				t.Fatal("the file's escape reached the screen")
			}
			if now, _ := os.ReadFile(p); string(now) != data {
				t.Fatal("the refused file was changed")
			}
		})
	}
}

// Under serve nothing is read from or written to the server's state
// directory: NewSession drops the Keep it is given, so an attendee is
// offered nothing, and the session's end saves nothing.
func TestSavedTreeNotUnderServe(t *testing.T) {
	dir := t.TempDir()
	if err := withBranches(t, &Keep{Dir: dir}).saveTrees(); err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(Options{Keep: &Keep{Dir: dir}, Renderer: asciiRenderer()})
	if err != nil {
		t.Fatal(err)
	}
	m := s.(*session).m
	if m.keep != nil || m.state != stateMain {
		t.Fatalf("a session keeps its tree: state %s", m.state)
	}
	m = press(resize(m, 120, 40), "]", "f", "6", "0", "s", "enter")
	if err := m.saveTrees(); err != nil {
		t.Fatal(err)
	}
	if t2, _ := readTree(filepath.Join(dir, "thursday.branches")); len(t2.Branches) != 3 {
		t.Fatal("a session's end wrote the state directory")
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("%d files in the state directory", len(es))
	}
}

// An incident file's tree is kept apart from the bundled incident's.
func TestSavedTreeByFile(t *testing.T) {
	k := &keeper{Keep: Keep{Dir: "/s", File: "/x/thursday.yaml"}, spec: specOf(t, "thursday")}
	if p := k.path(k.spec); p == "/s/thursday.branches" || !strings.HasPrefix(p, "/s/thursday-file-") {
		t.Errorf("an incident file's tree at %s", p)
	}
	if p := k.path(specOf(t, "thursday-fixed")); p != filepath.Join("/s", savedtree.Name("thursday-fixed", "")) {
		t.Errorf("a bundled one's at %s", p)
	}
}

// The incidents opened with i are saved too, each in its own file, and
// the one the explorer was started on under its own name.
func TestSavedTreeEveryIncident(t *testing.T) {
	dir := t.TempDir()
	m := press(newTest(t, Options{Keep: &Keep{Dir: dir}}, 120, 40), "]", "f", "6", "0", "s", "enter")
	m = pickIncident(t, m, "thursday-fixed")
	m = press(m, "]", "f", "6", "0", "s", "enter")
	if err := m.saveTrees(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"thursday", "thursday-fixed"} {
		tr, err := readTree(filepath.Join(dir, id+".branches"))
		if err != nil || len(tr.Branches) != 1 || tr.At.Incident != id {
			t.Errorf("%s: %d branches, %v", id, len(tr.Branches), err)
		}
	}
	// thursday-fixed, started by its id, offers its tree back
	if r := newTest(t, Options{Spec: specOf(t, "thursday-fixed"), Keep: &Keep{Dir: dir}}, 120, 40); r.state != stateRestore {
		t.Fatalf("no offer for thursday-fixed: %q", r.flash)
	}
}

// The offer, one line over the lesson's run, at 120 and 80 columns.
func TestSavedTreeOfferGolden(t *testing.T) {
	dir := t.TempDir()
	if err := withBranches(t, &Keep{Dir: dir}).saveTrees(); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newTest(t, Options{Keep: &Keep{Dir: dir}}, size[0], size[1])
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}
