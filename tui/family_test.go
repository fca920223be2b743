package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
	"inflight/incidents"
)

// familyGoldens are the family incidents with golden screens here, and
// the screens: db-down's own, cashback's the screens every incident has.
// The other families' screens are TestIncidentGoldens'. A listed
// incident or screen without its golden fails: to pin another, list it
// and run -update.
var familyGoldens = []struct {
	id      string
	screens []string
}{
	{"db-down", []string{"start", "bookmark2", "bookmark4", "end", "fork", "story", "exercise1", "exercise1-drain", "compare"}},
	{"cashback", []string{"start", "bookmark2", "end", "fork", "story-first"}},
}

// keysOf splits a key script; "/HH:MM:SS" types a jump to that clock.
func keysOf(script string) []string {
	var out []string
	for _, f := range strings.Fields(script) {
		if strings.HasPrefix(f, "/") && len(f) > 1 {
			out = append(out, "/")
			for _, r := range f[1:] {
				out = append(out, string(r))
			}
			out = append(out, "enter")
			continue
		}
		out = append(out, f)
	}
	return out
}

// TestFamilyGolden pins family incidents' screens at 120×40 and 80×24:
// update with go test ./tui -run TestFamilyGolden -update
func TestFamilyGolden(t *testing.T) {
	keys := map[string]string{
		"start":           "",
		"bookmark2":       "] ]",
		"bookmark4":       "] ] ] ]",
		"end":             "G",
		"fork":            "] ] f",
		"story":           "] ] ] enter",
		"story-first":     "] ] down enter", // the first message on screen
		"exercise1":       "e 1 /10:05:30",
		"exercise1-drain": "e 1 /10:10:30",
		"compare":         "e 1 c",
	}
	for _, fg := range familyGoldens {
		spec, err := incidents.Get(fg.id)
		if err != nil {
			t.Fatalf("%s: %v", fg.id, err)
		}
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			for _, name := range fg.screens {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", fg.id, size[0], size[1], name), func(t *testing.T) {
					golden.RequireEqual(t, []byte(viewAfterOn(t, Options{Spec: spec}, size[0], size[1], keysOf(keys[name])...)))
				})
			}
		}
	}
}

// TestFamilyPanes checks that a family incident draws the family's own
// panes, its marks legible without colour, and no queue words.
func TestFamilyPanes(t *testing.T) {
	spec, err := incidents.Get("db-down")
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}, {200, 60}} {
		m := newTest(t, Options{Spec: spec}, size[0], size[1])
		m = press(m, keysOf("/10:00:09")...)
		v := m.View()
		for _, want := range []string{"Consumer", "Dead letters", "Database DOWN", "RETRY", "NOT POISON", "effects"} {
			if !strings.Contains(v, want) {
				t.Errorf("%dx%d: no %q on screen:\n%s", size[0], size[1], want, v)
			}
		}
		for _, not := range []string{"emails", "busy ", "In flight"} {
			if strings.Contains(v, not) {
				t.Errorf("%dx%d: queue word %q on a family screen", size[0], size[1], not)
			}
		}
	}
}

// TestForkFormKnobs checks that the fork form lists only the knobs the
// incident reads, for every incident: its featured knobs first, focused
// on the first, then the rest by name.
func TestForkFormKnobs(t *testing.T) {
	for _, spec := range incidents.All() {
		if len(spec.FeaturedKnobs) == 0 {
			t.Errorf("%s: no featured_knobs", spec.ID)
		}
		m := newTest(t, Options{Spec: spec}, 120, 40)
		m = press(m, "l", "f")
		want := append([]string(nil), spec.FeaturedKnobs...)
		for _, k := range engine.KnobsFor(spec) {
			if !slices.Contains(want, k.Name) {
				want = append(want, k.Name)
			}
		}
		if len(m.fork.knobs) != len(want) {
			t.Fatalf("%s: form lists %d knobs, the incident reads %d", spec.ID, len(m.fork.knobs), len(want))
		}
		for i, k := range want {
			if m.fork.knobs[i].Name != k {
				t.Fatalf("%s: knob %d is %s, want %s", spec.ID, i, m.fork.knobs[i].Name, k)
			}
		}
		if len(want) > 0 && m.fork.row != 1 {
			t.Errorf("%s: focus on row %d, not on the featured knob", spec.ID, m.fork.row)
		}
	}
}

// TestFamilyForkBreaker forks breaker=true from the fork form at 10:05 and
// checks the branch against the headless run with --at.
func TestFamilyForkBreaker(t *testing.T) {
	spec, err := incidents.Get("db-down")
	if err != nil {
		t.Fatal(err)
	}
	m := newTest(t, Options{Spec: spec}, 120, 40)
	m = press(m, keysOf("/10:05:00 f")...)
	if m.state != stateFork {
		t.Fatalf("state %s", m.state)
	}
	for m.fork.row < 1 || m.fork.knobs[m.fork.row-1].Name != "breaker" {
		m = press(m, "down")
	}
	m = press(m, "right", "enter")
	if m.state != stateMain || m.x.Branch().Parent == nil {
		t.Fatalf("no fork: %s %q", m.state, m.fork.err)
	}
	got := m.x.Summary(m.x.Branch())
	at := clock(t, "10:05:00")
	want, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: at, AtSet: []engine.Setting{{Knob: "breaker", Value: "true"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got.TraceSHA256 != want.TraceSHA256 {
		t.Fatalf("fork form branch dlq %d, headless --at dlq %d", got.DLQ, want.DLQ)
	}
}

func TestChartCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 99_999: "99999", 199_780: "200k", 372_000: "372k", 12_345_678: "12.3M"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
