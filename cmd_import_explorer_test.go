package main

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"inflight/incidents"
	"inflight/tui"
)

// TestImportedExplorer opens an imported Thursday in the explorer as a
// program: its title, its story, and ] on the importer's first bookmark
// with its words. The bound only ends a hang; every wait is on output.
func TestImportedExplorer(t *testing.T) {
	dir := t.TempDir()
	spans, out := filepath.Join(dir, "spans.json"), filepath.Join(dir, "mine.yaml")
	if _, stderr, code := runCLI("run", "thursday", "--otlp", spans); code != 0 {
		t.Fatalf("run --otlp: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI("import", spans, "-o", out); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	spec, err := incidents.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tui.New(tui.Options{Spec: spec, Renderer: lipgloss.NewRenderer(io.Discard, termenv.WithProfile(termenv.Ascii))})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	wait := func(texts ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, s := range texts {
				if !bytes.Contains(b, []byte(s)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(time.Minute), teatest.WithCheckInterval(10*time.Millisecond))
	}
	wait("Imported: thursday", "108 messages on thursday as the spans recorded them", "21:11:07")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")})
	wait("Bookmark 1/3", "The first redelivery: message 0, delivery 2")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(time.Minute))
}
