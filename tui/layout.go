package tui

import "github.com/charmbracelet/lipgloss"

// The explorer's layout constants, named and composed in one place.
const (
	// The smallest terminal the explorer draws in; below it, one centred
	// line says so.
	minWidth  = 60
	minHeight = 16
	// The largest terminal it draws in (more than a 4K screen holds at a
	// small font): a larger one gets the frame at this size, top left, its
	// last line saying so. Nothing an attendee's terminal claims to be
	// makes a frame larger than this (about 110 KB in true colour).
	MaxWidth  = 500
	MaxHeight = 200

	headerHeight = 1 // title, clock, play state, branch
	// headerTitleMin is the title's share of the header a badge may not
	// take (the title is still cut when the branch path needs the room)
	headerTitleMin = 24
	newsHeight     = 1 // the jump prompt; a flash or a job's progress wraps

	// The panes sit in rows above the timeline, at most two a row, three
	// from threeWidth (three columns of 36 cells), four from wideWidth:
	// four panes are two rows of two, or one row from wideWidth.
	threeWidth = 3*36 + 2*paneGap
	wideWidth  = 160
	// maxPanes is the most panes the screen places, in at most three rows,
	// each at least a line high (minPanesHeight): a family's panes past it
	// are not drawn.
	maxPanes = 6
	// The body's share the panes take: panesPercent and panesRowPercent
	// more for each row (one row 45 %, two half).
	panesPercent    = 40
	panesRowPercent = 5
	minPanesHeight  = 4
	// the timeline's words take lines from the panes down to this many
	// lines a row of panes (a title and two rows)
	minPanesShrunk = 3
	paneGap        = 3 // " │ " between pane columns
	rowIndent      = 2 // where a wrapped pane row's next lines start, under its text

	// A timeline shorter than timelineWordsMin gets two lines of words
	// (title and caption), else three; from chartRows2At rows each chart
	// series gets two rows, from chartRows3At three.
	timelineWordsMin = 12
	chartRows2At     = 24
	chartRows3At     = 34
	chartSeries      = 4 // queue, in flight, DLQ, effects

	chartLabelW = 9  // "in flight"
	chartValueW = 18 // " 4860 (max 4899)"
)

// pane is a family's pane by its place in the family's list (Family.Panes),
// which is the screen's order: by rows, left to right.
type pane int

// rect is a screen region, for mouse hits.
type rect struct{ x, y, w, h int }

func (r rect) has(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// layout is where everything goes at the current size, computed the same
// way by View and by the mouse handler.
type layout struct {
	body     rect   // between header and status
	panes    []rect // one a family's pane, by rows (paneRows)
	timeline rect
	chart    rect // the sparkline columns (without labels)
	chartRow int  // rows per series
	words    int  // the timeline's lines of words under its title line
	footer   int  // help lines
}

func (v mainView) layout() layout {
	var l layout
	footer := lipgloss.Height(v.viewFooter())
	l.footer = footer
	top := headerHeight
	bottom := v.statusLines() + footer + len(v.newsLines())
	l.body = rect{0, top, v.width, max(0, v.height-top-bottom)}
	bh := l.body.h
	perRow := paneRows(max(1, len(v.panes)), v.width)
	rows := len(perRow)
	ph := max(bh*(panesPercent+panesRowPercent*rows)/100, minPanesHeight)
	// the words are never cut: they take the lines they need, from the
	// chart's extra rows first, then from the events, then from the panes
	// and the newest event's caption is whole below them
	need := v.timelineNeed()
	evNeed := 0 // before anything happened, the words may take the events' line
	if n := len(v.snap.recent); n > 0 {
		evNeed = len(v.eventLines(v.snap.recent[n-1], v.width))
	}
	for {
		th := bh - ph
		chartRow := 1
		if th >= chartRows2At {
			chartRow = 2
		}
		if th >= chartRows3At {
			chartRow = 3
		}
		words := 3
		if th < timelineWordsMin {
			words = 2
		}
		fits := func(words, chartRow int) bool { return 1+words+chartSeries*chartRow+1+evNeed <= th }
		for chartRow > 1 && !fits(max(words, need), chartRow) {
			chartRow--
		}
		for words < need && fits(words+1, chartRow) {
			words++
		}
		if (words < need || !fits(words, chartRow)) && ph-rows >= minPanesShrunk*rows {
			ph -= rows // one line less in each row of panes
			continue
		}
		l.chartRow = chartRow
		l.words = words
		break
	}
	h := ph / rows
	for r, cols := range perRow {
		cw := (v.width - (cols-1)*paneGap) / cols
		for c := range cols {
			l.panes = append(l.panes, rect{c * (cw + paneGap), top + r*h, cw, h})
		}
	}
	l.timeline = rect{0, top + ph, v.width, bh - ph}
	l.chart = rect{chartLabelW + 1, l.timeline.y + 1 + l.words, max(1, v.width-chartLabelW-1-chartValueW), chartSeries * l.chartRow}
	return l
}

// paneRows is how many of n panes each row holds at width w: as few rows
// as the columns the width allows, the panes spread evenly over them (the
// first rows take one more), so that no row leaves an empty box and each
// row's panes share its whole width.
func paneRows(n, w int) []int {
	cols := 2
	switch {
	case w >= wideWidth:
		cols = 4
	case w >= threeWidth:
		cols = 3
	}
	rows := (n + cols - 1) / cols
	out := make([]int, rows)
	for r := range out {
		out[r] = n / rows
		if r < n%rows {
			out[r]++
		}
	}
	return out
}
