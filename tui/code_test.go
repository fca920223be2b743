package tui

import (
	"strings"
	"testing"

	"inflight/engine"
)

// parsedCode is s parsed, as the command line or the server hands a code
// to New.
func parsedCode(t testing.TB, s string) *engine.Code {
	t.Helper()
	c, err := engine.ParseCode(s)
	if err != nil {
		t.Fatalf("code %q: %v", s, err)
	}
	return &c
}

// TestCodeScreenUnderServe: under serve, y shows the ssh form at the
// server's address; locally, inflight open. Both quote the code for a
// shell, since a fork's name may hold spaces and quotes.
func TestCodeScreenUnderServe(t *testing.T) {
	for _, tc := range []struct{ via, want, not string }{
		{"ssh -t -p 2222 example.org", "ssh -t -p 2222 example.org open '", "  inflight open '"},
		{"", "  inflight open '", "ssh -t"},
	} {
		m := press(newTest(t, Options{OpenVia: tc.via}, 120, 40), "y")
		if m.state != stateCode {
			t.Fatalf("y: state %s", m.state)
		}
		v := m.View()
		if !strings.Contains(v, tc.want+m.code.code+"'") || strings.Contains(v, tc.not) {
			t.Errorf("via %q: screen lacks %q or holds %q:\n%s", tc.via, tc.want, tc.not, v)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"thursday@1#12.0badc0de": `'thursday@1#12.0badc0de'`,
		"it's; fine":             `'it'\''s; fine'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A branch that forces a fault goes on stage as the branch it is: its
// line carries the fault, and a follower's explorer makes the same branch,
// by the name the engine gives it (the line once dropped the fault).
func TestBranchLineKeepsFaults(t *testing.T) {
	s := specOf(t, "thursday-fixed")
	x, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	pos := x.PosAtTime(x.Branch(), s.Start+engine.Time(14*50)*engine.Second)
	w := x.WorldAt(x.Branch(), pos)
	var pass engine.FaultPass
	w.Forcing().Observe(func(p engine.FaultPass) {
		if p.Point == "after_effect" && p.Msg == 14 && pass.Point == "" {
			pass = p
		}
	})
	w.RunTo(nil, -1)
	if pass.Point == "" {
		t.Fatal("no after_effect pass for order 14")
	}
	x.Goto(pass.Pos)
	b, err := x.Fork(engine.ForkOptions{Pos: pass.Pos, At: x.World().Now, Faults: []engine.Fault{pass.Fault}})
	if err != nil {
		t.Fatal(err)
	}
	line := branchLine(x, b)
	y, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := addLine(y, line)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != b.Name || len(got.Faults) != 1 || got.Faults[0] != pass.Fault {
		t.Fatalf("line %s makes %q %v, want %q %v", line, got.Name, got.Faults, b.Name, b.Faults)
	}
}
