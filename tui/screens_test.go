package tui

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
	"inflight/incidents"
	"inflight/stage"
)

// goldenSizes are the terminal sizes every incident's screens are pinned at.
var goldenSizes = [][2]int{{80, 24}, {120, 40}, {200, 60}}

// TestIncidentGoldens pins every bundled incident's start, each of its
// bookmarks and its first exercise's comparison with main at 80×24, 120×40 and 200×60: update with
// go test ./tui -run TestIncidentGoldens -update
func TestIncidentGoldens(t *testing.T) {
	if testing.Short() {
		t.Skip("every incident at three sizes")
	}
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		screens := [][2]string{{"start", ""}}
		keys := ""
		for i := range spec.Bookmarks {
			keys = strings.TrimSpace(keys + " ]")
			screens = append(screens, [2]string{fmt.Sprintf("bookmark%d", i+1), keys})
		}
		screens = append(screens, [2]string{"fork", strings.TrimSpace(firstBookmark(spec) + " f")})
		if len(spec.Exercises) > 0 { // the first exercise compared with main
			screens = append(screens, [2]string{"compare", "e " + spec.Exercises[0].Key + " c"})
		}
		for _, size := range goldenSizes {
			for _, s := range screens {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", id, size[0], size[1], s[0]), func(t *testing.T) {
					golden.RequireEqual(t, []byte(viewAfterOn(t, Options{Spec: spec}, size[0], size[1], keysOf(s[1])...)))
				})
			}
		}
	}
}

