package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
	"inflight/hunt"
)

func specOf(t testing.TB, id string) *engine.Spec {
	t.Helper()
	s, err := bundledSpec(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// x on thursday-fixed, one-email, enter: the counterexample opens as a
// branch named after the property, the cursor just past the duplicate
// email, the forced crash on the news line; c compares it with main.
func TestHuntOpensCounterexample(t *testing.T) {
	m := newTest(t, Options{Spec: specOf(t, "thursday-fixed")}, 120, 40)
	m = press(m, "x")
	if m.state != stateHunt || !strings.Contains(m.View(), "every order gets exactly one email") {
		t.Fatalf("x: state %s, no property list:\n%s", m.state, m.View())
	}
	m = press(m, "enter") // one-email is the first
	if got := m.x.Branch().Name; got != "hunt: one-email" {
		t.Fatalf("branch %q, want hunt: one-email (flash %q)", got, m.flash)
	}
	last := m.x.Last(1, func(*engine.Entry) bool { return true })
	if len(last) != 1 || last[0].Event.Kind != engine.EvEffect || last[0].Event.Msg != m.sel {
		t.Fatalf("cursor not just past an email of the selected order %d: %+v", m.sel, last)
	}
	effects := 0
	for _, e := range m.x.Events(0, m.x.Pos()) {
		if e.Event.Kind == engine.EvEffect && e.Event.Msg == m.sel {
			effects++
		}
	}
	if effects != 2 {
		t.Errorf("the cursor's order has %d emails by the cursor, want 2 (the duplicate)", effects)
	}
	for _, want := range []string{"one-email broken", "forced", "crashes", "c compares"} {
		if !strings.Contains(m.flash, want) {
			t.Errorf("flash %q lacks %q", m.flash, want)
		}
	}
	m = press(m, "c")
	if m.state != stateCompare || !strings.Contains(m.View(), "hunt: one-email") {
		t.Fatalf("c: state %s:\n%s", m.state, m.View())
	}
}

// A hunt for a property that holds (cashback with dedupe, the balance)
// runs in the background with its progress line; esc stops it and says
// so at once, leaving the branch as it was. The hunt's goroutine is held
// at its start, so esc is answered while it provably still runs.
func TestHuntEscCancels(t *testing.T) {
	m := newTest(t, Options{Spec: specOf(t, "cashback"), Set: []engine.Setting{{Knob: "dedupe", Value: "true"}}}, 120, 40)
	br := m.x.Branch()
	m = press(m, "x")
	m, release := gated(m)
	defer release()
	m, _ = send(t, m, "enter")
	j := m.jobs.cur
	if j == nil {
		t.Fatal("the hunt finished inside Update")
	}
	if v := m.View(); !strings.Contains(v, "hunting balance-exact") || !strings.Contains(v, "branches tried") || !strings.Contains(v, "/s") || !strings.Contains(v, "esc cancels") {
		t.Fatalf("no progress line while the hunt runs:\n%s", v)
	}
	m, _ = send(t, m, "esc")
	select {
	case <-j.done:
		t.Fatal("the hunt ended while held: esc cannot be shown not to wait")
	default:
	}
	if m.jobs.cur != nil || m.x.Branch() != br || len(m.x.Branches()) != 1 {
		t.Fatalf("esc: job %v, branch %q, %d branches", m.jobs.cur, m.x.Branch().Name, len(m.x.Branches()))
	}
	if !strings.Contains(m.View(), "cancelled: hunting balance-exact") {
		t.Errorf("the screen does not say the hunt was cancelled:\n%s", m.View())
	}
	// the hunt, let go, stops; its late end changes nothing
	release()
	<-j.done
	nm, _ := m.Update(jobDoneMsg{id: j.id})
	if m = nm.(Model); len(m.x.Branches()) != 1 || !strings.Contains(m.View(), "cancelled: hunting balance-exact") {
		t.Fatalf("the cancelled hunt's end was applied: %d branches, flash %q", len(m.x.Branches()), m.flash)
	}
}

// BenchmarkHuntEsc times esc during a hunt: Update answers it without
// waiting for the hunt to stop.
func BenchmarkHuntEsc(b *testing.B) {
	m := newTest(b, Options{Spec: specOf(b, "cashback"), Set: []engine.Setting{{Knob: "dedupe", Value: "true"}}}, 120, 40)
	benchEsc(b, m, func(m Model) Model {
		m = press(m, "x")
		nm, _ := m.Update(keyMsg("enter"))
		return nm.(Model)
	})
}

// An incident with no properties says so instead of an empty list.
func TestHuntNoProperties(t *testing.T) {
	s := *specOf(t, "thursday-fixed")
	s.Properties = nil
	m := newTest(t, Options{Spec: &s}, 120, 40)
	m = press(m, "x")
	if m.state != stateMain || !strings.Contains(m.flash, "names no properties") {
		t.Fatalf("state %s, flash %q", m.state, m.flash)
	}
}

// TestHuntOnAFork: on a fork, x hunts that branch (its forks applied as
// the explorer applies them) and the counterexample forks it; before the
// fork's own moment it says to move past it.
func TestHuntOnAFork(t *testing.T) {
	m := newTest(t, Options{Spec: specOf(t, "thursday-fixed")}, 120, 40)
	m = press(m, "]", "f", "6", "0", "s", "enter")
	fork := m.x.Branch()
	if fork == m.x.Branches()[0] {
		t.Fatal("the fork was not made")
	}
	m = press(m, "g", "x") // the start: before the fork's moment
	if m.state != stateMain || !strings.Contains(m.flash, "starts at or after its fork") {
		t.Fatalf("state %s, flash %q", m.state, m.flash)
	}
	m = press(m, "]", "l", "x", "enter")
	b := m.x.Branch()
	if b.Name != "hunt: one-email" || b.Parent == nil || b.Parent.Name != fork.Name {
		t.Fatalf("branch %q, want hunt: one-email forked from %q; flash %q", b.Name, fork.Name, m.flash)
	}
	// the found branch breaks the property on the fork's run: its code,
	// reopened, shows the order with other than one email
	c := m.x.Code()
	if len(c.Forks) < 2 || !strings.Contains(c.String(), "crash_after_claim=60s") {
		t.Fatalf("code %s does not carry the hunted fork", c)
	}
	ox, err := engine.OpenCode(c, m.x.Spec)
	if err != nil {
		t.Fatal(err)
	}
	ox.End()
	if e := ox.World().Truth().MsgPtr(m.sel).Effects; e == 1 {
		t.Errorf("order %d got one email on the found branch; the hunt said it breaks one-email (flash %q)", m.sel, m.flash)
	}
}

// TestHuntGolden pins the property list and a counterexample's screen:
// update with go test ./tui -run TestHuntGolden -update
func TestHuntGolden(t *testing.T) {
	o := Options{Spec: specOf(t, "thursday-fixed")}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, s := range []struct {
			name string
			keys []string
		}{{"list", []string{"x"}}, {"found", []string{"x", "enter"}}} {
			t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], s.name), func(t *testing.T) {
				golden.RequireEqual(t, []byte(viewAfterOn(t, o, size[0], size[1], s.keys...)))
			})
		}
	}
}

