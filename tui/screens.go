package tui

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/stage"
)

// screen is a modal screen over the main view, in the manner of
// soft-serve's pages: a component with its own keys, size, Update and
// View. onKey is its Update as the root calls it: the component's own
// Update, then what its outcome asks of the root m (close, start a job,
// open an incident). The root sizes every screen, and gives keys to the
// active one only.
type screen interface {
	SetSize(w, h int)
	View() string
	helpKeys() help.KeyMap
	onKey(m *Model, k tea.KeyMsg) tea.Cmd
}

// screenDef is one screen's row in the table. Adding a screen is a state
// (before numStates, model.go), its component (a field of Model with the
// screen methods) and a row here, plus the key that opens it; sizing,
// keys, the help bar, the view and the stage all go through the row.
type screenDef struct {
	name string // the state's name, and the stage's (stage.Screen.Kind)
	// of is the screen's component in m; nil for the main view, whose
	// keys and mouse mainScreen answers and which mainView draws
	of func(m *Model) screen
	// prompt screens are drawn on the news line, over the main view
	// (the jump's clock prompt), and sized to it
	prompt bool
	// save is what the stage keeps of the open screen, besides its
	// kind; nil for a screen the stage does not show
	save func(m *Model) stage.Screen
	// open opens the screen as the stage kept it (a follower's mirror,
	// a presenter resuming); the screens that read the engine run their
	// job
	open func(m *Model, s stage.Screen)
	// scroll scrolls the open screen as the stage's s does; nil for a
	// screen that does not scroll
	scroll func(m *Model, s stage.Screen)
}

// screens is the table of screens, by the state that has the keyboard.
// It is filled in by init: its screens' moves refer back to it.
var screens [numStates]screenDef

func init() {
	screens = [numStates]screenDef{
		stateMain: {name: "main"},
		stateFork: {name: "fork", of: func(m *Model) screen { return &m.fork },
			save: func(m *Model) stage.Screen { return stage.Screen{Fork: m.fork.staged()} },
			open: func(m *Model, s stage.Screen) {
				openForkJob(m.at, s.Fork != nil && s.Fork.Before, func(f *forkForm) {
					if s.Fork != nil {
						restoreFork(f, *s.Fork)
					}
				}).run(m)
			}},
		stateBranches: {name: "branches", of: func(m *Model) screen { return &m.branches },
			save: func(m *Model) stage.Screen { return stage.Screen{Row: m.branches.row} },
			open: func(m *Model, s stage.Screen) {
				m.branches, m.state = newBranchList(m.common, m.x, &m.book), stateBranches
				m.branches.row = min(s.Row, max(0, len(m.x.Branches())-1))
			}},
		stateCompare: {name: "compare", of: func(m *Model) screen { return &m.compare },
			save: func(m *Model) stage.Screen {
				return stage.Screen{A: m.compare.ia, B: m.compare.ib, Off: m.compare.off}
			},
			open:   func(m *Model, s stage.Screen) { compareStaged(m, s).run(m) },
			scroll: func(m *Model, s stage.Screen) { m.compare.off = s.Off }},
		stateExercises: {name: "exercises", of: func(m *Model) screen { return &m.exercises },
			save: func(m *Model) stage.Screen { return stage.Screen{Row: m.exercises.row} },
			open: func(m *Model, s stage.Screen) {
				m.exercises.row = s.Row
				m.openExercises()
			}},
		stateStory: {name: "story", of: func(m *Model) screen { return &m.story },
			save: func(m *Model) stage.Screen { return stage.Screen{Msg: m.story.id, Off: m.story.off} },
			open: func(m *Model, s stage.Screen) {
				sel, _, ok := storySubject(m.x, m.snap.selectable, s.Msg)
				if sel != m.sel {
					m.sel = sel
					m.snap.readInbox(m.x, sel)
				}
				if ok {
					storyJob(m.x, &m.snap, sel).run(m)
				}
			},
			scroll: func(m *Model, s stage.Screen) { m.story.off = s.Off }},
		stateJump: {name: "jump", of: func(m *Model) screen { return &m.jump }, prompt: true,
			save: func(m *Model) stage.Screen { return stage.Screen{Text: m.jump.input.Value()} },
			open: func(m *Model, s stage.Screen) {
				m.jump, m.state = newJumpInput(m.common, m.at), stateJump
				m.jump.input.SetValue(s.Text)
			}},
		stateCode: {name: "code", of: func(m *Model) screen { return &m.code },
			save: func(*Model) stage.Screen { return stage.Screen{} },
			open: func(m *Model, _ stage.Screen) { m.openCode() }},
		statePicker: {name: "picker", of: func(m *Model) screen { return &m.picker },
			save: func(*Model) stage.Screen { return stage.Screen{} },
			open: func(m *Model, _ stage.Screen) {
				m.picker.show(m.x.Spec.ID)
				m.state = statePicker
			}},
		stateHunt:    {name: "hunt", of: func(m *Model) screen { return &m.hunt }},
		stateRestore: {name: "restore", of: func(m *Model) screen { return &m.restore }, prompt: true},
		stateGoto:    {name: "goto", of: func(m *Model) screen { return &m.goTo }, prompt: true},
	}
}

func (s state) String() string { return screens[s].name }

// screen is the component that has the keyboard in m, nil on the main
// view.
func (s state) screen(m *Model) screen {
	if of := screens[s].of; of != nil {
		return of(m)
	}
	return nil
}

