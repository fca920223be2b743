package randsuite

import (
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestFiguresDefinedOnce: every key of every bundled incident's summary
// has its one definition in engine's table, and the table defines nothing
// a summary does not give.
func TestFiguresDefinedOnce(t *testing.T) {
	tags := map[string]bool{}
	st := reflect.TypeOf(engine.Summary{})
	for i := 0; i < st.NumField(); i++ {
		tag, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		tags[tag] = true
		if _, ok := engine.LookupFigure("", tag); !ok && tag != "incident" && tag != "seed" && tag != "figures" {
			t.Errorf("summary key %s has no definition in engine.SummaryFigures", tag)
		}
	}
	for _, f := range engine.SummaryFigures {
		if !tags[f.Key] && !strings.HasPrefix(f.Key, "figures.") {
			t.Errorf("engine.SummaryFigures defines %s, which no summary gives", f.Key)
		}
	}
	given := map[string]map[string]bool{}
	for _, spec := range incidents.All() {
		sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
		if err != nil {
			t.Fatal(err)
		}
		fam := familyName(spec)
		if fam == "" {
			t.Fatalf("%s: the registry has no family for it", spec.ID)
		}
		if given[fam] == nil {
			given[fam] = map[string]bool{}
		}
		for k := range sum.Figures {
			given[fam][k] = true
			if _, ok := engine.LookupFigure(fam, "figures."+k); !ok {
				t.Errorf("%s: figures.%s has no definition (engine.FamilyFigures[%q])", spec.ID, k, fam)
			}
		}
	}
	for fam, defs := range engine.FamilyFigures {
		for _, f := range defs {
			if !given[fam][f.Key] {
				t.Errorf("engine.FamilyFigures[%q] defines %s, which its incidents' summaries do not give", fam, f.Key)
			}
		}
	}
}

// TestREADMEFigures: the README's table of figures is the table's own
// rendering (go test ./internal/randsuite -run READMEFigures -update
// rewrites it).
func TestREADMEFigures(t *testing.T) {
	const begin, end = "<!-- figures: engine.FiguresMarkdown -->\n", "<!-- /figures -->\n"
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q section", strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	want := engine.FiguresMarkdown()
	if got := s[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile("../../README.md", []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's table of figures is not engine.FiguresMarkdown(); rerun with -update")
	}
}

var update = flag.Bool("update", false, "rewrite the README's table of figures")