// Under a server the hunt plays no more than the session's event budget:
// here forty runs' worth, so forty branches, and the news says nothing
// broke the property, how many were tried and that the depth-1 space was
// not exhausted.
func TestHuntBoundedBySessionBudget(t *testing.T) {
	spec := specOf(t, "cashback")
	set := []engine.Setting{{Knob: "dedupe", Value: "true"}}
	m := newTest(t, Options{Spec: spec, Set: set}, 120, 40)
	m = press(m, "G") // the run's length
	b := m.x.Limits()
	b.Events = 40 * m.x.Pos()
	m.x.Limit(b, nil)
	m.jobs.slots = make(chan struct{}, 1) // as under a server
	m = press(m, "g")
	m = press(m, "x", "enter")
	want := "hunt: no branch up to depth 2 breaks balance-exact · 40 branches tried, the budget ran out before the depth-1 space was exhausted"
	if m.flash != want || len(m.x.Branches()) != 1 {
		t.Fatalf("flash %q (want %q), %d branches", m.flash, want, len(m.x.Branches()))
	}
}

// Under a server the hunt draws on the session's memory too: what the
// explorer's checkpoints leave of the session's budget, and the server's
// pool. A hunt past it stops with the budget's line, naming the flag, and
// gives back all it took; the branch is as it was.
func TestHuntStoppedBySessionMemory(t *testing.T) {
	spec := specOf(t, "thursday-fixed")
	set := []engine.Setting{{Knob: "orders", Value: "3000"}}
	m := newTest(t, Options{Spec: spec, Set: set}, 120, 40)
	pool := &engine.Pool{Bytes: 64 << 20, Flag: "--server-max-memory-mb"}
	pool.Release(-m.x.Bytes()) // the explorer's checkpoints, held already
	held := pool.Used()
	m.x.Limit(engine.Limits{Events: 10_000_000, Bytes: m.x.Bytes() + 4<<20, EventsFlag: "--session-max-events", BytesFlag: "--session-max-memory-mb"}, pool)
	m.jobs.slots = make(chan struct{}, 1) // as under a server
	m = press(m, "x", "enter")
	want := "stopped: the hunt passed its memory budget of " + engine.Bytes(m.x.Limits().Bytes) + " (raise with --session-max-memory-mb)"
	if m.flash != want || len(m.x.Branches()) != 1 {
		t.Fatalf("flash %q (want %q), %d branches", m.flash, want, len(m.x.Branches()))
	}
	if pool.Used() != held {
		t.Errorf("the pool holds %d after the hunt, %d before", pool.Used(), held)
	}
}

