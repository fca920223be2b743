package serve

import (
	"reflect"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/tui"
)

// The server hands no session a place to keep its branches: saving the
// tree is for the local explorer, and an attendee's is never read from
// or written to the server's state directory (tui.NewSession, the
// server's explorer, drops a Keep too).
func TestSessionsKeepNothing(t *testing.T) {
	got := make(chan tui.Options, 1)
	s := startServer(t, Config{}, func(o tui.Options) (tea.Model, error) {
		got <- o
		return newFake(o)
	})
	tm := mustTerm(t, mustDial(t, s.addr, "alice", newKey(t)), 80, 24)
	if o := <-got; o.Keep != nil {
		t.Fatalf("a session was given Keep %+v", *o.Keep)
	}
	tm.send("q")
	tm.ended(wait)
	if fresh, err := New(Config{HostKeyPath: t.TempDir() + "/k"}); err != nil ||
		reflect.ValueOf(fresh.newModel).Pointer() != reflect.ValueOf(tui.NewSession).Pointer() {
		t.Fatalf("the server's explorer is not tui.NewSession: %v", err)
	}
}
