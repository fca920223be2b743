package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
	"inflight/incidents"
)

// paneTokens are the shapes of short tokens a pane may use that a
// newcomer cannot decode without a legend ("LEO", "3× recv", "p1@12",
// "A1@A", "#2", "c1/t2", "(v3)", "T0417"): each one a pane uses must be
// declared in its incident's legend, by an entry of the same shape (the
// legend writes a number as N). An all-capital word must be declared as
// itself.
var paneTokens = []*regexp.Regexp{
	regexp.MustCompile(`\d+×`),
	regexp.MustCompile(`\bp\d+@\d+\b`),
	regexp.MustCompile(`\bp\d+\b`),
	regexp.MustCompile(`\b[A-Z]\d+@[A-Z]\b`),
	regexp.MustCompile(`#\d+`),
	regexp.MustCompile(`\bc\d+/t\d+\b`),
	regexp.MustCompile(`\bc\d+\b`),
	regexp.MustCompile(`\bv\d+\b`),
	regexp.MustCompile(`\bT\d{4}\b`),
	regexp.MustCompile(`\b(recv|pid|epoch|lag|dedup|committed)\b`),
	regexp.MustCompile(`↓\d+`),
}

var capsWord = regexp.MustCompile(`\b[A-Z][A-Z-]*[A-Z]\b`)

// TestLegendCoversPanes: for every bundled incident, at its start, each
// bookmark and its end, every short token its panes show is in the
// legend the help screen lists for it (the family's and the explorer's),
// and the help screen shows that legend. The tokens the issue named
// (LEO and LSO, "×", "↓N", the status line's "DLQ") are among the
// shapes checked.
func TestLegendCoversPanes(t *testing.T) {
	number := regexp.MustCompile(`\b[Nnm]\b`)
	for _, spec := range incidents.All() {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			t.Run(fmt.Sprintf("%s/%dx%d", spec.ID, size[0], size[1]), func(t *testing.T) {
				m := newTest(t, Options{Spec: spec}, size[0], size[1])
				fam := m.x.World().Family()
				terms := append(engine.LegendOf(fam), explorerLegend...)
				var shorts []string
				for _, tm := range terms {
					shorts = append(shorts, number.ReplaceAllString(tm.Short, "7"))
				}
				declared := strings.Join(shorts, "  ")
				words := map[string]bool{}
				for _, w := range capsWord.FindAllString(declared, -1) {
					words[w] = true
				}
				told := map[string]bool{} // each missing token once
				check := func(at, text string) {
					for _, re := range paneTokens {
						if tok := re.FindString(text); tok != "" && !re.MatchString(declared) && !told[re.String()] {
							told[re.String()] = true
							t.Errorf("%s: %q (%q) is in no legend entry: %s", at, tok, text, declared)
						}
					}
					for _, w := range capsWord.FindAllString(text, -1) {
						if !words[w] && !told[w] {
							told[w] = true
							t.Errorf("%s: %q (%q) is in no legend entry", at, w, text)
						}
					}
				}
				look := func(at string) {
					w := m.x.World()
					for _, p := range w.Family().Panes(w, m.snap.cursor(m.at, m.sel)) {
						check(at, p.Title)
						for _, r := range p.Rows {
							check(at, strings.Join([]string{r.Text, r.Mark, r.Tail}, " "))
						}
					}
					for _, l := range strings.Split(ansi.Strip(m.View()), "\n") { // the scroll marks, the status line
						if strings.Contains(l, "↓") && !strings.HasPrefix(l, "in flight") || strings.HasPrefix(l, "oldest ") {
							check(at+" (screen)", l)
						}
					}
				}
				look("start")
				for i := range spec.Bookmarks {
					m = press(m, "]")
					look(fmt.Sprintf("bookmark %d", i+1))
				}
				m = press(m, "G")
				look("end")
				m = press(m, "?")
				// the legend as ↓ scrolls it to its end
				lines := legendLines(m.st, fam, m.mainView().layout().body.w)
				help := ""
				for range lines {
					help += ansi.Strip(m.View())
					m = press(m, "down")
				}
				for _, l := range lines {
					if !strings.Contains(help, strings.TrimSpace(ansi.Strip(l))) {
						t.Errorf("the help screen does not show %q:\n%s", l, help)
					}
				}
				for _, want := range []string{"LEO", "LSO"} {
					if spec.ID == "kafka-restart" && !strings.Contains(help, want) {
						t.Errorf("kafka-restart's help has no %s:\n%s", want, help)
					}
				}
			})
		}
	}
}
