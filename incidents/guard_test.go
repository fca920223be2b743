package incidents

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"inflight/internal/termtext"
)

// TestGuardSecondWall: what the parser lets through (zero-width and
// format characters, a story longer than any screen) is cleaned before
// the spec leaves Parse; what it refuses, it still refuses.
func TestGuardSecondWall(t *testing.T) {
	f := strings.Replace(minimal, "title: Tiny", "title: \"Ti\\u200Bny\\uFEFF\\u2060\"", 1) +
		"story: \"" + strings.Repeat("word ", 2000) + "\"\n" +
		"bookmarks:\n  - {at: \"10:00:01\", title: \"Fi\\u200Drst\\u200E\", words: \"a\\u061Cb\"}\n"
	s, err := Parse("tiny.yaml", []byte(f))
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Tiny" || s.Bookmarks[0].Title != "First" || s.Bookmarks[0].Words != "ab" {
		t.Errorf("title %q, bookmark %q %q", s.Title, s.Bookmarks[0].Title, s.Bookmarks[0].Words)
	}
	if n := len([]rune(s.Story)); n != termtext.Text.Max || !strings.HasSuffix(s.Story, "…") {
		t.Errorf("story of %d runes", n)
	}
	for _, bad := range []string{`\e]52;c;eA==\a`, `\u202Eevil`, `a\x9bb`} {
		f := strings.Replace(minimal, "title: Tiny", `title: "`+bad+`"`, 1)
		if _, err := Parse("tiny.yaml", []byte(f)); err == nil || !strings.Contains(err.Error(), "tiny.yaml:2:") {
			t.Errorf("title %s: %v, want refused at its line", bad, err)
		}
	}
}

// TestGuardKeepsBundledTexts: every text in every bundled file is one the
// guard leaves as it is, under the kind it is guarded as, so the guard
// changes no screen (the TUI goldens check the screens themselves).
func TestGuardKeepsBundledTexts(t *testing.T) {
	kinds := map[string]termtext.Kind{
		"story": termtext.Text, "words": termtext.Text, "question": termtext.Text, "explain": termtext.Text,
		"description": termtext.Text, "title": termtext.Line, "choices": termtext.Choice,
	}
	var walk func(path, key string, v any)
	walk = func(path, key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", key, x)
			}
		case string:
			k, ok := kinds[key]
			if !ok {
				k = termtext.Name
			}
			if got := termtext.Clean(v, k); got != v {
				t.Errorf("%s: the guard would show %q as %q", path, v, got)
			}
		}
	}
	names, err := fs.Glob(bundled, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	for _, n := range names {
		data, _ := bundled.ReadFile(n)
		var doc any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(n, err)
		}
		walk(n, "", doc)
	}
}
