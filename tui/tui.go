// Package tui is the explorer: a Bubble Tea program that drives an
// engine.Explorer and draws it. Nothing here is package-level mutable
// state: many SSH sessions share one process, each with its own Model,
// renderer, styles and keys.
package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// Options choose what the explorer opens on and how it is shared.
type Options struct {
	Spec      *engine.Spec       // nil: thursday
	Seed      uint64             // 0 with Spec and not SeedSet: use Spec.Seed
	SeedSet   bool               // Seed was chosen (0 is a seed like any other)
	Set       []engine.Setting   // knobs from the start
	Code      string             // open at a share code instead (inflight open CODE)
	Explorer  *engine.Explorer   // open this explorer as it is (a code the caller already opened)
	Opened    *engine.Code       // the code Explorer was opened from: its displayed clock and selection are shown
	Renderer  *lipgloss.Renderer // nil: lipgloss.DefaultRenderer(); the SSH server passes one per session
	Stage     *Stage             // nil: no presenter mode
	Presenter bool               // this session drives the stage
	Follow    bool               // start following the stage (ssh follow@host)
	Shared    *Shared            // nil: a budget of the explorer's own (DefaultBudget)
	OpenVia   string             // the SSH server's "ssh -t -p PORT HOST", which y shows before "open CODE"; "" locally
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
	x, err := open(o, sh)
	if err != nil {
		return Model{}, err
	}
	m := newModel(x, r, o, sh)
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
	if o.Code != "" && o.Opened == nil {
		if c, err := engine.ParseCode(o.Code); err == nil {
			o.Opened = &c
		}
	}
	// what a format-2 code says the screen showed beyond its event: the
	// displayed clock and the selected message
	if c := o.Opened; c != nil {
		showMoment(&m, c)
		m.refresh(true)
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
	if o.Code != "" {
		return openCode(o.Code, o.Spec, sh, nil)
	}
	spec := o.Spec
	if spec == nil {
		s, err := bundledSpec("thursday")
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

// openCode opens a share code, on spec when given (an incident file) or
// else on the bundled incident the code names, within the budget, metered
// by mt (nil: not metered).
func openCode(s string, spec *engine.Spec, sh *Shared, mt *engine.Meter) (*engine.Explorer, error) {
	c, err := engine.ParseCode(s)
	if err != nil {
		return nil, err
	}
	if spec == nil || spec.ID != c.Incident {
		if spec, err = bundledSpec(c.Incident); err != nil {
			return nil, fmt.Errorf("share code: %w", err)
		}
	}
	return engine.OpenCodeWithin(c, spec, sh.Budget, sh.Pool, mt)
}

// Run runs the explorer in this terminal until the user quits: alt screen,
// mouse cell motion.
func Run(o Options) error {
	m, err := New(o)
	if err != nil {
		return err
	}
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion())
	_, err = p.Run()
	return err
}
