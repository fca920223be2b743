package main

import (
	"path/filepath"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestImportBeats: an imported incident carries bookmarks at the model's
// first redelivery, refused ack, crash and dead letter, and ] lands just
// past the event each names.
func TestImportBeats(t *testing.T) {
	for _, c := range []struct {
		id   string
		want []string // at, title
	}{
		{"thursday", []string{
			"19:40:50.000", "The first redelivery: message 0, delivery 2",
			"19:40:59.826", "The first refused ack: message 0",
			"19:41:50.000", "The first dead letter: message 0",
		}},
		// the lesson's first crash, as its own bookmark has it
		{"cashback", []string{
			"10:00:05.281", "The first crash: event 133",
			"10:00:06.282", "The first redelivery: event 133, delivery 2",
		}},
	} {
		dir := t.TempDir()
		spans, out := filepath.Join(dir, "spans.json"), filepath.Join(dir, "mine.yaml")
		if _, stderr, code := runCLI("run", c.id, "--otlp", spans); code != 0 {
			t.Fatalf("%s: run --otlp: exit %d: %s", c.id, code, stderr)
		}
		if _, stderr, code := runCLI("import", spans, "-o", out); code != 0 {
			t.Fatalf("%s: import: exit %d: %s", c.id, code, stderr)
		}
		spec, err := incidents.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(spec.Bookmarks)*2 != len(c.want) {
			t.Fatalf("%s: %d bookmarks %+v, want %d", c.id, len(spec.Bookmarks), spec.Bookmarks, len(c.want)/2)
		}
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range spec.Bookmarks {
			if b.At.Clock() != c.want[2*i] || b.Title != c.want[2*i+1] || b.Words == "" {
				t.Errorf("%s: bookmark %d is %s %q (%q), want %s %q", c.id, i, b.At.Clock(), b.Title, b.Words, c.want[2*i], c.want[2*i+1])
			}
			x.SeekBookmark(b)
			evs := x.Events(x.Pos()-1, x.Pos())
			if len(evs) != 1 || x.World().KindName(evs[0].Event.Kind) != b.Event || evs[0].Event.Msg != b.Msg {
				t.Errorf("%s: bookmark %d lands after %+v, want its %s of %d", c.id, i, evs, b.Event, b.Msg)
			}
		}
	}
}
