package tui

import (
	"regexp"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestOneQuestion: christmas-friday has one exercise: "1 question", not
// "1 questions".
func TestOneQuestion(t *testing.T) {
	spec, err := incidents.Get("christmas-friday")
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Exercises) != 1 {
		t.Skipf("christmas-friday has %d exercises", len(spec.Exercises))
	}
	v := viewAfterOn(t, Options{Spec: spec}, 120, 40, "e")
	if !strings.Contains(v, "1 question: 0 from the lesson, 1 written for this incident") || strings.Contains(v, "1 questions") {
		t.Fatalf("want \"1 question\":\n%s", v)
	}
}

// TestCompareHumanDuration: an oldest age of 1h08m reads "1h08m", not
// "4080.5s", and so does its difference.
func TestCompareHumanDuration(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := x.Branch()
	c := compareView{common: newCommon(asciiRenderer()), a: compareHeading(b), b: compareHeading(b), sel: -1}
	c.cmp.A.MaxOldestAgeS, c.cmp.B.MaxOldestAgeS = 4080.5, 90
	c.SetSize(100, 40)
	v := c.View()
	for _, want := range []string{"1h08m", "1m30s", "-1h06m"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in:\n%s", want, v)
		}
	}
	if strings.Contains(v, "4080") {
		t.Errorf("seconds past an hour:\n%s", v)
	}
}

// TestMovingClearsStaleNews: a flash about where the cursor was is gone
// once the cursor moves (`» end of the branch` stayed after g).
func TestMovingClearsStaleNews(t *testing.T) {
	const news = "nothing at this moment has happened yet"
	keys := keysOf("/19:45:30.5")
	if v := viewAfter(t, 120, 40, keys...); !strings.Contains(v, news) {
		t.Fatalf("no news to go stale:\n%s", v)
	}
	for _, k := range []string{"g", "]", "l"} {
		if v := viewAfter(t, 120, 40, append(keys, k)...); strings.Contains(v, news) {
			t.Errorf("after %s the news stays:\n%s", k, v)
		}
	}
}

// TestBookmarkOnMain: on a branch that raised the visibility timeout to
// 60 s at 19:52:00 there is no redelivery at 19:52:30: that bookmark's
// words are main's, and it says so; the one at the fork point is still
// this branch's.
func TestBookmarkOnMain(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.ParseSetting("visibility_timeout=60s")
	if err != nil {
		t.Fatal(err)
	}
	at := spec.Bookmarks[0].At // 19:52:00
	x.SeekTime(at)
	if _, err := x.Fork(engine.ForkOptions{Name: "raise", Pos: x.Pos(), At: at, Set: []engine.Setting{st}}); err != nil {
		t.Fatal(err)
	}
	v := viewAfterOn(t, Options{Spec: spec, Explorer: x}, 120, 40, "]")
	if !strings.Contains(v, "Bookmark 1/5") || strings.Contains(v, "on main:") {
		t.Fatalf("at the fork point the bookmark is the branch's own:\n%s", v)
	}
	v = viewAfterOn(t, Options{Spec: spec, Explorer: x}, 120, 40, "]", "]")
	if !strings.Contains(v, "Bookmark 2/5 · 19:52:30 · on main: ") {
		t.Fatalf("the 19:52:30 bookmark does not say it is main's:\n%s", v)
	}
	// on main itself, no bookmark says so
	if v := viewAfter(t, 120, 40, "]", "]"); strings.Contains(v, "on main:") {
		t.Fatalf("on main a bookmark says \"on main\":\n%s", v)
	}
}

// TestNumberKeepsItsUnit: wrapping never parts a number from its unit
// ("(could be 31" over "s–40 s)").
func TestNumberKeepsItsUnit(t *testing.T) {
	s := "provider latency, order 14, delivery 1: 34 s (could be 31 s–40 s) and 250 ms more"
	for w := 12; w <= len(s); w++ {
		for _, lines := range [][]string{wrap(s, w), wrapCells(s, w)} {
			for i, l := range lines {
				l = strings.TrimRight(l, " ")
				if i+1 < len(lines) && regexp.MustCompile(`\d$`).MatchString(l) && regexp.MustCompile(`^ *(s|ms)\b`).MatchString(lines[i+1]) {
					t.Errorf("width %d: %q / %q", w, l, lines[i+1])
				}
				if strings.Contains(l, "\u00a0") {
					t.Errorf("width %d: a no-break space left in %q", w, l)
				}
			}
			if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != s {
				t.Errorf("width %d: words changed: %q", w, got)
			}
		}
	}
}
