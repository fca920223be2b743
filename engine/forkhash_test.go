package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// A fork that changes nothing has its parent's trace, so its trace hash is
// the parent's too — also for a fork of a fork, whose own fork state has
// no hash state of its own until it is first extended.
func TestForkOfForkHash(t *testing.T) {
	spec, err := incidents.Get("fifo-window")
	if err != nil {
		t.Fatal(err)
	}
	open := func(s string) engine.Summary {
		t.Helper()
		c, err := engine.ParseCode(s)
		if err != nil {
			t.Fatal(err)
		}
		x, err := engine.OpenCode(c, spec)
		if err != nil {
			t.Fatal(err)
		}
		return x.Summary(x.Branch())
	}
	parent := open("fifo-window@473343/p7@14:01:34.295;dedup_window=924ms#15.e604a88c")
	child := open("fifo-window@473343/p7@14:01:34.295;dedup_window=924ms/p10@14:03:00.12#15.e604a88c")
	if parent.TraceSHA256 != child.TraceSHA256 {
		t.Fatalf("a no-change fork of a fork hashes %s, its parent %s", child.TraceSHA256, parent.TraceSHA256)
	}
}