// staged is the open screen as the stage keeps it; false on the main
// view and on a screen the stage does not show.
func (s state) staged(m *Model) (stage.Screen, bool) {
	d := screens[s]
	if d.save == nil {
		return stage.Screen{}, false
	}
	st := d.save(m)
	st.Kind = d.name
	return st, true
}

// openStaged opens the screen the stage's s names; false when no screen
// has that name.
func openStaged(m *Model, s stage.Screen) bool {
	for _, d := range screens {
		if d.open != nil && d.name == s.Kind {
			d.open(m, s)
			return true
		}
	}
	return false
}

// scrollStaged scrolls the open screen as the stage's s does, when s is
// that screen's: a scroll only scrolls the open screen.
func scrollStaged(m *Model, s stage.Screen) {
	if d := screens[m.state]; d.scroll != nil && d.name == s.Kind {
		d.scroll(m, s)
	}
}

// sizeScreens gives every screen the body's size at the layout m leaves:
// the news line and the help's height change it (below the minimum size
// no screen is drawn). Update does it last; the stage's mirror, drawn
// without Update, does it before drawing.
func sizeScreens(m *Model) {
	for _, d := range screens { // the news line, below the body, at every size
		if d.prompt {
			d.of(m).SetSize(m.width, newsHeight)
		}
	}
	if m.width < minWidth || m.height < minHeight {
		return
	}
	b := m.mainView().layout().body
	for _, d := range screens {
		if d.of != nil && !d.prompt {
			d.of(m).SetSize(b.w, b.h)
		}
	}
}

// activeKeys are the keys the help bar shows: the active screen's own, so
// that it never offers a key the screen does not answer.
func activeKeys(m *Model) help.KeyMap {
	if r := m.exercises.room; m.stage != nil && !m.presenter && r.asked() {
		return roomKeyMap(r.state) // a follower's question is over the screen
	}
	if m.stage != nil && m.presenter && m.exercises.room.view {
		return roomViewKeyMap() // the presenter's room view (poll_room.go)
	}
	if k, ok := m.followingKeys(); ok { // follow_scroll.go
		return k
	}
	if s := m.state.screen(m); s != nil {
		return m.withPlanKeys(s.helpKeys()) // the presenter's beat keys (plan.go)
	}
	k := m.keys
	k.Question.SetEnabled(m.stage != nil && !m.presenter && m.exercises.room.hiddenOpen())
	return m.withPlanKeys(k)
}

// moving is a screen that shows the cursor's moment, kept up to date as
// the cursor moves under it (a follower's).
type moving interface{ moved(m *Model) }

// The screens' keys, for the help bar.
func (f *forkForm) helpKeys() help.KeyMap     { return f.keys }
func (l *branchList) helpKeys() help.KeyMap   { return l.keys }
func (c *compareView) helpKeys() help.KeyMap  { return c.keys }
func (c *codeView) helpKeys() help.KeyMap     { return c.keys }
func (l *exerciseList) helpKeys() help.KeyMap { return l.keys }
func (s *storyView) helpKeys() help.KeyMap    { return s.keys }
func (j *jumpInput) helpKeys() help.KeyMap    { return j.keys }
func (p *picker) helpKeys() help.KeyMap       { return p.keys }
func (h *huntList) helpKeys() help.KeyMap     { return h.keys }

// The screens' keys, and what the root does with their outcome.

// escFirst is a prompt's alt+key read as Esc and then the key (escThen):
// on takes the Esc (it clears a filter, or closes the prompt), then the key
// goes wherever it goes once Esc has done its work.
func escFirst(m *Model, k tea.KeyMsg, on func(*Model, tea.KeyMsg) tea.Cmd) (tea.Cmd, bool) {
	plain, ok := escThen(k)
	if !ok {
		return nil, false
	}
	cmd := on(m, tea.KeyMsg{Type: tea.KeyEsc})
	return tea.Batch(cmd, m.updateKey(plain)), true
}

func (f *forkForm) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	if cmd, ok := escFirst(m, k, f.onKey); ok {
		return cmd
	}
	var cmd tea.Cmd
	*f, cmd = f.Update(k)
	switch f.done {
	case closed:
		m.state = stateMain
	case submitted:
		o, err := f.options()
		if err != nil {
			f.err = err.Error()
			return nil
		}
		return forkJob(o).run(m)
	}
	return cmd
}

func (c *compareView) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	*c, _ = c.Update(k)
	if c.done == closed {
		m.state = stateMain
	}
	return nil
}

func (c *codeView) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	*c, _ = c.Update(k)
	if c.done == closed {
		m.state = stateMain
	}
	return nil
}

// moved: the code is the cursor's.
func (c *codeView) moved(m *Model) { c.code = m.shareCode() }

func (s *storyView) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	if *s, cmd = s.Update(k); s.done == closed {
		m.state = stateMain
	}
	return cmd
}

func (j *jumpInput) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	if cmd, ok := escFirst(m, k, j.onKey); ok {
		return cmd
	}
	var cmd tea.Cmd
	*j, cmd = j.Update(k)
	switch j.done {
	case closed:
		m.state = stateMain
	case submitted:
		m.state = stateMain
		return jumpJob(m.x.Spec, j.input.Value()).run(m)
	}
	return cmd
}

// onKey: hunt.go starts the hunt the list asks for.
func (h *huntList) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	if cmd, ok := escFirst(m, k, h.onKey); ok {
		return cmd
	}
	return m.updateHunt(k)
}
