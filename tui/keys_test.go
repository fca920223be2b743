package tui

import (
	"bytes"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"inflight/engine"
)

func clock(t *testing.T, s string) engine.Time {
	t.Helper()
	c, err := engine.ParseClock(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func start(t *testing.T) Model { return newTest(t, Options{}, 120, 40) }

func TestStepKeys(t *testing.T) {
	m := start(t)
	for _, k := range []string{"l", "right"} {
		p := m.x.Pos()
		m = press(m, k)
		if m.x.Pos() != p+1 {
			t.Fatalf("%s: pos %d, want %d", k, m.x.Pos(), p+1)
		}
	}
	for _, k := range []string{"h", "left"} {
		p := m.x.Pos()
		m = press(m, k)
		if m.x.Pos() != p-1 {
			t.Fatalf("%s: pos %d, want %d", k, m.x.Pos(), p-1)
		}
	}
	m = press(m, "h", "h")
	if m.x.Pos() != 0 || !strings.Contains(m.flash, "first event") {
		t.Fatalf("back at 0: pos %d flash %q", m.x.Pos(), m.flash)
	}
}

func TestTickKeys(t *testing.T) {
	m := press(start(t), "]") // 19:52:00
	at := m.at
	m = press(m, "L")
	if m.at != at+engine.Second || m.x.World().Now > m.at {
		t.Fatalf("L: at %s now %s", m.at.Short(), m.x.World().Now.Short())
	}
	m = press(m, "L", "L", "H")
	if m.at != at+2*engine.Second {
		t.Fatalf("LLH: at %s", m.at.Short())
	}
	for i := 0; i < 40; i++ { // ticks never stick on a quiet stretch
		m = press(m, "L")
	}
	if m.at != at+42*engine.Second {
		t.Fatalf("40 L: at %s", m.at.Short())
	}
}

func TestDecisionKeys(t *testing.T) {
	m := press(start(t), "n")
	last := m.snap.recent[len(m.snap.recent)-1]
	if last.Decision == nil || !strings.HasPrefix(m.flash, "decision:") {
		t.Fatalf("n: last event %+v, flash %q", last.Event, m.flash)
	}
	p := m.x.Pos()
	m = press(m, "n", "n", "N")
	if m.x.Pos() <= p || m.snap.recent[len(m.snap.recent)-1].Decision == nil {
		t.Fatalf("nnN: pos %d", m.x.Pos())
	}
}

func TestBookmarkKeys(t *testing.T) {
	m := start(t)
	for _, b := range m.x.Spec.Bookmarks {
		m = press(m, "]")
		if m.at != b.At {
			t.Fatalf("]: at %s, want %s", m.at.Short(), b.At.Short())
		}
		if e := m.snap.recent[len(m.snap.recent)-1]; e.Event.T != b.At {
			t.Fatalf("] %s: last event at %s, want everything at the bookmark done", b.At.Short(), e.Event.T.Short())
		}
		if !strings.Contains(m.View(), b.Title) {
			t.Fatalf("] %s: view lacks the bookmark title", b.At.Short())
		}
	}
	m = press(m, "]")
	if !strings.Contains(m.flash, "no more bookmarks") {
		t.Fatalf("past the last: %q", m.flash)
	}
	m = press(m, "[")
	if want := m.x.Spec.Bookmarks[3].At; m.at != want {
		t.Fatalf("[: at %s, want %s", m.at.Short(), want.Short())
	}
}

func TestSpeedAndPlay(t *testing.T) {
	m := start(t)
	s := m.play.speed
	m = press(m, "+")
	if m.play.speed != s+1 {
		t.Fatal("+ did not speed up")
	}
	m = press(m, "-", "-")
	if m.play.speed != s-1 {
		t.Fatal("- did not slow down")
	}
	nm, cmd := m.Update(keyMsg("space"))
	m = nm.(Model)
	if !m.play.on || cmd == nil {
		t.Fatal("space did not start playing")
	}
	at := m.at
	nm, _ = m.Update(playTickMsg{gen: m.play.gen})
	m = nm.(Model)
	if m.at <= at {
		t.Fatal("a tick did not advance the clock")
	}
	stale := m.play.gen
	m = press(m, "space")
	if m.play.on {
		t.Fatal("space did not pause")
	}
	at = m.at
	nm, cmd = m.Update(playTickMsg{gen: stale})
	if nm.(Model).at != at || cmd != nil {
		t.Fatal("a stale tick moved the clock")
	}
}

func TestPlayNeverRunsPastTheNextEvent(t *testing.T) {
	m := press(start(t), "-", "-", "-") // 1×
	m = press(m, "space")
	for i := 0; i < 40; i++ { // two seconds of 1× play
		nm, _ := m.Update(playTickMsg{gen: m.play.gen})
		m = nm.(Model)
		if m.x.World().Now > m.at {
			t.Fatalf("tick %d: showing an event at %s before the clock %s reaches it", i, m.x.World().Now.Clock(), m.at.Clock())
		}
	}
}

func TestStartEndKeys(t *testing.T) {
	m := press(start(t), "G")
	if !m.x.AtEnd() {
		t.Fatal("G: not at the end")
	}
	m = press(m, "g")
	if m.x.Pos() != 0 {
		t.Fatal("g: not at the start")
	}
	m = press(m, "end")
	if !m.x.AtEnd() {
		t.Fatal("end: not at the end")
	}
}

func TestJumpKey(t *testing.T) {
	m := press(start(t), "/")
	if m.state != stateJump {
		t.Fatal("/ did not open the jump input")
	}
	m = typeText(m, "19:52:30")
	m = press(m, "enter")
	if want := clock(t, "19:52:30"); m.at != want || m.x.World().Now >= want {
		t.Fatalf("jump: at %s, last event %s", m.at.Clock(), m.x.World().Now.Clock())
	}
	m = typeText(press(m, "/"), "nonsense")
	m = press(m, "enter")
	if !strings.Contains(m.flash, "clock") {
		t.Fatalf("bad clock: flash %q", m.flash)
	}
}

// A jump outside the run is refused as the CLI's --at is: before the
// start at once, after the end once the branch's end is known.
func TestJumpOutsideTheRun(t *testing.T) {
	m := press(typeText(press(start(t), "/"), "19:00"), "enter")
	if !strings.Contains(m.flash, "before the incident starts") || m.x.World().Pos != 0 {
		t.Fatalf("/ 19:00: flash %q, at event %d", m.flash, m.x.World().Pos)
	}
	m = press(typeText(press(m, "/"), "25:00"), "enter")
	if !strings.Contains(m.flash, "after the branch ends (21:11:07") || !m.x.AtEnd() || m.at != m.x.World().Now {
		t.Fatalf("/ 25:00: flash %q, at %s, at end %v", m.flash, m.at.Clock(), m.x.AtEnd())
	}
}

func TestForkDecision(t *testing.T) {
	m := press(start(t), "]", "]", "]", "f")
	if m.state != stateFork || m.fork.dec == nil {
		t.Fatal("f: no fork form with a decision")
	}
	if !strings.Contains(m.View(), "late ack for order 14") {
		t.Fatal("fork form does not show the decision at the cursor")
	}
	if m.fork.row != 1 || m.fork.knobs[0].Name != "visibility_timeout" {
		t.Fatalf("focus on row %d, not on visibility_timeout", m.fork.row)
	}
	m = press(m, "up", "right", "right") // ↑ wraps to the decision; as it was → refuse → accept
	m = press(m, "enter")
	if m.state != stateMain || len(m.x.Branches()) != 2 {
		t.Fatalf("fork: state %s, %d branches", m.state, len(m.x.Branches()))
	}
	b := m.x.Branch()
	if b.Override == nil || b.Override.Value != 1 || !strings.Contains(m.mainView().viewHeader(), "main ▸") {
		t.Fatalf("fork: override %+v, header %q", b.Override, m.mainView().viewHeader())
	}
	m = press(m, "G")
	if got := m.x.World().Stats.Effects; got >= 324 {
		t.Fatalf("accepting the late ack still sends %d emails", got)
	}
}

// TestReadmeForkInTenKeys plays the README's fork — "raise the visibility
// timeout to 60 s from 19:52" — from the start screen and counts the keys.
func TestReadmeForkInTenKeys(t *testing.T) {
	keys := []string{"]", "f", "6", "0", "s", "enter"}
	if len(keys) > 10 {
		t.Fatalf("%d keystrokes", len(keys))
	}
	m := press(start(t), keys...)
	if m.state != stateMain {
		t.Fatalf("state %s: %s", m.state, m.fork.err)
	}
	b := m.x.Branch()
	if b.Parent == nil || b.ForkAt != clock(t, "19:52:00") || len(b.Changes) != 1 || b.Changes[0] != (engine.Setting{Knob: "visibility_timeout", Value: "60s"}) || b.Override != nil {
		t.Fatalf("branch %q at %s: changes %+v, override %+v", b.Name, b.ForkAt.Short(), b.Changes, b.Override)
	}
	if h := m.mainView().viewHeader(); !strings.Contains(h, "visibility_timeout=60s") {
		t.Fatalf("header %q", h)
	}
	// the change takes effect with the branch's next event
	m = press(m, "l", "l")
	if vt, _ := engine.LookupKnob("visibility_timeout"); vt.Get(&m.x.World().Knobs) != engine.FormatDuration(60*engine.Second) {
		t.Fatalf("visibility timeout in force %v", vt.Get(&m.x.World().Knobs))
	}
	// the form on the branch shows the value as written, not 1m0s
	m = press(m, "f")
	if v := m.fork.inputs[0].Value(); v != "60s" {
		t.Fatalf("the form shows %q", v)
	}
}

// TestForkFormFilterAndDecision: ↑/↓ wrap, `/` filters knobs by name, and a
// decision takes a typed value outside the choices offered.
func TestForkFormFilterAndDecision(t *testing.T) {
	m := press(start(t), "]", "]", "]", "f")
	rows := m.fork.rows()
	m = press(m, "up")
	if m.fork.row != 0 {
		t.Fatalf("↑ from the first knob: row %d", m.fork.row)
	}
	m = press(m, "up")
	if m.fork.row != rows[len(rows)-1] {
		t.Fatalf("↑ from the top does not wrap: row %d", m.fork.row)
	}
	m = press(m, "down")
	if m.fork.row != 0 {
		t.Fatalf("↓ from the bottom does not wrap: row %d", m.fork.row)
	}
	m = press(m, "/")
	m = typeText(m, "heart")
	m = press(m, "enter")
	if k := m.fork.knobs[m.fork.row-1].Name; k != "heartbeat" || len(m.fork.rows()) != 3 {
		t.Fatalf("filter heart: on %s, rows %v", k, m.fork.rows())
	}
	if v := m.View(); strings.Contains(v, "latency_min") {
		t.Fatal("the filter shows other knobs")
	}
	m = press(m, "esc")
	if m.state != stateFork || len(m.fork.rows()) != len(rows) {
		t.Fatal("esc did not clear the filter first")
	}
}

// TestForkDecisionTyped forces a provider latency to a typed value
// outside the knobs' range, which the form shows.
func TestForkDecisionTyped(t *testing.T) {
	m := start(t)
	for i := 0; i < 50; i++ {
		m = press(m, "n", "f")
		if m.fork.dec != nil && m.fork.dec.Decision.Kind == engine.DecLatency {
			break
		}
		m = press(m, "esc")
	}
	if m.fork.dec == nil || m.fork.dec.Decision.Kind != engine.DecLatency {
		t.Fatal("no latency decision")
	}
	if v := m.View(); !strings.Contains(v, "the knobs allow 31 s–40 s") {
		t.Fatalf("the form does not show the range:\n%s", v)
	}
	m = press(m, "up")
	m = typeText(m, "5s")
	m = press(m, "enter")
	b := m.x.Branch()
	if m.state != stateMain || b.Override == nil || b.Override.Value != int64(5*engine.Second) {
		t.Fatalf("state %s (%s), override %+v", m.state, m.fork.err, b.Override)
	}
	if !strings.Contains(b.Name, "latency=5s") {
		t.Fatalf("branch name %q", b.Name)
	}
}

func TestForkKnob(t *testing.T) {
	m := press(start(t), "/")
	m = typeText(m, "19:52:00")
	m = press(m, "enter", "f")
	// the focus is on visibility_timeout, the featured knob; typing
	// replaces its value
	m = typeText(m, "60s")
	if v := m.fork.inputs[0].Value(); v != "60s" {
		t.Fatalf("typed 60s over 30s: %q", v)
	}
	m = press(m, "up", "up") // wraps: the decision, then the name
	m = typeText(m, "vt60")
	m = press(m, "enter")
	if m.state != stateMain {
		t.Fatalf("fork form still open: %s", m.fork.err)
	}
	b := m.x.Branch()
	if b.Name != "vt60" || b.ForkAt != clock(t, "19:52:00") || len(b.Changes) != 1 || b.Changes[0].Value != "60s" {
		t.Fatalf("branch %q at %s changes %+v", b.Name, b.ForkAt.Short(), b.Changes)
	}
	if h := m.mainView().viewHeader(); !strings.Contains(h, "main ▸ vt60 @19:52:00") {
		t.Fatalf("header %q", h)
	}
	// a bad value stays in the form with its error
	m = press(m, "f", "down")
	m = typeText(m, "rx") // late_ack: a choice's first letter, then not one (a letter no choice starts with would filter the knobs)
	m = press(m, "enter")
	if m.state != stateFork || m.fork.err == "" {
		t.Fatal("a bad knob value was accepted")
	}
	m = press(m, "esc")
	if m.state != stateMain {
		t.Fatal("esc did not close the form")
	}
}

func TestBranchKeys(t *testing.T) {
	m := press(start(t), "tab")
	if !strings.Contains(m.flash, "only one branch") {
		t.Fatal("tab with one branch")
	}
	m = press(m, "e", "1")
	if len(m.x.Branches()) != 2 || m.exercise == nil {
		t.Fatal("exercise 1 made no branch")
	}
	m = press(m, "tab")
	if m.x.Branch() != m.x.Branches()[0] {
		t.Fatal("tab did not switch to main")
	}
	m = press(m, "b")
	if m.state != stateBranches || !strings.Contains(m.View(), "exercise 1") {
		t.Fatal("b: no branch list")
	}
	m = press(m, "down", "enter")
	if m.x.Branch() != m.x.Branches()[1] {
		t.Fatal("b enter did not switch")
	}
}

func TestCompareKey(t *testing.T) {
	m := press(start(t), "c")
	if m.state != stateMain || !strings.Contains(m.flash, "no parent") {
		t.Fatal("c on main alone")
	}
	m = press(m, "e", "1", "c")
	if m.state != stateCompare {
		t.Fatal("c did not open compare")
	}
	v := m.View()
	for _, want := range []string{"324", "First divergence", "3: 19:52:00, 19:52:30, 19:53:00", "2: 19:52:00, 19:52:30"} {
		if !strings.Contains(v, want) {
			t.Fatalf("compare lacks %q:\n%s", want, v)
		}
	}
	m = press(m, "esc")
	if m.state != stateMain {
		t.Fatal("esc did not close compare")
	}
}

func TestExercisesKey(t *testing.T) {
	m := press(start(t), "e")
	if m.state != stateExercises || !strings.Contains(m.View(), "late acknowledgement") {
		t.Fatal("e: no exercise list")
	}
	m = press(m, "down", "enter")
	ex := m.x.Spec.Exercises[1]
	if m.exercise == nil || m.exercise.Key != ex.Key || m.x.Branch().ForkAt != ex.At {
		t.Fatalf("exercise 2: %+v at %s", m.exercise, m.x.Branch().ForkAt.Short())
	}
	m = press(m, "e")
	if !strings.Contains(m.View(), "Answer:") {
		t.Fatal("a tried exercise shows no answer")
	}
}

func TestStoryKey(t *testing.T) {
	m := press(start(t), "]", "]", "]", "enter")
	if m.state != stateStory || m.story.id != 14 {
		t.Fatalf("enter: state %s story of %d", m.state, m.story.id)
	}
	kinds := map[engine.Kind]int{}
	for _, e := range m.story.events {
		kinds[e.Event.Kind]++
	}
	if kinds[engine.EvDeliver] != 3 || kinds[engine.EvEffect] != 3 || kinds[engine.EvDLQ] != 1 || kinds[engine.EvAckRefused] != 3 {
		t.Fatalf("order 14's life: %v", kinds)
	}
	if !strings.Contains(m.View(), "the cursor") {
		t.Fatal("no cursor line in the story")
	}
	m = press(m, "esc")
	// nothing published yet: the story says so
	m = press(m, "g", "enter")
	if m.state == stateStory {
		t.Fatal("a story of an unpublished order")
	}
}

func TestSelectKeys(t *testing.T) {
	m := press(start(t), "]", "]", "]", "]", "]")
	first := m.sel
	m = press(m, "j")
	if m.sel == first {
		t.Fatal("j did not move the selection")
	}
	m = press(m, "k")
	if m.sel != first {
		t.Fatalf("k: sel %d, want %d", m.sel, first)
	}
	m = press(m, "down", "enter")
	if m.state != stateStory || m.story.id != m.sel {
		t.Fatal("enter on a selected message")
	}
}

func TestCodeKeyAndOpen(t *testing.T) {
	m := press(start(t), "]", "]", "]", "f", "right", "right", "enter", "l", "l", "y")
	if m.state != stateCode {
		t.Fatal("y: no code")
	}
	code := m.x.Code().String()
	if !strings.Contains(strings.ReplaceAll(m.View(), "\n", ""), code[:20]) {
		t.Fatal("the code is not on screen")
	}
	o, err := New(Options{Code: parsedCode(t, code), Renderer: asciiRenderer()})
	if err != nil {
		t.Fatal(err)
	}
	if o.x.Pos() != m.x.Pos() || len(o.x.Branch().Path()) != 2 || o.x.Code().String() != code {
		t.Fatalf("opened %s, want %s", o.x.Code(), code)
	}
	if _, err := New(Options{Code: parsedCode(t, "thursday@1#5.00000000")}); err == nil {
		t.Fatal("a stale code opened")
	}
	if _, err := engine.ParseCode("nonsense"); err == nil {
		t.Fatal("a bad code opened")
	}
	m = press(m, "esc")
	if m.state != stateMain {
		t.Fatal("esc did not close the code")
	}
}

func TestIncidentPicker(t *testing.T) {
	m := press(start(t), "i")
	if m.state != statePicker || !strings.Contains(m.View(), "christmas-friday") {
		t.Fatal("i: no picker")
	}
	m = press(m, "down", "enter")
	if m.x.Spec.ID != "thursday-fixed" {
		t.Fatalf("picked %s", m.x.Spec.ID)
	}
}

func TestHelpAndQuit(t *testing.T) {
	m := press(start(t), "?")
	if !m.help.ShowAll || !strings.Contains(m.View(), "share code") {
		t.Fatal("? did not show every key")
	}
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := m.Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s did not quit", k)
		}
	}
}

