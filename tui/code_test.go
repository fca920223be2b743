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
