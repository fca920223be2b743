package tui

import (
	"github.com/charmbracelet/bubbles/help"

	"inflight/engine"
	"inflight/stage"
)

// mainView is what the main screen draws from, read from the model once
// per View (Model.mainView): the header, the panes, the timeline with its
// chart, the news, the status line and the footer are its methods, pure
// functions of it that change nothing. The mouse and the layout of the
// modal screens read the same layout through it.
type mainView struct {
	common
	x        *engine.Explorer
	snap     *snap
	at       engine.Time // the displayed moment
	sel      int32       // the selected message, -1 none
	exercise *engine.Exercise
	flash    string
	prompt   screen   // the active screen when it is drawn on the news line, nil none
	progress string   // the running job's progress line, read once: a job moves while a frame is drawn
	plan     []string // the plan's lines above the news (plan.go)
	help     help.Model
	active   help.KeyMap // the active screen's keys, for the footer
	play     player
	panes    []engine.Pane // the family's panes at the cursor, at most maxPanes
	scroll   [maxPanes]int // the panes' scroll offsets

	// the header's badges
	presenter, following, staged bool

	chart chartView // the whole-run chart of the branch under the cursor

	// what the layout and the drawing of one frame both read, worked out
	// once (nil: every time)
	memo *frameMemo
}

// frameMemo holds the parts of a frame that its layout and its drawing
// each need, for one mainView: they are pure functions of it.
type frameMemo struct {
	status, footer     string
	news               []string
	peaks              [4]float64
	timelineHead       []string
	timelineWords      []string
	timelineW          int
	statusOK, footerOK bool
	newsOK, peaksOK    bool
	timelineOK         bool
}

// chartView is a branch's whole-run chart as far as its pass has got:
// its samples, and once done the last event.
type chartView struct {
	samples []engine.Sample
	end     engine.Time
	done    bool
}

// mainScreen is the main view's own state: the panes' scroll offsets, by
// the pane's place in the family's list. It answers the keys and the mouse
// when no screen is open over it.
type mainScreen struct {
	scroll [maxPanes]int
}

// mainView is the main screen's view state now.
func (m Model) mainView() mainView { return m.viewState() }

// viewState is mainView read from m itself, not a copy of it: View's
// own copy of the model (a copy more was a tenth of a frame).
func (m *Model) viewState() mainView {
	v := mainView{common: m.common, x: m.x, snap: &m.snap, at: m.at, sel: m.sel, exercise: m.exercise,
		flash: presenterFlash(m.presenter, m.exercises.room.state, m.flash), help: m.help, active: activeKeys(m),
		play: m.play, panes: cursorPanes(m.x, &m.snap, m.at, m.sel), scroll: m.main.scroll, presenter: m.presenter, following: m.follower.on, staged: m.stage != nil,
		memo: &frameMemo{}}
	if screens[m.state].prompt {
		v.prompt = m.state.screen(m)
	}
	v.plan = m.planLines(m.width)
	v.chart = m.charts.view(m.x)
	if j := m.jobs.cur; j != nil {
		// once per frame: the layout and the drawing must count the same lines
		v.progress = j.view(m.r)
	}
	return v
}

// presenterFlash is the flash, ahead of which a presenter whose stage has
// lost its link is told that followers on other servers no longer see
// the stage (it comes with the poll's state rs, which wakes the presenter
// when the link goes and comes back).
func presenterFlash(presenter bool, rs stage.PollState, flash string) string {
	if !presenter || !rs.Offline {
		return flash
	}
	s := "stage link down: followers on other servers cannot see the stage (the room is split)"
	if rs.Open && !rs.Revealed {
		s += " · the tally counts this server only"
	}
	if flash != "" {
		s += " · " + flash
	}
	return s
}

// viewHeader is the header line as drawn now (the stage's tests read it).
func (m Model) viewHeader() string { return m.mainView().viewHeader() }
