package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
)

// TestDocsPlan: the lesson's plan in docs/ loads, crosses the incidents
// in the lesson's order, and every beat has notes for the presenter.
func TestDocsPlan(t *testing.T) {
	p, err := Load(filepath.Join("..", "docs", "workshop.plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	questions := 0
	for i, b := range p.Beats {
		if len(order) == 0 || order[len(order)-1] != b.Incident {
			order = append(order, b.Incident)
		}
		if strings.TrimSpace(b.Notes) == "" {
			t.Errorf("beat %d (%s) has no notes", i+1, b.Title)
		}
		if b.Question != "" {
			questions++
		}
	}
	if got := strings.Join(order, " "); !strings.HasPrefix(got, "thursday thursday-fixed thursday christmas-friday") {
		t.Errorf("incidents in order: %s", got)
	}
	if len(p.Beats) < 12 || questions < 4 {
		t.Errorf("%d beats, %d questions: not two hours", len(p.Beats), questions)
	}
}

const good = `plan: "Thursday, then the fix"
beats:
  - incident: thursday
    bookmark: "Order placed, delivered"
    title: "Order 14"
    notes: |
      First line.

      Second paragraph.
  - incident: thursday
    question: 5
    title: "The late ack"
  - incident: thursday-fixed
    at: "19:52:00 #181"
    title: "The claim"
  - incident: thursday
    at: "19:40:20"
    question: "3"
    title: "Ack before"
  - incident: thursday
    bookmark: "Lease expires, redelivered"
    question: "5"
    title: "At its own bookmark"
`

// TestParseGood: each way of naming a beat's moment, read back.
func TestParseGood(t *testing.T) {
	p, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	clock := func(s string) engine.Time {
		c, err := engine.ParseClock(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	want := []struct {
		incident string
		at       engine.ForkMoment
		bookmark int
		question string
		asks     bool
		line     int
	}{
		{"thursday", engine.ForkMoment{At: clock("19:52:00"), Pos: -1}, 0, "", false, 3},
		{"thursday", engine.ForkMoment{At: clock("19:52:30"), Pos: -1}, -1, "5", true, 10},
		{"thursday-fixed", engine.ForkMoment{At: clock("19:52:00"), Pos: 181}, -1, "", false, 13},
		{"thursday", engine.ForkMoment{At: clock("19:40:20"), Pos: -1}, -1, "3", false, 16},
		{"thursday", engine.ForkMoment{At: clock("19:52:30"), Pos: -1}, 1, "5", true, 20},
	}
	if p.Title != "Thursday, then the fix" || len(p.Beats) != len(want) {
		t.Fatalf("%q, %d beats", p.Title, len(p.Beats))
	}
	for i, w := range want {
		b := p.Beats[i]
		if b.Incident != w.incident || b.At != w.at || b.Bookmark != w.bookmark || b.Question != w.question || b.Asks != w.asks || b.Line != w.line {
			t.Errorf("beat %d: %+v, want %+v", i+1, b, w)
		}
	}
	if n := p.Beats[0].Notes; !strings.Contains(n, "First line.\n\nSecond paragraph.") {
		t.Errorf("notes lost their lines: %q", n)
	}
	if w := p.Beats[2].Where(); w != "19:52:00 #181" {
		t.Errorf("where: %q", w)
	}
}

// TestParseBad: each mistake is refused at its line and column, naming
// the field.
func TestParseBad(t *testing.T) {
	beat := func(lines ...string) string {
		return "plan: \"P\"\nbeats:\n  - " + strings.Join(lines, "\n    ") + "\n"
	}
	long := strings.Repeat("x", MaxTitleRunes+1)
	cases := []struct {
		name, src, want string
	}{
		{"empty", "", "empty file: want plan"},
		{"no title", "beats:\n  - {incident: thursday, at: \"19:52:00\", title: T}\n", "missing plan:"},
		{"no beats", "plan: P\n", "beats: a plan needs at least one beat"},
		{"unknown key", beat("incident: thursday", "at: \"19:52:00\"", "title: T", "colour: red"), `:6:5: unknown key "colour" in beats[0]`},
		{"misspelt key", beat("incident: thursday", "at: \"19:52:00\"", "titl: T"), `did you mean "title"?`},
		{"unknown incident", beat("incident: tuesday", "at: \"19:52:00\"", "title: T"), `:3:15: beats[0].incident: unknown incident "tuesday" (incidents: thursday`},
		{"no incident", beat("at: \"19:52:00\"", "title: T"), ":3:7: beats[0]: missing incident"},
		{"no moment", beat("incident: thursday", "title: T"), "beats[0]: missing at or bookmark"},
		{"both", beat("incident: thursday", "at: \"19:52:00\"", "bookmark: \"Third delivery\"", "title: T"), ":5:15: beats[0].bookmark: give at or bookmark, not both"},
		{"bad moment", beat("incident: thursday", "at: \"7pm\"", "title: T"), ":4:9: beats[0].at:"},
		{"bad count", beat("incident: thursday", "at: \"19:52:00 #x\"", "title: T"), "after '#' comes an event count"},
		{"before start", beat("incident: thursday", "at: \"19:00:00\"", "title: T"), "beats[0].at: 19:00:00 is before thursday starts (19:40:20)"},
		{"unknown bookmark", beat("incident: thursday", "bookmark: \"The end\"", "title: T"), `beats[0].bookmark: thursday has no bookmark titled "The end" (its bookmarks: "Order placed, delivered"`},
		{"unknown question", beat("incident: thursday", "at: \"19:52:00\"", "question: \"9\"", "title: T"), `:5:15: beats[0].question: thursday has no exercise "9" (its exercises: 1, 2, 3, 4, 5, 6, 7)`},
		{"question elsewhere", beat("incident: thursday", "at: \"19:52:00\"", "question: \"5\"", "title: T"), "beats[0].at: question 5 is asked at its own moment, 19:52:30"},
		{"no beat title", beat("incident: thursday", "at: \"19:52:00\""), ":3:13: beats[0]: missing title"},
		{"blank title", beat("incident: thursday", "at: \"19:52:00\"", "title: \"  \""), "beats[0].title: blank"},
		{"long title", beat("incident: thursday", "at: \"19:52:00\"", "title: "+long), "beats[0].title: 81 characters; at most 80"},
		{"title on two lines", beat("incident: thursday", "at: \"19:52:00\"", "title: \"a\\nb\""), "only notes may have several lines"},
		{"control character", beat("incident: thursday", "at: \"19:52:00\"", "title: \"a\\x1b[2Jb\""), "a control character"},
		{"bidi", beat("incident: thursday", "at: \"19:52:00\"", "title: \"a\u202eb\""), "a control character"},
		{"long notes", beat("incident: thursday", "at: \"19:52:00\"", "title: T", "notes: "+strings.Repeat("n", MaxNotesRunes+1)), "beats[0].notes: 4001 characters; a beat's notes may have at most 4000"},
		{"a list for a title", beat("incident: thursday", "at: \"19:52:00\"", "title: [a, b]"), "beats[0].title: want text, got a list"},
		{"tag", beat("incident: !!str thursday", "at: \"19:52:00\"", "title: T"), "take no YAML tags"},
		{"two documents", "plan: P\nbeats: []\n---\nplan: Q\n", "one plan per file"},
	}
	for _, c := range cases {
		_, err := Parse("bad.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.name, err, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "bad.yaml:") {
			t.Errorf("%s: %q does not name the file", c.name, err)
		}
	}
}

// TestParseBounds: more beats than a plan may have is refused before any
// is checked, and the file's size bound is the incident files'.
func TestParseBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("plan: P\nbeats:\n")
	for range MaxBeats + 1 {
		b.WriteString("  - {incident: thursday, at: \"19:52:00\", title: T}\n")
	}
	if _, err := Parse("many.yaml", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "101 beats; a plan may have at most 100") {
		t.Errorf("too many beats: %v", err)
	}
	big := "plan: P\n#" + strings.Repeat("x", incidents.MaxFileBytes) + "\n"
	if _, err := Parse("big.yaml", []byte(big)); err == nil || !strings.Contains(err.Error(), "plan may be at most") {
		t.Errorf("too big: %v", err)
	}
	deep := "plan: P\nbeats: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n"
	if _, err := Parse("deep.yaml", []byte(deep)); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("too deep: %v", err)
	}
}

// TestLoad: a missing file and a directory are refused with their name.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "plan file: ") || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("missing: %v", err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("a directory: %v", err)
	}
	f := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(f, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(f); err != nil {
		t.Error(err)
	}
}

// TestIs: a plan is told from an incident by its top-level plan: key.
func TestIs(t *testing.T) {
	for _, c := range []struct {
		src string
		is  bool
	}{
		{good, true},
		{"\xef\xbb\xbfplan : x\n", true},
		{"# a plan\nbeats: []\nplan: x\n", true},
		{"id: thursday\ntitle: plan: x\n", false},
		{"id: x\n  plan: y\n", false},
		{"planning: x\n", false},
	} {
		if got := Is([]byte(c.src)); got != c.is {
			t.Errorf("Is(%q) = %v", c.src, got)
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "incidents", "thursday.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if Is(data) {
		t.Error("thursday.yaml is taken for a plan")
	}
}

// FuzzParse: no input panics or hangs the parser, and what loads is
// bounded and passes the text guard unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	if data, err := os.ReadFile(filepath.Join("..", "docs", "workshop.plan.yaml")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("plan: P\nbeats:\n  - &a {incident: thursday, at: \"19:52:00\", title: T}\n  - *a\n"))
	f.Add([]byte("plan: [\nbeats: {"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\x1b") {
				t.Fatalf("an escape in the message: %q", err)
			}
			return
		}
		if len(p.Beats) == 0 || len(p.Beats) > MaxBeats {
			t.Fatalf("%d beats", len(p.Beats))
		}
		for _, b := range p.Beats {
			if termtext.Clean(b.Title, termtext.Line) != b.Title || termtext.Clean(b.Notes, termtext.Text) != b.Notes || b.Title == "" {
				t.Fatalf("beat %q past the guard", b.Title)
			}
			if _, err := incidents.Get(b.Incident); err != nil {
				t.Fatal(err)
			}
		}
	})
}
