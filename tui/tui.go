// Package tui is the explorer: a Bubble Tea program that drives an
// engine.Explorer and draws it. Nothing here is package-level mutable
// state: many SSH sessions share one process, each with its own Model,
// renderer, styles and keys.
package tui

import (
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
	"inflight/incidents"
	"inflight/plan"
)

// Options choose what the explorer opens on and how it is shared.
type Options struct {
	Spec      *engine.Spec       // nil: the default incident (incidents.DefaultID); with Code, the incident file the code was made on
	Seed      uint64             // 0 with Spec and not SeedSet: use Spec.Seed
	SeedSet   bool               // Seed was chosen (0 is a seed like any other)
	Set       []engine.Setting   // knobs from the start
	Code      *engine.Code       // open at this share code instead, parsed once by the caller (inflight open, serve's open command); with Explorer, the code it was opened from; its displayed clock and selection are shown
	Explorer  *engine.Explorer   // open this explorer as it is
	Renderer  *lipgloss.Renderer // nil: lipgloss.DefaultRenderer(); the SSH server passes one per session
	Stage     *Stage             // nil: no presenter mode
	Presenter bool               // this session drives the stage
	Follow    bool               // start following the stage (ssh follow@host)
	Shared    *Shared            // nil: a budget of the explorer's own (DefaultBudget)
	OpenVia   string             // the SSH server's "ssh -t -p PORT HOST", which y shows before "open CODE"; "" locally
	Keep      *Keep              // where the branch tree is kept between runs (saved.go); nil: nowhere, as under serve
	Resume    *Work              // a reconnecting attendee's work, rebuilt instead of the lesson's start (resume.go); ignored with Code, Explorer or a presenter resuming the stage
	Plan      *plan.Plan         // the session's plan, for the presenter (serve --plan): the beat keys and the notes
}

// New builds the explorer's model. It fails on a share code that does not
// parse or no longer reproduces, or on an unknown incident.
func New(o Options) (Model, error) {
	r := o.Renderer
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	sh := o.Shared
	if sh == nil {
		sh = NewShared(DefaultBudget(), nil, 0)
	}
	st, resume := o.resumable()
	open := openExplorer
	if resume { // a presenter coming back: the stage, where it was
		open = func(Options, *Shared) (*engine.Explorer, error) { return restoreExplorer(st, sh) }
	}
	var resumed bool    // the reconnect's work was rebuilt
	var unresumed error // or why not
	if w := o.Resume; w != nil && !resume && o.Code == nil && o.Explorer == nil {
		open = func(o Options, sh *Shared) (*engine.Explorer, error) {
			x, err := resumeExplorer(*w, sh)
			if err != nil {
				unresumed = err
				return openExplorer(o, sh)
			}
			resumed = true
			return x, nil
		}
	}
	x, err := open(o, sh)
	if err != nil {
		return Model{}, err
	}
	m := newModel(x, r, o, sh)
	switch {
	case resumed:
		resumeShown(&m, *o.Resume, o.Follow)
	case unresumed != nil:
		m.flash = resumeFailed(unresumed)
	}
	m.openVia = o.OpenVia
	if resume { // the moment (the one its clock gives now), the open screen, the play state
		if err := m.showStage(st, true, stageMs(o.Stage.Now())); err != nil {
			m.flash = "the stage could not be shown as it was: " + err.Error()
		}
		m.resumeQuestion() // the room's open question, to reveal or drop
		if m.play.on {
			m.play.gen++
			m.resumeClock(st) // stage_clock.go
		}
	}
	// what a format-2 code says the screen showed beyond its event: the
	// displayed clock and the selected message
	if c := o.Code; c != nil {
		showMoment(&m, c)
		m.refresh(true)
	}
	if o.Keep != nil && o.Code == nil && o.Explorer == nil && !resume {
		startKeeping(&m, o.Keep)
	}
	return m, nil
}

// showMoment puts on screen what a format-2 code says was shown beyond its
// event: the clock, when ahead of the cursor's event, and the selected
// message.
func showMoment(m *Model, c *engine.Code) {
	if c.HasAt && c.At >= m.x.World().Now {
		m.at = c.At
	}
	if c.HasSel && c.Sel < int32(max(1, m.x.World().Published())) {
		m.sel = c.Sel
		m.snap.noteSel(m.x, c.Sel)
	}
}

// openExplorer builds the engine explorer Options name.
func openExplorer(o Options, sh *Shared) (*engine.Explorer, error) {
	if o.Explorer != nil {
		o.Explorer.Limit(sh.Budget, sh.Pool)
		return o.Explorer, nil
	}
	if o.Code != nil {
		return openCode(*o.Code, o.Spec, sh, nil)
	}
	spec := o.Spec
	if spec == nil {
		s, err := incidents.Get(incidents.DefaultID)
		if err != nil {
			return nil, err
		}
		spec = s
	}
	seed := o.Seed
	if seed == 0 && !o.SeedSet {
		seed = spec.Seed
	}
	x, err := engine.NewExplorer(spec, seed, o.Set)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", spec.ID, err)
	}
	x.Limit(sh.Budget, sh.Pool)
	if err := x.CheckBudget(); err != nil {
		return nil, err
	}
	return x, nil
}

// openCode opens a share code on the incident incidents.ForCode finds
// (file, the incident file it was made on, or the bundled one it names),
// within the budget, metered by mt (nil: not metered). The command line
// and the SSH server both open a code here.
func openCode(c engine.Code, file *engine.Spec, sh *Shared, mt *engine.Meter) (*engine.Explorer, error) {
	spec, err := incidents.ForCode(c, file)
	if err != nil {
		return nil, err
	}
	return engine.OpenCodeWithin(c, spec, sh.Budget, sh.Pool, mt)
}

// OpenStatus is the exit status of an explorer that could not open: 1 for
// a code or incident past a budget (the input is fine, the budget too
// small for it), 2 for input refused. `inflight open` and serve's open
// command exit with it.
func OpenStatus(err error) int {
	if over := (*engine.BudgetError)(nil); errors.As(err, &over) {
		return 1
	}
	return 2
}

// bundledSpec is the bundled incident id (incidents caches them).
func bundledSpec(id string) (*engine.Spec, error) { return incidents.Get(id) }

// Run runs the explorer in this terminal until the user quits: alt screen,
// mouse cell motion. m is a model New built, so that a caller can refuse
// what does not open before the terminal is taken over. When the program
// has ended, its branch trees are saved (Options.Keep): however it ended
// (q, ctrl+c), and after the terminal is given back.
func Run(m Model) error {
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion())
	final, err := p.Run()
	if fm, ok := final.(Model); ok {
		err = errors.Join(err, fm.saveTrees())
	}
	return err
}
