package tui

import (
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// The chart covers the whole run, on an axis that never moves: a big
// run's first frame holds the chart's place with its pass's progress and
// no axis, the explorer having played nothing; once the pass is done the
// axis is the run's, and moving the cursor never rescales it.
func TestChartWholeRunFromFirstFrame(t *testing.T) {
	sh := NewShared(DefaultBudget(), nil, 0)
	o := Options{Set: []engine.Setting{{Knob: "orders", Value: "100000"}}, Shared: sh, Renderer: asciiRenderer()}
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	m = resize(m, 120, 40)
	if m.mainView().chartReady() {
		t.Fatal("a 100,000-order run was charted within its first frame")
	}
	if f := m.View(); !strings.Contains(f, "charting the whole run") || strings.Contains(f, "▲") {
		t.Fatalf("the first frame should hold the chart's place, with no axis:\n%s", f)
	}
	if m.x.Branch().Len() > 0 {
		t.Fatalf("the explorer played %d events to draw the first frame", m.x.Branch().Len())
	}
	waitChart(m)
	samples, end, done := chartOf(m)
	if !done || len(samples) == 0 || samples[len(samples)-1].T > end {
		t.Fatalf("chart pass: done %v, %d samples, end %s", done, len(samples), end.Clock())
	}
	t0, t1 := m.mainView().chartSpan()
	if t1 != end {
		t.Fatalf("axis ends at %s, the run at %s", t1.Clock(), end.Clock())
	}
	for _, k := range []string{"l", "l", "L", "]", "]", "n", "L"} {
		m = press(m, k)
		if a, b := m.mainView().chartSpan(); a != t0 || b != t1 {
			t.Fatalf("after %s at %s the axis is %s–%s, was %s–%s", k, m.at.Clock(), a.Clock(), b.Clock(), t0.Clock(), t1.Clock())
		}
	}

	// a second session on the same run shares the chart: no second pass
	m2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if m2.charts.cur != m.charts.cur {
		t.Fatal("a second session started its own chart pass")
	}
	if _, _, done := chartOf(m2); !done {
		t.Fatal("the shared chart is not complete for the second session")
	}
}

// TestChartAxisStableEveryIncident: for every bundled incident, while
// its pass runs beside the session, every frame that draws the chart's axis ends it
// at the run's end: the first such frame and the last agree. Stagefront's
// axis once read 10:00:01, then 10:01:45, then 10:02:24 as its pass went.
func TestChartAxisStableEveryIncident(t *testing.T) {
	for _, spec := range incidents.All() {
		t.Run(spec.ID, func(t *testing.T) {
			sh := NewShared(DefaultBudget(), nil, 0) // no chart from another test
			m, err := New(Options{Spec: spec, Shared: sh, Renderer: asciiRenderer()})
			if err != nil {
				t.Fatal(err)
			}
			m = resize(m, 120, 40)
			axis := func(v string) (string, bool) {
				for _, l := range strings.Split(v, "\n") {
					if strings.Contains(l, "▲") {
						f := strings.Fields(l)
						return f[len(f)-1], true
					}
				}
				return "", false
			}
			v := m.View() // once: the pass fills in meanwhile
			first, drawn := axis(v)
			if !drawn && !strings.Contains(v, "charting the whole run") {
				t.Fatalf("first frame has neither the chart nor its place:\n%s", v)
			}
			waitChart(m)
			nm, _ := m.Update(chartTickMsg{m.charts.cur})
			m = nm.(Model)
			last, ok := axis(m.View())
			_, end, done := chartOf(m)
			if !ok || !done || last != headerClock(end) {
				t.Fatalf("last frame: axis %q (drawn %v), pass done %v, run ends %s", last, ok, done, end.Clock())
			}
			if drawn && first != last {
				t.Fatalf("the axis moved: %s in the first frame, %s in the last", first, last)
			}
		})
	}
}

// A fork's chart is its own whole run, its parent's up to the fork point.
func TestChartOfFork(t *testing.T) {
	m := press(start(t), "]", "]", "]", "f")
	m.fork.inputs[knobRow(t, m, "visibility_timeout")].SetValue("60s")
	m = press(m, "enter")
	if m.state != stateMain || m.x.Branch().Parent == nil {
		t.Fatalf("no fork: %s", m.fork.err)
	}
	samples, end, done := chartOf(m)
	if !done {
		t.Fatal("the fork's chart did not finish")
	}
	m = press(m, "G")
	if m.x.World().Now != end || samples[len(samples)-1].Pos > m.x.Branch().Len() {
		t.Fatalf("the fork's chart ends at %s, the fork at %s", end.Clock(), m.x.World().Now.Clock())
	}
}

// The picker lists the incidents parsed once per process: every session,
// and every time it opens, gets the same specs.
func TestPickerParsesOnce(t *testing.T) {
	a, b := start(t), start(t)
	if a.x.Spec != b.x.Spec {
		t.Fatal("two sessions parsed thursday twice")
	}
	specs := func(m Model) []*engine.Spec {
		m = press(m, "i")
		var out []*engine.Spec
		for _, it := range m.picker.list.Items() {
			out = append(out, it.(incidentItem).spec)
		}
		return out
	}
	first, again := specs(a), specs(b)
	if len(first) == 0 || len(first) != len(again) {
		t.Fatalf("%d then %d incidents", len(first), len(again))
	}
	for i := range first {
		if first[i] != again[i] {
			t.Fatalf("%s was parsed again", first[i].ID)
		}
	}
	if first[0] != incidents.All()[0] {
		t.Fatal("the picker does not use the process's parsed incidents")
	}
}

// peakSink records each chart series' highest value over a whole run.
type peakSink struct{ p [4]float64 }

func (s *peakSink) Event(w *engine.World, _ *engine.Event, _ *engine.Decision) {
	waiting, taken := w.Family().Counts(w)
	v := [4]float64{float64(waiting), float64(taken), float64(w.DLQLen()), float64(w.Stats.Effects)}
	for i := range v {
		s.p[i] = max(s.p[i], v[i])
	}
}

// TestChartMaxIsTheRuns: every series' chart "max" is the run's peak, for
// every bundled incident, though the series is decimated (christmas-friday's
// DLQ peaks at 40, the chart once said 39; cashback's queue at 5000, the
// chart said 4993).
func TestChartMaxIsTheRuns(t *testing.T) {
	for _, spec := range incidents.All() {
		t.Run(spec.ID, func(t *testing.T) {
			w, err := engine.NewWorld(spec, spec.Seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			samples, _, err := engine.ChartRun(w, 0, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			samples = withEnd(samples, w)
			w, _ = engine.NewWorld(spec, spec.Seed, nil)
			var ps peakSink
			for w.Step(&ps) {
			}
			got := samplePeaks(samples)
			for i, name := range []string{"queue", "in flight", "DLQ", "effects"} {
				if got[i] != ps.p[i] {
					t.Errorf("%s: chart max %v, the run's peak %v", name, got[i], ps.p[i])
				}
			}
			if spec.ID == "christmas-friday" && got[2] != 40 {
				t.Errorf("DLQ max %v, want 40", got[2])
			}
		})
	}
}

// TestChartValuesRightAligned: a series' current value is right-aligned
// under its peak's width, so "(max …)" does not move as the value grows.
func TestChartValuesRightAligned(t *testing.T) {
	col := -1
	for _, keys := range [][]string{nil, {"]"}, {"]", "]", "]", "]", "]"}} {
		v := viewAfter(t, 120, 40, keys...)
		for _, l := range strings.Split(v, "\n") {
			if strings.HasPrefix(l, "emails ") {
				c := len([]rune(l[:strings.Index(l, "(max")]))
				if col >= 0 && c != col {
					t.Errorf("after %v \"(max\" at %d, before at %d: %q", keys, c, col, l)
				}
				col = c
			}
		}
	}
	if col < 0 {
		t.Fatal("no emails series")
	}
}
