package tui

import (
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
	if !strings.Contains(v, "1 question from the lesson") || strings.Contains(v, "1 questions") {
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
	c := compareView{common: newCommon(asciiRenderer()), a: b, b: b, sel: -1}
	c.sa.MaxOldestAgeS, c.sb.MaxOldestAgeS = 4080.5, 90
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