// thursday's 60 s fork at 19:52:00, made as a newcomer makes it: /19:52
// enter, f, 60s, enter.
func thursday60(t *testing.T) Model {
	t.Helper()
	m := press(typeText(press(start(t), "/"), "19:52"), "enter", "f")
	m.fork.inputs[knobRow(t, m, "visibility_timeout")].SetValue("60s")
	m = press(m, "enter")
	if m.state != stateMain || m.x.Branch().Parent == nil {
		t.Fatalf("no fork: %s", m.fork.err)
	}
	if want := clock(t, "19:52:00"); m.at != want {
		t.Fatalf("the fork's cursor at %s, want 19:52:00", m.at.Clock())
	}
	return m
}

// x, esc, and a hunt that opens nothing leave the cursor, the selection
// and the branch tree as they were (they read, never write): on the 60 s
// fork the clock stays at 19:52:00, not the 19:51:59 of the world's last
// event, and no clone is swapped in.
func TestHuntLeavesCursor(t *testing.T) {
	m := thursday60(t)
	m = press(m, "down") // a selection to keep
	type view struct {
		at   engine.Time
		pos  int64
		sel  int32
		code string
		n    int
		x    *engine.Explorer
	}
	look := func(m Model) view {
		return view{m.at, m.x.Pos(), m.sel, m.x.Code().String(), len(m.x.Branches()), m.x}
	}
	before := look(m)
	for _, c := range []struct {
		name string
		keys []string
		news string
	}{
		{"x esc", []string{"x", "esc"}, ""},
		{"x x", []string{"x", "x"}, ""},
		// no-duplicate: order 13's third email, sent at 19:52 on a lease
		// taken before the fork, is a duplicate after it
		{"x no-duplicate", []string{"x", "down", "enter"}, "no-duplicate is broken after the fork (19:52:00 #178) by the branch as it stands, duplicate_effects 1 since the fork (28 in all): nothing to search"},
	} {
		m = press(m, c.keys...)
		if m.state != stateMain {
			t.Fatalf("%s: state %s", c.name, m.state)
		}
		if got := look(m); got != before {
			t.Errorf("%s: cursor, selection or tree moved: %+v, was %+v", c.name, got, before)
		}
		if c.news != "" && m.flash != c.news {
			t.Errorf("%s: news %q, want %q", c.name, m.flash, c.news)
		}
		if !strings.Contains(m.View(), "19:52:00") {
			t.Errorf("%s: the header lost 19:52:00:\n%s", c.name, m.View())
		}
	}
	// esc while the hunt runs (held at its start, so it provably runs)
	m = press(m, "x")
	m, release := gated(m)
	m, _ = send(t, m, "enter")
	j := m.jobs.cur
	if j == nil || !strings.Contains(m.View(), "hunting one-email after the fork (19:52:00 #178)") {
		t.Fatalf("no hunt running on the fork:\n%s", m.View())
	}
	m, _ = send(t, m, "esc")
	release()
	<-j.done
	nm, _ := m.Update(jobDoneMsg{id: j.id})
	if m = nm.(Model); look(m) != before || !strings.Contains(m.flash, "cancelled: hunting one-email") {
		t.Errorf("x enter esc: %+v, was %+v; news %q", look(m), before, m.flash)
	}
}

