package tui

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// seriesNames label the chart's bands in the family's words
// (engine.Family.Counts, and its effects).
func (v mainView) seriesNames() [4]string {
	wd := v.snap.words
	return [4]string{wd.Waiting, wd.Taken, "DLQ", wd.Effects}
}

// chartSpan is the chart's time axis: the incident's start to the end of
// the branch's whole run, which only its finished pass knows (no estimate
// is right for every system: stagefront publishes nothing the spec knows
// of, and every run drains after its last publish). So the chart is drawn
// only once its pass is done (chartReady), and the axis, never an
// estimate, never moves: not with the cursor, not as the pass fills in.
func (v mainView) chartSpan() (t0, t1 engine.Time) {
	t0 = v.x.Spec.Start
	return t0, max(t0+engine.Second, v.chart.end)
}

// chartReady reports whether the whole run is charted, so that chartSpan
// is the run's and the chart may be drawn (and clicked).
func (v mainView) chartReady() bool { return v.chart.done }

// chartTime is the moment under chart column c of n.
func chartTime(t0, t1 engine.Time, c, n int) engine.Time {
	return t0 + engine.Time((int64(c)*2+1)*int64(t1-t0)/(int64(n)*2))
}

// viewChart draws queue depth, in flight, DLQ and emails over simulated
// time, one sparkline band each, with a ▲ under the cursor's column.
func (v mainView) viewChart(l layout) []string {
	n := l.chart.w
	rows := l.chartRow
	if !v.chartReady() {
		return v.chartFilling(l)
	}
	t0, t1 := v.chartSpan()
	var cols [4][]float64
	for i := range cols {
		cols[i] = make([]float64, n)
	}
	have := make([]bool, n)
	samples := v.chart.samples
	peaks := v.peaks() // over every sample, not only the columns' ends
	for _, s := range samples {
		c := int(int64(s.T-t0) * int64(n) / int64(t1-t0+1))
		if c < 0 || c >= n {
			continue
		}
		v := [4]float64{float64(s.Queue), float64(s.InFlight), float64(s.DLQ), float64(s.Effects)}
		for i := range cols {
			cols[i][c] = v[i] // the state at the column's end
		}
		have[c] = true
	}
	for c := 1; c < n; c++ { // carry levels across columns with no sample
		if !have[c] {
			for i := range cols {
				cols[i][c] = cols[i][c-1]
			}
		}
	}
	cur := int(int64(v.at-t0) * int64(n) / int64(t1-t0+1))
	cur = max(0, min(cur, n-1))
	w := v.x.World()
	waiting, taken := w.Family().Counts(w)
	now := [4]int64{int64(waiting), int64(taken), int64(w.DLQLen()), w.Stats.Effects}
	names := v.seriesNames()
	var out []string
	for i := range cols {
		peak := peaks[i]
		for _, v := range cols[i] {
			peak = max(peak, v)
		}
		peak = max(peak, float64(now[i])) // a chart still filling in may not have reached the cursor
		band := sparkRows(cols[i], peak, rows)
		for r, line := range band {
			label, val := "", ""
			if r == rows-1 {
				label = names[i]
				// right-aligned under the peak's width: the column holds still
				pk := count(int64(peak))
				val = fmt.Sprintf(" %*s (max %s)", len(pk), count(now[i]), pk)
			}
			rs := []rune(line)
			left, mid, right := string(rs[:cur]), string(rs[cur]), string(rs[cur+1:])
			s := fmt.Sprintf("%-*s ", chartLabelW, label) + v.st.Series[i].Render(left) + v.st.Cursor.Render(mid) + v.st.Dim.Render(right) + val
			out = append(out, fitLine(s, l.timeline.w))
		}
	}
	axis := []rune(strings.Repeat(" ", n))
	axis[cur] = '▲'
	a := fmt.Sprintf("%-*s ", chartLabelW, t0.Short()[:min(5, len(t0.Short()))]) + string(axis) + " " + headerClock(t1)
	out = append(out, fitLine(v.st.Cursor.Render(a), l.timeline.w))
	return out
}

// chartFilling holds the chart's place, line for line, while its pass
// runs: how far the pass has got, and no axis yet.
func (v mainView) chartFilling(l layout) []string {
	out := make([]string, 4*l.chartRow+1)
	for i := range out {
		out[i] = fitLine("", l.timeline.w)
	}
	so := "starting"
	if s := v.chart.samples; len(s) > 0 {
		so = s[len(s)-1].T.Short() + " so far"
	}
	out[0] = fitLine(fmt.Sprintf("%-*s ", chartLabelW, "")+v.st.Dim.Render("charting the whole run: "+so+"; the chart appears once it reaches the end"), l.timeline.w)
	return out
}

// peaks is samplePeaks of the chart's samples.
func (v mainView) peaks() [4]float64 {
	if m := v.memo; m != nil {
		if !m.peaksOK {
			m.peaks, m.peaksOK = samplePeaks(v.chart.samples), true
		}
		return m.peaks
	}
	return samplePeaks(v.chart.samples)
}

// samplePeaks is each series' highest value over the samples.
func samplePeaks(samples []engine.Sample) [4]float64 {
	var p [4]float64
	for _, s := range samples {
		p[0], p[1] = max(p[0], float64(s.Queue)), max(p[1], float64(s.InFlight))
		p[2], p[3] = max(p[2], float64(s.DLQ)), max(p[3], float64(s.Effects))
	}
	return p
}

// sparkRows draws vs as rows of block characters, top row first.
func sparkRows(vs []float64, peak float64, rows int) []string {
	blocks := []rune(" ▁▂▃▄▅▆▇█")
	out := make([]string, rows)
	for r := 0; r < rows; r++ {
		var b strings.Builder
		for _, v := range vs {
			lvl := 0.0
			if peak > 0 {
				lvl = v / peak * float64(rows*8)
			}
			if v > 0 && lvl < 1 {
				lvl = 1
			}
			fill := lvl - float64((rows-1-r)*8)
			i := int(max(0, min(8, fill)))
			b.WriteRune(blocks[i])
		}
		out[r] = b.String()
	}
	return out
}

// count is a chart value that fits its column: exact below 100,000, then
// "372k", "1.2M".
func count(n int64) string {
	switch {
	case n < 100_000:
		return fmt.Sprint(n)
	case n < 10_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
