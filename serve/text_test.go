package serve

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"inflight/internal/termtext"
)

// hostileUser is a user name a client may send: a window title, a screen
// clear and 20,000 right-to-left overrides, some 60 KB in one packet.
var hostileUser = "\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("\u202e", 20_000) + "att"

// logSafe fails unless every line of a log is bounded and free of what a
// terminal acts on.
func logSafe(t testing.TB, logs string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(logs, "\n"), "\n") {
		if len(l) > 2000 || termtext.Clean(l, termtext.Message) != l {
			t.Fatalf("a log line of %d bytes: %.300q", len(l), l)
		}
	}
}

// TestHostileUserNameInTheLogs: a session whose user name is the one
// above is served as any other, and every line the server logs about it
// carries the name cut short, without its escapes or overrides.
func TestHostileUserNameInTheLogs(t *testing.T) {
	s := startServer(t, Config{}, newFake)
	c := mustDial(t, s.addr, hostileUser, newKey(t))
	tm := mustTerm(t, c, 80, 24)
	tm.mustSee(t, 10*time.Second, "fake explorer")
	tm.close()
	c.Close()
	s.logged(t, func() bool { return strings.Contains(s.logs.String(), "disconnect") })
	logs := s.logs.String()
	if !strings.Contains(logs, "]0;pwned[2Jatt") {
		t.Fatalf("no connect line with the cleaned name:\n%s", logs)
	}
	logSafe(t, logs)
}

// FuzzUserName: any user name comes out of the log line bounded and
// without a control, bidi or zero-width character.
func FuzzUserName(f *testing.F) {
	for _, s := range []string{"att", "follow", hostileUser, "\xff\x00\n", "a\u200bb\ufeff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		var b bytes.Buffer
		log.New(&b).Info("connect", "user", userOf(user(name)), "term", clientText(name))
		logSafe(t, b.String())
	})
}

type user string

func (u user) User() string { return string(u) }
