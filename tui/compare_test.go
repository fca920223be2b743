package tui

import (
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestCompareStagefrontInbox: hold 2291's effect at 10:00:01.217 is found
// although more than 16,384 events pass between its publishing and its
// effect (the comparison once said "none / none").
func TestCompareStagefrontInbox(t *testing.T) {
	spec, err := incidents.Get("stagefront")
	if err != nil {
		t.Fatal(err)
	}
	v := viewAfterOn(t, Options{Spec: spec}, 120, 60, keysOf("e 5 c")...)
	if !strings.Contains(v, "hold 2291's effects") || !strings.Contains(v, " A 1: 10:00:01.217") {
		t.Fatalf("no effect for hold 2291 on main:\n%s", v)
	}
	if strings.Contains(v, "none\n") && strings.Contains(v, " A none") {
		t.Fatalf("hold 2291 shown with no effect:\n%s", v)
	}
}

// TestCompareSaysWhatChanged: thursday's exercise 1 (late_ack=accept) parts
// from main where the refused ack becomes an accepted one, said in the
// captions' words, not as the fork's knob marker; the figures have B − A.
func TestCompareSaysWhatChanged(t *testing.T) {
	v := viewAfter(t, 80, 40, "e", "1", "c")
	for _, want := range []string{"On A its ack is refused; on B its ack is accepted.", "B − A", "-94"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in:\n%s", want, v)
		}
	}
	if strings.Contains(v, "from here on") {
		t.Errorf("the divergence is the knob marker:\n%s", v)
	}
}

// TestCompareHeadsForkOfFork: at 80 columns a fork of a fork and its parent
// read differently: each heading names the branch's own fork.
func TestCompareHeadsForkOfFork(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	fork := func(name, set string, at engine.Time) *engine.Branch {
		st, err := engine.ParseSetting(set)
		if err != nil {
			t.Fatal(err)
		}
		x.SeekTime(at)
		b, err := x.Fork(engine.ForkOptions{Name: name, Pos: x.Pos(), At: at, Set: []engine.Setting{st}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	at := spec.Start + 12*engine.Minute
	a := fork("visibility_timeout=60s", "visibility_timeout=60s", at)
	b := fork("visibility_timeout=90s", "visibility_timeout=90s", at+engine.Minute)
	c := compareView{common: newCommon(asciiRenderer()), a: compareHeading(a), b: compareHeading(b)}
	c.SetSize(80, 30)
	lines := strings.Split(c.View(), "\n")
	var ha, hb string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, " A ") && ha == "":
			ha = l
		case strings.HasPrefix(l, " B ") && hb == "":
			hb = l
		}
	}
	if !strings.Contains(ha, "visibility_timeout=60s") || !strings.Contains(hb, "visibility_timeout=90s") {
		t.Fatalf("headings do not name each branch's own fork:\n%s", strings.Join(lines[:6], "\n"))
	}
	for _, l := range lines {
		if len([]rune(l)) > 80 {
			t.Errorf("wider than 80: %q", l)
		}
	}
}

// TestCompareScrolls: at 80×24 the comparison does not fit; ↓ brings the
// divergence and the selected customer's inbox on screen.
func TestCompareScrolls(t *testing.T) {
	keys := []string{"e", "1", "c"}
	for range 24 {
		keys = append(keys, "down")
	}
	v := viewAfter(t, 80, 24, keys...)
	// the headings and column heads stay while the rest scrolls
	for _, want := range []string{"\n A main", "\n B exercise 1: late_ack=accept", "in all  since fork", "B − A"} {
		if !strings.Contains(v, want) {
			t.Errorf("scrolled, the heads lack %q:\n%s", want, v)
		}
	}
	for _, want := range []string{"order 14's customer's inbox", " B 2: 19:52:00, 19:52:30"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q after scrolling:\n%s", want, v)
		}
	}
}

// TestCompareSinceFork: after the 19:52 fork to a 60 s timeout the
// comparison says how many of the 28 duplicate emails are the fork's own:
// 1 since the fork, against main's 189, and how many dead letters came
// since; the divergence reads as a sentence, not caption fragments.
func TestCompareSinceFork(t *testing.T) {
	m := forkAt(t, start(t), "19:52", "60s")
	m = press(m, "c")
	v := m.View()
	for _, want := range [][]string{
		{"duplicate emails", "216", "189", "28", "1", "-188"},
		{"dead letters", "108", "95", "13", "0", "-95"},
	} {
		found := false
		for _, l := range strings.Split(v, "\n") {
			found = found || strings.Contains(strings.Join(strings.Fields(l), " "), strings.Join(want, " "))
		}
		if !found {
			t.Errorf("no row %v in:\n%s", want, v)
		}
	}
	for _, want := range []string{"from event 178 (19:52:00) on", "On both it is delivered, with other details:", "lease until 19:53:00"} {
		if !strings.Contains(strings.Join(strings.Fields(v), " "), want) {
			t.Errorf("no %q in:\n%s", want, v)
		}
	}
	if strings.Contains(v, "until 19:52:30) →") {
		t.Errorf("caption fragments:\n%s", v)
	}
}

// TestCompareFamilyFigures: the family's own figures have rows of their
// own, in all, as run --compare gives them: cashback's expected balance,
// balance and crashes, but none for a figure 0 on both sides; the queue
// family has none, so thursday's screen keeps its rows.
func TestCompareFamilyFigures(t *testing.T) {
	spec, err := incidents.Get("cashback")
	if err != nil {
		t.Fatal(err)
	}
	v := viewAfterOn(t, Options{Spec: spec}, 120, 60, keysOf("e 1 c")...)
	for _, want := range []string{"  expected balance             500000", "≠ balance                      505500                           500000                   -5500", "  crashes                          55"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q row in:\n%s", want, v)
		}
	}
	if strings.Contains(v, "dead lettered") || strings.Contains(v, "…") {
		t.Errorf("a row for a figure 0 on both sides:\n%s", v)
	}
	if v := viewAfter(t, 120, 60, "e", "1", "c"); strings.Contains(v, "balance") || strings.Contains(v, "  crashes ") {
		t.Errorf("thursday's comparison has a family figure:\n%s", v)
	}
}