// TestNoCutWords fails if a golden screen cuts a caption, a story, the
// status line or a pane's title or row: no line but the header's, and no
// pane's part of a line (up to its " │ " separator), may end in "…". Words
// wrap or scroll instead.
func TestNoCutWords(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden") {
			return err
		}
		if strings.Contains(path, "toosmall") || strings.Contains(path, "fork") || strings.Contains(path, "help") {
			return nil // not a screen of words: the fork form (its own goldens), the key list
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for i, l := range strings.Split(string(b), "\n") {
			if i == 0 {
				continue // the header's title
			}
			// a pane's title and rows end at the separator: each is whole
			for _, seg := range strings.Split(l, " │ ") {
				if strings.HasSuffix(strings.TrimRight(seg, " "), "…") {
					t.Errorf("%s:%d: cut: %q", path, i+1, strings.TrimRight(seg, " "))
				}
			}
			// nor is a text cut before a column of counts (a question's
			// choice beside the room's tally)
			if cutBeforeCount.MatchString(l) {
				t.Errorf("%s:%d: cut before a count: %q", path, i+1, strings.TrimRight(l, " "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d goldens read", n)
	}
}

var cutBeforeCount = regexp.MustCompile(`…\s+\d`)

// TestHeaderHoldsStill: the header's clock is whole past 100 h, and the
// play label takes the same width at every state and speed, so nothing
// right of it moves.
func TestHeaderHoldsStill(t *testing.T) {
	if got := headerClock(engine.Time(123*engine.Hour + 4*engine.Minute + 5*engine.Second + 678)); got != "123:04:05" {
		t.Errorf("headerClock = %q, want 123:04:05", got)
	}
	if got := headerClock(engine.Time(19*engine.Hour + 52*engine.Minute)); got != "19:52:00" {
		t.Errorf("headerClock = %q, want 19:52:00", got)
	}
	w := -1
	for i := range speeds {
		for _, on := range []bool{false, true} {
			lw := lipgloss.Width(player{on: on, speed: i}.paddedLabel())
			if w >= 0 && lw != w {
				t.Errorf("speed %d on=%v: label %d cells wide, others %d", i, on, lw, w)
			}
			w = lw
		}
	}
}

// TestPaneClocksHoldStill: a pane row that starts with a clock starts with
// a whole one (12 cells, milliseconds shown even when zero), so its column
// does not shift as the clock changes (cashback's 10:01:08 above
// 10:01:09.575).
func TestPaneClocksHoldStill(t *testing.T) {
	for _, id := range []string{"cashback", "fifo-window", "kafka-restart"} {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		check := func(w *engine.World) {
			for _, p := range w.Family().Panes(w, engine.CursorOf(w)) {
				for _, r := range p.Rows {
					f := strings.Fields(r.Text)
					if len(f) == 0 || !strings.Contains(f[0], ":") || f[0][0] < '0' || f[0][0] > '9' {
						continue
					}
					rows++
					if len(f[0]) != len("10:00:00.000") {
						t.Errorf("%s: row %q starts with a clock of %d cells", id, r.Text, len(f[0]))
					}
				}
			}
		}
		n := 0
		for w.Step(nil) {
			if n++; n%500 == 0 {
				check(w)
			}
		}
		check(w)
		if rows == 0 {
			t.Errorf("%s: no row starts with a clock", id)
		}
	}
}

// TestWrappedRowSelects: a pane row too long for its pane wraps instead of
// ending in "…", and a click on either of its lines selects its message
// (thursday's superseded call, one cut line in the old screens).
func TestWrappedRowSelects(t *testing.T) {
	m := press(newTest(t, Options{}, 120, 40), "]", "]", "]", "]")
	click := func(y int) {
		r := m.mainView().layout().panes[1]
		nm, _ := m.Update(tea.MouseMsg{X: r.x + 3, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		m = nm.(Model)
	}
	find := func(s string) int {
		r := m.mainView().layout().panes[1]
		lines := strings.Split(m.View(), "\n")
		for y := r.y; y < r.y+r.h; y++ {
			if strings.Contains(ansi.Strip(ansi.Cut(lines[y], r.x, r.x+r.w)), s) {
				return y
			}
		}
		t.Fatalf("no %q in the in-flight pane:\n%s", s, m.View())
		return -1
	}
	if row := find("SUPERSEDED"); find("still calling") != row+1 {
		t.Fatalf("the superseded row did not wrap onto a second line:\n%s", m.View())
	}
	click(find("order 15"))
	if m.sel != 15 {
		t.Fatalf("click on order 15's row selected %d", m.sel)
	}
	click(find("still calling"))
	if m.sel != 14 {
		t.Fatalf("click on the superseded row's second line selected %d, want 14", m.sel)
	}
}

// TestColumnsHoldStill steps through incidents and asserts that nothing
// moves sideways as values change width: the status line's labels stay in
// their columns (its numbers right-aligned in their run-wide widths), the
// header's clock and branch stay put, and every clock that starts a pane
// row is a whole 12-cell one.
func TestColumnsHoldStill(t *testing.T) {
	clock := regexp.MustCompile(`^[0-9]{2}:[0-9]{2}:[0-9]{2}\S*`)
	for _, id := range []string{"thursday", "christmas-friday", "cashback"} {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		m := newTest(t, Options{Spec: spec}, 120, 40)
		cols := map[string]int{}
		check := func(step string) {
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			at := func(line, label string) {
				i := strings.Index(line, label)
				if i < 0 {
					return
				}
				c := ansi.StringWidth(line[:i])
				if was, ok := cols[label]; ok && was != c {
					t.Errorf("%s after %s: %q moved from column %d to %d:\n%s", id, step, label, was, c, line)
				}
				cols[label] = c
			}
			at(lines[0], "⎇")
			at(lines[0], "paused")
			for _, l := range lines {
				if strings.HasPrefix(l, "oldest ") {
					for _, label := range []string{"busy ", "emails ", "effects ", "dups ", "lost ", "DLQ ", "alert · "} {
						at(l, label)
					}
				}
				for _, seg := range strings.Split(l, " │ ") {
					f := strings.TrimLeft(seg, " ›")
					if c := clock.FindString(f); c != "" && len(c) != len("10:00:00.000") {
						t.Errorf("%s after %s: a pane row starts with the clock %q:\n%s", id, step, c, seg)
					}
				}
			}
		}
		check("start")
		for i := range spec.Bookmarks {
			m = press(m, "]")
			check(fmt.Sprintf("bookmark %d", i+1))
			for j := range 5 {
				m = press(m, "l")
				check(fmt.Sprintf("bookmark %d and %d steps", i+1, j+1))
			}
		}
		m = press(m, "G")
		check("the end")
	}
}

// firstBookmark is the key that goes to spec's first bookmark, if it has one.
func firstBookmark(spec *engine.Spec) string {
	if len(spec.Bookmarks) > 0 {
		return "]"
	}
	return ""
}

// TestForkHintOnScreen: at 80×24 the fork form's way out ("enter creates
// … esc cancels") is on screen for every incident, wherever the focus is.
func TestForkHintOnScreen(t *testing.T) {
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		m := press(newTest(t, Options{Spec: spec}, 80, 24), keysOf(firstBookmark(spec)+" f")...)
		for i := range 30 {
			v := m.View()
			if !strings.Contains(v, "enter creates") || !strings.Contains(v, "esc cancels") {
				t.Fatalf("%s, %d rows down: the form's hint is off screen:\n%s", id, i, v)
			}
			m = press(m, "down")
		}
	}
}

// TestOwnCopyBadgeYields: under a stage, the "[own copy: F follows]" badge
// shortens, then goes, rather than push the incident's title off the
// header at 80 and 60 columns.
func TestOwnCopyBadgeYields(t *testing.T) {
	for _, c := range []struct {
		w     int
		badge string
	}{{120, "[own copy: F follows]"}, {80, "[own copy]"}, {60, ""}} {
		h := newTest(t, Options{Stage: NewStage()}, c.w, 24).mainView().viewHeader()
		if !strings.HasPrefix(h, "Marlow Books, Thursday") {
			t.Errorf("%d columns: the title is pushed off: %q", c.w, h)
		}
		if c.badge != "" && !strings.Contains(h, c.badge) || c.badge == "" && strings.Contains(h, "[own") {
			t.Errorf("%d columns: want badge %q: %q", c.w, c.badge, h)
		}
		if lipgloss.Width(h) != c.w {
			t.Errorf("%d columns: header %d wide", c.w, lipgloss.Width(h))
		}
	}
}

// TestScreenTable: every state has a row in the screens' table, under a
// name of its own; every screen but the main view is a component, and
// every screen the stage keeps opens again, on another session, from what
// the stage kept of it: adding a screen is adding a row.
func TestScreenTable(t *testing.T) {
	names := map[string]bool{}
	for s := range numStates {
		d := screens[s]
		if d.name == "" || names[d.name] {
			t.Errorf("state %d: name %q missing or taken", s, d.name)
		}
		names[d.name] = true
		if (d.of == nil) != (s == stateMain) {
			t.Errorf("%s: a component only for the main view's absence", s)
		}
		if (d.save == nil) != (d.open == nil) {
			t.Errorf("%s: kept by the stage without opening from it, or the reverse", s)
		}
	}
	// a branch to compare with main, and a message published for its story
	session := func() Model { return press(newTest(t, Options{}, 120, 40), "]", "]", "]", "f", "enter") }
	for s := range numStates {
		d := screens[s]
		if d.save == nil {
			continue
		}
		m := session()
		m.openScreen(stage.Screen{Kind: d.name}) // through the table
		m = settle(m)
		st, ok := m.state.staged(&m)
		if m.state != s || !ok || st.Kind != d.name {
			t.Fatalf("%s: opened from the stage, the state is %s (kept as %+v)", d.name, m.state, st)
		}
		o := session()
		o.openScreen(st)
		if o = settle(o); o.state != s || o.View() != m.View() {
			t.Errorf("%s: another session opens it as %s:\n%s\nnot\n%s", d.name, o.state, o.View(), m.View())
		}
	}
}