func TestMouse(t *testing.T) {
	m := press(newTest(t, Options{}, 80, 24), "]", "]", "]", "]", "]")
	l := m.mainView().layout()
	dead := l.panes[2] // the dead letters
	nm, _ := m.Update(tea.MouseMsg{X: dead.x + 2, Y: dead.y + 2, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	m = nm.(Model)
	if m.main.scroll[2] == 0 {
		t.Fatal("wheel did not scroll the dead letters")
	}
	nm, _ = m.Update(tea.MouseMsg{X: dead.x + 2, Y: dead.y + 1, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	m = nm.(Model)
	if m.sel == 14 {
		t.Fatal("click did not select another message")
	}
	c := l.chart
	nm, _ = m.Update(tea.MouseMsg{X: c.x, Y: c.y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	m = settle(nm.(Model)) // the seek is a job
	if m.at > clock(t, "19:42:00") {
		t.Fatalf("click on the chart's left edge: at %s", m.at.Short())
	}
}

// pickIncident opens the picker and chooses incident id by filtering.
func pickIncident(t *testing.T, m Model, id string) Model {
	t.Helper()
	m = press(m, "i", "home")
	for i := 0; i < 20; i++ {
		if sp, ok := m.picker.selected(); ok && sp.ID == id {
			return press(m, "enter")
		}
		m = press(m, "down")
	}
	t.Fatalf("no incident %s in the picker", id)
	return m
}

// TestBranchesKept: `i` to another incident and back loses no branch,
// cursor or selection; the branch list deletes one.
func TestBranchesKept(t *testing.T) {
	m := press(start(t), "]", "f", "6", "0", "s", "enter", "]", "down")
	br, at, sel, pos := m.x.Branch().Name, m.at, m.sel, m.x.Pos()
	m = pickIncident(t, m, "christmas-friday")
	if m.x.Spec.ID != "christmas-friday" || !strings.Contains(m.flash, "1 fork of other incidents kept") {
		t.Fatalf("on %s, flash %q", m.x.Spec.ID, m.flash)
	}
	m = pickIncident(t, m, "thursday")
	if m.x.Spec.ID != "thursday" || len(m.x.Branches()) != 2 || m.x.Branch().Name != br || m.at != at || m.sel != sel || m.x.Pos() != pos {
		t.Fatalf("back on %s: %d branches, on %s at %s sel %d pos %d; want %s at %s sel %d pos %d",
			m.x.Spec.ID, len(m.x.Branches()), m.x.Branch().Name, m.at.Short(), m.sel, m.x.Pos(), br, at.Short(), sel, pos)
	}
	if len(m.kept) != 1 || m.kept.budgetLeft(m.shared.Budget).Bytes != m.shared.Budget.Bytes-m.kept["christmas-friday"].x.Bytes() {
		t.Fatalf("kept %d, budget left %d of %d", len(m.kept), m.kept.budgetLeft(m.shared.Budget).Bytes, m.shared.Budget.Bytes)
	}
	m = press(m, "b", "up", "d") // the lesson's run stays
	if len(m.x.Branches()) != 2 || m.flash != "the lesson's run stays" {
		t.Fatalf("deleted main? %d branches, %q", len(m.x.Branches()), m.flash)
	}
	m = press(m, "down", "d", "esc")
	if len(m.x.Branches()) != 1 || m.x.Branch().Parent != nil || m.state != stateMain {
		t.Fatalf("after d: %d branches, on %s, %s", len(m.x.Branches()), m.x.Branch().Name, m.state)
	}
}

// TestCodeCopiesOSC52: y puts the code on the clipboard through OSC 52,
// written to the session's own output.
func TestCodeCopiesOSC52(t *testing.T) {
	var buf bytes.Buffer
	m, err := New(Options{Renderer: lipgloss.NewRenderer(&buf, termenv.WithProfile(termenv.Ascii))})
	if err != nil {
		t.Fatal(err)
	}
	m = resize(m, 120, 40)
	nm, cmd := m.Update(keyMsg("y"))
	m = nm.(Model)
	if m.state != stateCode || cmd == nil {
		t.Fatalf("y: state %s, no copy", m.state)
	}
	cmd()
	want := ansi.SetSystemClipboard(m.code.code)
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("output %q lacks %q", buf.String(), want)
	}
}

// TestCodeReopensTheScreen: for every bookmark on every branch of a
// session (a knob fork, a named decision fork, a fork of a fork), with the
// featured message or another selected, `y` then opening the code gives
// the same screen.
func TestCodeReopensTheScreen(t *testing.T) {
	const w, h = 120, 40
	m := press(start(t), "]", "f", "6", "0", "s", "enter")    // visibility_timeout=60s @19:52:00
	m = press(m, "]", "]", "f", "up", "right", "right", "up") // the late ack, accepted …
	m = typeText(m, "accept it; ünï/#~")                      // … with a name of its own
	m = press(m, "enter")
	m = press(m, "g", "]", "]", "]", "]", "f", "down", "right", "enter") // late_ack=accept on the 60 s branch
	if n := len(m.x.Branches()); n != 4 {
		t.Fatalf("%d branches", n)
	}
	for i := range m.x.Branches() {
		m = press(m, "b", "up", "up", "up", "up")
		for j := 0; j < i; j++ {
			m = press(m, "down")
		}
		m = press(m, "enter", "g")
		if m.x.Branch() != m.x.Branches()[i] {
			t.Fatalf("on %s, not branch %d", m.x.Branch().Name, i)
		}
		for k := range m.x.Spec.Bookmarks {
			m = press(m, "]")
			if k%2 == 1 {
				m = press(m, "down") // another message
			}
			m = press(m, "y")
			code := m.code.code
			m = press(m, "esc")
			m.flash = ""
			o := newTest(t, Options{Code: parsedCode(t, code)}, w, h)
			if got, want := o.View(), m.View(); got != want {
				t.Fatalf("branch %s, bookmark %d: %s reopens as\n%s\nnot\n%s", m.x.Branch().Name, k+1, code, got, want)
			}
		}
	}
}

// TestForkFormSaysWhichPinGivesWay: thursday pins order 14's first call to
// 34 s; knobs typed in the form that put 34 s outside the latency range say
// so before the branch is made, and say nothing once the call is made.
func TestForkFormSaysWhichPinGivesWay(t *testing.T) {
	set := func(m Model, knob, v string) Model {
		for i, k := range m.fork.knobs {
			if k.Name == knob {
				m.fork.inputs[i].SetValue(v)
				return m
			}
		}
		t.Fatalf("no knob %s", knob)
		return m
	}
	const line = "pin gives way: order 14's first call 34s is outside latency 1s–2s; drawn instead"
	m := press(start(t), "f")
	if strings.Contains(m.View(), "pin gives way") {
		t.Fatal("the form says a pin gives way before any knob changed")
	}
	m = set(set(m, "latency_min", "1s"), "latency_max", "2s")
	if !strings.Contains(strings.Join(strings.Fields(m.View()), " "), line) {
		t.Fatalf("the form does not say %q:\n%s", line, m.View())
	}
	m = set(set(m, "latency_min", "31s"), "latency_max", "35s")
	if strings.Contains(m.View(), "pin gives way") {
		t.Fatal("34 s lies inside 31s–35s, yet the form says the pin gives way")
	}
	// after order 14's first delivery its call is made: nothing to say
	m = press(press(m, "esc"), "]", "]", "]", "f")
	m = set(set(m, "latency_min", "1s"), "latency_max", "2s")
	if strings.Contains(m.View(), "pin gives way") {
		t.Fatal("the form warns of a pin whose call is already made")
	}
}

// TestForkFormTypedNameFilters: in the fork form, typing a knob's name
// where it cannot be a value filters the knobs (as `/` does), while digits
// and units go to the focused knob's value and the start of a choice to a
// choice knob.
func TestForkFormTypedNameFilters(t *testing.T) {
	keys := append(append([]string{"]", "f"}, strings.Split("latency_max", "")...), "enter", "4", "5", "s", "enter")
	m := press(start(t), keys...)
	if m.state != stateMain {
		t.Fatalf("state %s: %s", m.state, m.fork.err)
	}
	if b := m.x.Branch(); b.Parent == nil || len(b.Changes) != 1 || b.Changes[0] != (engine.Setting{Knob: "latency_max", Value: "45s"}) {
		t.Fatalf("changes %+v, want latency_max=45s", b.Changes)
	}
	// v cannot start a duration: it filters; 6 can: it is the value
	m = press(start(t), "]", "f", "v", "i", "s")
	if !m.fork.filters || m.fork.filter.Value() != "vis" || m.fork.knobs[m.fork.row-1].Name != "visibility_timeout" {
		t.Fatalf("v i s on a duration: filtering %v %q, on %s", m.fork.filters, m.fork.filter.Value(), m.fork.knobs[m.fork.row-1].Name)
	}
	m = press(start(t), "]", "f", "6")
	if m.fork.filters || m.fork.inputs[m.fork.row-1].Value() != "6" {
		t.Fatalf("6 on a duration: filtering %v, value %q", m.fork.filters, m.fork.inputs[m.fork.row-1].Value())
	}
	// on a choice knob the start of a choice is its value, another letter a filter
	m = press(start(t), "]", "f", "/", "m", "o", "d", "e", "enter", "o")
	if m.fork.filters || m.fork.knobs[m.fork.row-1].Name != "mode" || m.fork.inputs[m.fork.row-1].Value() != "o" {
		t.Fatalf("o on mode: filtering %v, value %q", m.fork.filters, m.fork.inputs[m.fork.row-1].Value())
	}
	m = press(start(t), "]", "f", "/", "m", "o", "d", "e", "enter", "l")
	if !m.fork.filters || m.fork.filter.Value() != "l" {
		t.Fatalf("l on mode: filtering %v %q", m.fork.filters, m.fork.filter.Value())
	}
}
