package serve

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// screen is a session's w×h screen kept up to date as its output comes:
// reading it costs only the new output, where term.grid replays all of it
// (a 100 ms replay after a minute of play would be part of a measured
// latency).
type screen struct {
	*term
	w, h int
	v    *vt
	fed  int // bytes of output replayed into v
}

// newScreen starts following tm's screen; call it once tm has shown its
// first frame (the terminal queries are answered and dropped by then).
func newScreen(tm *term, w, h int) *screen {
	return &screen{term: tm, w: w, h: h, v: newVT(w, h)}
}

// screenOpener is open for a test of servers with host key host: open
// connects to addr as user with key at w×h, waits for the first screen
// showing see, and follows it.
func screenOpener(t *testing.T, host gossh.PublicKey) func(addr, user string, key gossh.Signer, w, h int, see ...string) *screen {
	return func(addr, user string, key gossh.Signer, w, h int, see ...string) *screen {
		t.Helper()
		tm := mustTerm(t, dialAs(t, addr, user, key, host), w, h)
		tm.mustSee(t, wait, see...)
		return newScreen(tm, w, h)
	}
}

// grid replays what has come since the last call, up to its last escape
// (the sequence that escape starts may still be arriving), and returns
// the screen.
func (s *screen) grid() string {
	s.mu.Lock()
	if len(s.out) < s.fed { // forgotten by mark: start again
		s.v, s.fed = newVT(s.w, s.h), 0
	}
	end := s.fed + strings.LastIndexByte(string(s.out[s.fed:]), '\x1b')
	var more string
	if end > s.fed {
		more = string(s.out[s.fed:end])
		s.fed = end
	}
	s.mu.Unlock()
	s.v.write(more)
	return s.v.String()
}

// head is the screen's first line: the header, with the moment shown.
func (s *screen) head() string {
	first, _, _ := strings.Cut(s.grid(), "\n")
	return first
}

// waitHead waits until the header holds sub.
func (s *screen) waitHead(t testing.TB, sub string) {
	t.Helper()
	if !s.until(wait, func() bool { return strings.Contains(s.head(), sub) }) {
		t.Fatalf("no %q at the top of the screen after %s:\n%s", sub, wait, s.grid())
	}
}

var clockRE = regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`)

// clock is the moment in the header.
func (s *screen) clock(t testing.TB) time.Duration {
	t.Helper()
	m := clockRE.FindString(s.head())
	if m == "" {
		t.Fatalf("no clock at the top of the screen:\n%s", s.grid())
	}
	return hms(m)
}

// hms reads a header's HH:MM:SS.
func hms(m string) time.Duration {
	var hh, mm, ss int
	fmt.Sscanf(m, "%d:%d:%d", &hh, &mm, &ss)
	return time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second
}

// waitClock waits until the header's moment is at least c, and returns
// it.
func (s *screen) waitClock(t testing.TB, c time.Duration) time.Duration {
	t.Helper()
	var got time.Duration
	reached := func() bool {
		m := clockRE.FindString(s.head())
		got = hms(m)
		return m != "" && got >= c
	}
	if !s.until(wait, reached) {
		t.Fatalf("the header never reached %v in %s:\n%s", c, wait, s.grid())
	}
	return got
}

// settled waits until the screen holds every one of subs, and returns it.
func (s *screen) settled(t testing.TB, subs ...string) string {
	t.Helper()
	return settle(t, s.term, s.grid, subs, nil)
}

// settledWithout waits until the screen holds every one of subs and none
// of gone, and returns it.
func (s *screen) settledWithout(t testing.TB, gone []string, subs ...string) string {
	t.Helper()
	return settle(t, s.term, s.grid, subs, gone)
}

// written is how much output has come so far, for seeSince.
func (tm *term) written() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return len(tm.out)
}

// seeSince waits until the output after its first from bytes holds sub
// (text that may have been drawn over since).
func (tm *term) seeSince(t testing.TB, from int, sub string) {
	t.Helper()
	since := func() string {
		tm.mu.Lock()
		defer tm.mu.Unlock()
		return ansi.Strip(string(tm.out[from:]))
	}
	if !tm.until(wait, func() bool { return strings.Contains(since(), sub) }) {
		out := since()
		t.Fatalf("no %q on screen after %s; tail:\n%s", sub, wait, out[max(0, len(out)-2000):])
	}
}
