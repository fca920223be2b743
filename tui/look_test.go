package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"inflight/incidents"
)

// The look tool writes screens for a human to read, at any sizes, after
// any keys. It is not a test: without -look it does nothing.
//
//	go test ./tui -run TestLook -v -look 120x40,80x24 -look.incident db-down -look.keys "] ]" -look.out /tmp/screens
var (
	lookSizes    = flag.String("look", "", "write screens at these sizes (WxH, comma-separated)")
	lookIncident = flag.String("look.incident", "thursday", "the bundled incident to open")
	lookKeys     = flag.String("look.keys", "", "keys to press first, space-separated (see keyMsg)")
	lookOut      = flag.String("look.out", "", "directory for the screens (empty: print them; use -v)")
)

func TestLook(t *testing.T) {
	if *lookSizes == "" {
		t.Skip("a tool: pass -look WxH to write screens")
	}
	s, err := incidents.Get(*lookIncident)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range strings.Split(*lookSizes, ",") {
		var w, h int
		if _, err := fmt.Sscanf(size, "%dx%d", &w, &h); err != nil || w <= 0 || h <= 0 {
			t.Fatalf("-look %q: want WxH, e.g. 120x40", size)
		}
		m := press(newTest(t, Options{Spec: s}, w, h), strings.Fields(*lookKeys)...)
		screen := m.View() + "\n"
		if *lookOut == "" {
			fmt.Print(screen)
			continue
		}
		if err := os.MkdirAll(*lookOut, 0o755); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(*lookOut, fmt.Sprintf("%s-%dx%d.txt", s.ID, w, h))
		if err := os.WriteFile(name, []byte(screen), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", name)
	}
}
