package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"inflight/incidents"
)

// TestLook prints a screen for a human to look at:
// LOOK=120x40 INCIDENT=db-down KEYS="] ]" go test ./tui -run TestLook -v
func TestLook(t *testing.T) {
	if os.Getenv("LOOK") == "" {
		t.Skip()
	}
	var w, h int
	fmt.Sscanf(os.Getenv("LOOK"), "%dx%d", &w, &h)
	var o Options
	if id := os.Getenv("INCIDENT"); id != "" {
		s, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		o.Spec = s
	}
	m := newTest(t, o, w, h)
	m = press(m, strings.Fields(os.Getenv("KEYS"))...)
	fmt.Println(m.View())
}