// On the 60 s fork the hunt judges one-email from the fork on: the 27
// duplicates before 19:52:00 do not count, so it searches, and a worker
// crash after order 14's email leaves (the first order leased after the
// fork) breaks it. The list's title says what it judges.
func TestHuntOnThursday60(t *testing.T) {
	m := thursday60(t)
	parent := m.x.Code().String()
	m = press(m, "x")
	if v := m.View(); !strings.Contains(v, "after the fork (19:52:00 #178)") {
		t.Errorf("the list does not say it judges after the fork:\n%s", v)
	}
	m = press(m, "enter")
	b := m.x.Branch()
	if b.Name != "hunt: one-email" || b.Parent == nil || !strings.HasPrefix(m.x.Code().String(), strings.Split(parent, "#")[0]+"/") {
		t.Fatalf("branch %q, code %s, want hunt: one-email from the fork %s; news %q", b.Name, m.x.Code(), parent, m.flash)
	}
	for _, want := range []string{"one-email broken after the fork (19:52:00 #178)", "order 14: effects 2", "crashes after the email leaves"} {
		if !strings.Contains(m.flash, want) {
			t.Errorf("news %q lacks %q", m.flash, want)
		}
	}
}

// TestHuntForkGolden pins the property list on thursday's 60 s fork, its
// note saying the hunt judges from the fork on: update with
// go test ./tui -run TestHuntForkGolden -update
func TestHuntForkGolden(t *testing.T) {
	keys := []string{"/", "1", "9", ":", "5", "2", "enter", "f", "6", "0", "s", "enter", "x"}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			v := viewAfterOn(t, Options{}, size[0], size[1], keys...)
			if !strings.Contains(v, "judged after the fork (19:52:00 #178): what came before it does not count") {
				t.Errorf("no note:\n%s", v)
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// The hunt form's actions row: tab types names as hunt --actions takes
// them, checked as the hunt checks them (a name the incident does not
// declare is refused on the row, and the form stays); esc closes it from
// the row too.
func TestHuntActionsRow(t *testing.T) {
	m := newTest(t, Options{Spec: specOf(t, "thursday-fixed")}, 120, 40)
	m = press(m, "x", "tab", "r", "e", "b", "o", "o", "t", "enter")
	want := `--actions "reboot": incident thursday-fixed's actions are redrive, repair, purge, crash, wedge, workers`
	if m.state != stateHunt || !strings.Contains(m.View(), want) {
		t.Fatalf("state %s, want the refusal %q on the form:\n%s", m.state, want, m.View())
	}
	if m = press(m, "esc"); m.state != stateMain || len(m.x.Branches()) != 1 {
		t.Fatalf("esc on the row: state %s, %d branches", m.state, len(m.x.Branches()))
	}
	// an incident without actions has no row
	m = newTest(t, Options{Spec: specOf(t, "fifo-window")}, 120, 40)
	if m = press(m, "x"); m.state == stateHunt && strings.Contains(m.View(), "do: ") {
		t.Errorf("fifo-window declares no actions, yet the hunt form has a do: row:\n%s", m.View())
	}
}

// A hunt with actions from the explorer finds what hunt --actions finds
// for the same arguments (the incident, the cursor's clock as --at, the
// property, the explorer's depth, budget and faults): thursday-fixed,
// its-email, purge. No single fault or decision loses an order's email;
// a purge does, and the find opens as a branch whose fork takes it.
func TestHuntActionsAsHeadless(t *testing.T) {
	spec := specOf(t, "thursday-fixed")
	m := newTest(t, Options{Spec: spec}, 120, 40)
	var prop *engine.Property
	for i := range spec.Properties {
		if spec.Properties[i].Name == "its-email" {
			prop = &spec.Properties[i]
		}
	}
	r, err := hunt.Hunt(hunt.Options{Spec: spec, Seed: spec.Seed, From: m.at, Property: prop,
		Depth: huntDepth, Budget: huntBudget, Faults: true, Actions: []string{"purge"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Found || len(r.Forced) != 1 || r.Forced[0].Act == nil || r.Forced[0].Act.Name != "purge" {
		t.Fatalf("headless: want a purge, got %+v", r)
	}
	m = press(m, "x")
	for m.hunt.list.SelectedItem().(propertyItem).p.Name != prop.Name {
		m = press(m, "down")
	}
	m = press(m, "tab", "p", "u", "r", "g", "e", "enter")
	if got := huntNews(r); m.flash != got {
		t.Errorf("the explorer's hunt says\n%q\nhunt --actions purge\n%q", m.flash, got)
	}
	b := m.x.Branch()
	if b.Name != "hunt: its-email" || len(b.Actions) != 1 || b.Actions[0] != *r.Forced[0].Act {
		t.Errorf("branch %q takes %v, want hunt: its-email taking %s", b.Name, b.Actions, r.Forced[0].Act)
	}
}
