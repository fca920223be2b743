package tui

import (
	"os"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestClockNeverPassesTheEnd: autoplay's last frame, L at the end and a
// bookmark after the run's last event all leave the clock at the end, so
// that the share code of what is on screen is one the explorer opens
// (a code's clock after its branch's end is refused).
func TestClockNeverPassesTheEnd(t *testing.T) {
	spec, err := incidents.Get("fifo-window")
	if err != nil {
		t.Fatal(err)
	}
	opens := func(t *testing.T, m Model, how string) {
		t.Helper()
		w := m.x.World()
		if !m.x.AtEnd() || m.at != w.Now {
			t.Fatalf("%s: clock %s, the branch's end %s (at end: %v)", how, m.at.Clock(), w.Now.Clock(), m.x.AtEnd())
		}
		c, err := engine.ParseCode(m.shareCode())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.OpenCode(c, m.x.Spec); err != nil {
			t.Fatalf("%s: its code %s does not open: %v", how, c, err)
		}
	}

	m := press(newTest(t, Options{Spec: spec}, 120, 40), "G", "L", "L")
	opens(t, m, "G L L")

	// autoplay at 300×: a frame is 15 s of the incident, past the end
	m = newTest(t, Options{Spec: spec}, 120, 40)
	for speeds[m.play.speed] != 300 && m.play.speed+1 < len(speeds) {
		m = press(m, "+")
	}
	m = press(m, "space")
	if speeds[m.play.speed] != 300 || !m.play.on {
		t.Fatalf("speed %v, playing %v", speeds[m.play.speed], m.play.on)
	}
	for i := 0; m.play.on; i++ {
		if i > 10000 {
			t.Fatal("autoplay never reached the end")
		}
		nm, _ := m.Update(playTickMsg{gen: m.play.gen})
		m = nm.(Model)
	}
	opens(t, m, "autoplay")

	// a file loaded without validate's run check: its last bookmark is an
	// hour after the run ends
	data, err := os.ReadFile("../incidents/fifo-window.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	i := strings.LastIndex(src, "  - at: \"")
	if i < 0 {
		t.Fatal("fifo-window has no bookmarks")
	}
	j := i + len("  - at: \"") + strings.IndexByte(src[i+len("  - at: \""):], '"')
	late, err := incidents.Parse("late.yaml", []byte(src[:i]+"  - at: \"15:30:00"+src[j:]))
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(late.Bookmarks))
	for k := range keys {
		keys[k] = "]"
	}
	m = press(newTest(t, Options{Spec: late}, 120, 40), keys...)
	opens(t, m, "] to a bookmark after the end")
}
