package tui

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"inflight/incidents"
)

// A terminal larger than the cap is drawn at the cap, its last line saying
// so; one within it is drawn whole, without the line; one too small says
// so, naming the terminal's own size.
func TestClampedSize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		note string // on the last line; "" none
		has  string // somewhere on screen
	}{
		{80, 24, "", "Thursday"},
		{MaxWidth, MaxHeight, "", "Thursday"},
		{65535, 65535, "terminal 65535×65535 is larger than inflight draws; drawing 500×200", "Thursday"},
		{10000, 10000, "terminal 10000×10000 is larger than inflight draws; drawing 500×200", "Thursday"},
		{MaxWidth + 1, 40, "terminal 501×40 is larger than inflight draws; drawing 500×40", "Thursday"},
		{120, MaxHeight + 1, "terminal 120×201 is larger than inflight draws; drawing 120×200", "Thursday"},
		{1 << 31, 1 << 31, "terminal 2147483648×2147483648 is larger than inflight draws; drawing 500×200", "Thursday"},
		{65535, minHeight, "", "Thursday"}, // no room for the line: drawn at 500×16
		{65535, 10, "", "inflight needs at least 60×16 (this is 65535×10)"},
		{40, 65535, "", "inflight needs at least 60×16"}, // the rest is cut at 40
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			m := newTest(t, Options{}, c.w, c.h)
			v := m.View()
			w, h := min(c.w, MaxWidth), min(c.h, MaxHeight)
			checkFrame(t, "clamped", v, w, h)
			lines := strings.Split(ansi.Strip(v), "\n")
			last := strings.TrimSpace(lines[len(lines)-1])
			if c.note != "" && last != c.note {
				t.Errorf("last line %q, want %q", last, c.note)
			}
			if c.note == "" && strings.Contains(v, "larger than inflight draws") {
				t.Errorf("a note without a clamp:\n%s", v)
			}
			if !strings.Contains(ansi.Strip(v), c.has) {
				t.Errorf("no %q on screen:\n%s", c.has, v)
			}
			// and back to a normal terminal: the note goes
			m = resize(m, 100, 30)
			v = m.View()
			checkFrame(t, "back to 100×30", v, 100, 30)
			if strings.Contains(v, "larger than inflight draws") {
				t.Errorf("the note stays at 100×30:\n%s", v)
			}
		})
	}
}

// The frames real screens draw at the cap stay under MaxFrameBytes with a
// margin, in true colour (the most bytes a cell): every bundled incident
// at its start, bookmarks and end, with its screens open. The largest is
// logged: the cap's figure in View's comment comes from here.
func TestFrameAtCap(t *testing.T) {
	if testing.Short() {
		t.Skip("every incident's screens at the cap")
	}
	largest, where := 0, ""
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		m := newTest(t, Options{Spec: spec}, 80, 24)
		m.common = newCommon(lipgloss.NewRenderer(io.Discard, termenv.WithProfile(termenv.TrueColor)))
		m = resize(m, MaxWidth+1, MaxHeight+1) // with the note
		for _, script := range []string{"", "] ]", "] ] ]", "G", "?", "f", "b", "e", "y", "i", "x", "enter", "] c"} {
			mm := press(m, keysOf(script)...)
			v := mm.View()
			if len(v) > largest {
				largest, where = len(v), id+" "+script
			}
			checkFrame(t, id+" "+script, v, MaxWidth, MaxHeight)
		}
		m.Release()
	}
	t.Logf("largest frame at %d×%d: %d bytes (%s)", MaxWidth, MaxHeight, largest, where)
	if largest > MaxFrameBytes/4 {
		t.Errorf("a real frame of %d bytes at the cap: MaxFrameBytes (%d) leaves it less than four times over", largest, MaxFrameBytes)
	}
}

// A frame over MaxFrameBytes is cut to whole lines that fit, the last one
// saying so: no more lines than it had, none cut in the middle.
func TestBoundFrame(t *testing.T) {
	line := "\x1b[31m" + strings.Repeat("█", 400) + "\x1b[0m"
	var rows []string
	for range 2000 {
		rows = append(rows, line)
	}
	big := strings.Join(rows, "\n")
	got := boundFrame(big, 400)
	if len(got) > MaxFrameBytes {
		t.Fatalf("cut frame is %d bytes, over %d", len(got), MaxFrameBytes)
	}
	lines := strings.Split(got, "\n")
	if len(lines) > len(rows) || len(lines) < 2 {
		t.Fatalf("%d lines from %d", len(lines), len(rows))
	}
	for i, l := range lines[:len(lines)-1] {
		if strings.TrimSuffix(l, ansi.ResetStyle) != line {
			t.Fatalf("line %d is not a whole line of the frame: %q…", i, l[:min(len(l), 40)])
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "this screen is over 1024 KB and was cut") || lipgloss.Width(last) != 400 {
		t.Errorf("last line %q", last)
	}
	if one := boundFrame(strings.Repeat("x", MaxFrameBytes+1), 80); strings.Contains(one, "\n") || !strings.Contains(one, "was cut") {
		t.Errorf("one line over the cap gives %q", one[:min(len(one), 100)])
	}
	if small := "a\nb"; boundFrame(small, 1) != small {
		t.Error("a small frame was changed")
	}
}

// A follower resizing on and on while the stage stands still leaves at
// most maxStageFrames frames kept, and one too small for the stage is told
// its own size.
func TestStageFramesBounded(t *testing.T) {
	s := NewStage()
	defer s.Close()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	defer p.Release()
	p = press(p, "]")
	sh := NewShared(DefaultBudget(), nil, 0)
	for i := range maxStageFrames + 16 {
		if v, _, _, _, _ := s.frame(minWidth+i, 20, ascii, sh, 0); v == "" {
			t.Fatalf("no frame at %d×20", minWidth+i)
		}
	}
	s.frames.mu.Lock()
	n := len(s.frames.byKey)
	s.frames.mu.Unlock()
	if n > maxStageFrames {
		t.Errorf("%d frames kept for one moment, over %d", n, maxStageFrames)
	}
	if v, _, _, _, _ := s.frame(50, 12, ascii, sh, 0); !strings.Contains(v, "(this is 50×12)") {
		t.Errorf("a follower at 50×12 gets:\n%s", v)
	}
}
