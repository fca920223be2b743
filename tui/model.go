package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// state is which screen has the keyboard.
type state int

const (
	stateMain state = iota
	stateFork
	stateBranches
	stateCompare
	stateExercises
	stateStory
	stateJump
	stateCode
	statePicker
	stateHunt
)

func (s state) String() string {
	return [...]string{"main", "fork", "branches", "compare", "exercises", "story", "jump", "code", "picker", "hunt"}[s]
}

// Model is the explorer's root model, one per session. It routes keys to
// the active screen and owns the explorer; panes and screens only draw.
type Model struct {
	common // the session's renderer, styles, keys and the size drawn in
	x      *engine.Explorer
	help   help.Model
	state  state

	// the cursor's displayed moment: the clock the user asked for (a tick,
	// a jump, a bookmark) or the latest event's time, never before it
	at engine.Time

	play  player
	sel   int32 // the selected message, -1 none
	snap  snap
	panes [numPanes]int // scroll offsets
	flash string        // one line of news: an error, a fork made

	// the terminal's size as it said it, which the drawn size is clamped from
	termW, termH int

	fork      forkForm
	branches  branchList
	compare   compareView
	code      codeView
	exercises exerciseList
	story     storyView
	jump      jumpInput
	picker    picker
	hunt      huntList         // the properties `x` hunts a break of (hunt.go)
	exercise  *engine.Exercise // the exercise this branch answers

	stage     *Stage
	presenter bool // this session drives the stage
	follower  follower

	shared *Shared // the process-wide budget, pool and chart cache
	// kept are the other incidents this session opened, with their
	// branches, cursor and selection, while the program runs: `i` and
	// back loses nothing. Their memory counts against the budget.
	kept keptIncidents
	jobs jobRunner // the long moves, run off the update loop

	charts chartWatch // the whole-run charts: the one on screen, the passes started
}

func newModel(x *engine.Explorer, r *lipgloss.Renderer, o Options, sh *Shared) Model {
	c := newCommon(r)
	st := c.st
	h := help.New()
	h.Styles = st.Help
	m := Model{common: c, x: x, help: h, sel: x.Spec.Featured, stage: o.Stage, presenter: o.Presenter && o.Stage != nil, shared: sh, kept: keptIncidents{},
		jobs: jobRunner{inline: inlineWait, slots: sh.slots, pool: sh.Pool}}
	m.play = newPlayer()
	m.picker = newPicker(c)
	m.charts.watch(x, sh, m.jobs.inline)
	m.at = x.World().Now
	if o.Follow && o.Stage != nil {
		m.flash = m.follower.start(o.Stage)
	}
	m.refresh(true)
	return m
}

// Init starts following the stage when asked to.
func (m Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if c := m.charts.filling(); c != nil {
		cmds = append(cmds, c)
	}
	if m.follower.on {
		cmds = append(cmds, m.wait())
	}
	if m.play.on { // a presenter resuming a stage that plays
		cmds = append(cmds, tickCmd(m.play.gen))
	}
	cmds = append(cmds, m.watchPoll()) // the room's questions (poll_room.go)
	return tea.Batch(cmds...)
}

// Update routes a message, in the order soft-serve's root does: keys that
// hold on every screen first (ctrl+c; while a job runs, its own keys),
// then the sizes, which every screen gets, then the app's messages (jobs,
// charts, autoplay, the stage), and the rest of the keys to the active
// screen. Every screen is a component with its own KeyMap, SetSize,
// Update and View; it asks the root to act through its done outcome.
// After any move the panes' snapshot is reread, here and never in View.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.x.Pos()
	beforeBr := m.x.Branch()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if m.jobs.cur != nil {
			cmd = m.jobKey(msg)
			break
		}
		if key.Matches(msg, m.keys.ForceQuit) {
			return m, tea.Quit
		}
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// keys typed faster than one read arrive together: "++"
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				one := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
				c := m.updateKey(one)
				cmds = append(cmds, c)
				if m.state == stateMain && key.Matches(one, m.keys.Quit) { // quits: the rest is not read
					break
				}
			}
			cmd = tea.Batch(cmds...)
		} else {
			cmd = m.updateKey(msg)
		}
	case tea.WindowSizeMsg:
		// to all: each screen gets the body's size below, once the layout
		// this Update leaves is known
		m.termW, m.termH = msg.Width, msg.Height
		w, h := drawSize(msg.Width, msg.Height)
		m.SetSize(w, h)
		m.help.Width = w
		cmd = m.resized()
	case tea.MouseMsg:
		if m.jobs.cur == nil && m.mouseTakesCopy(msg) {
			cmd = m.updateMouse(msg)
		}
	case jobDoneMsg: // one that went on in the background has ended
		if m.jobs.current(msg.id) {
			cmd = m.finishJob(m.jobs.cur)
		}
	case jobTickMsg: // its progress line moves
		if m.jobs.current(msg.id) {
			cmd = jobTick(msg.id)
		}
	case chartTickMsg:
		cmd = m.charts.onTick(msg)
	case playTickMsg:
		var news string
		if cmd, news = m.play.onTick(msg, m.x, &m.at, m.stage); news != "" {
			m.flash = news
		}
	case stageMsg:
		if m.jobs.cur != nil {
			// the stage is read again when the job ends: waiting now would
			// return at once, over and over
			m.follower.stalled = m.follower.on && msg.tag == m.follower.tag
			break
		}
		// a follower's own explorer did not move: nothing below to redo
		return m, m.onStage(msg)
	case pollMsg: // the room's question (poll_room.go): nothing moved, nothing below to redo
		return m, m.onPoll(msg)
	}
	if m.x.Pos() != before || m.x.Branch() != beforeBr {
		m.refresh(m.x.Branch() != beforeBr || m.x.Pos() < before)
		if m.state == stateCode { // a follower's cursor moves under it
			m.code.code = m.shareCode()
		}
	}
	m.snap.readPanes(m.x, m.at, m.sel, false) // the clock or the selection may have moved
	// what the presenter shows on stage: the moment, the branches, the
	// play state and the open screen
	if m.presenter && m.stage != nil {
		m.clockPlay() // stage_clock.go
		m.stage.Publish(m.stageState())
	}
	sizeScreens(&m)
	if m.jobs.cur == nil {
		if c := m.charts.watch(m.x, m.shared, m.jobs.inline); c != nil {
			cmd = tea.Batch(cmd, c)
		}
	}
	return m, cmd
}

// sizeScreens gives every screen the body's size at the layout m leaves:
// the news line and the help's height change it (below the minimum size
// no screen is drawn). Update does it last; the stage's mirror, drawn
// without Update, does it before drawing.
func sizeScreens(m *Model) {
	m.jump.SetSize(m.width, newsHeight) // the news line, below the body
	if m.width >= minWidth && m.height >= minHeight {
		b := m.mainView().layout().body
		m.fork.SetSize(b.w, b.h)
		m.story.SetSize(b.w, b.h)
		m.branches.SetSize(b.w, b.h)
		m.exercises.SetSize(b.w, b.h)
		m.compare.SetSize(b.w, b.h)
		m.code.SetSize(b.w, b.h)
		m.picker.SetSize(b.w, b.h)
		m.hunt.SetSize(b.w, b.h)
	}
}

// updateKey routes a key to the screen that has the keyboard.
func (m *Model) updateKey(k tea.KeyMsg) tea.Cmd {
	if cmd, ok := m.roomKey(k); ok { // a follower answering the room's question
		return cmd
	}
	switch m.state {
	case stateFork:
		var cmd tea.Cmd
		m.fork, cmd = m.fork.Update(k)
		switch m.fork.done {
		case closed:
			m.state = stateMain
		case submitted:
			o, err := m.fork.options()
			if err != nil {
				m.fork.err = err.Error()
				return nil
			}
			return forkJob(o).run(m)
		}
		return cmd
	case stateBranches:
		cmd := m.updateBranches(k)
		if m.follower.on && m.branches.done == submitted && !m.branches.del {
			m.flash = m.follower.detach() // a follower chose one of its own branches
		}
		return cmd
	case stateCompare:
		m.compare, _ = m.compare.Update(k)
		if m.compare.done == closed {
			m.state = stateMain
		}
		return nil
	case stateCode:
		m.code, _ = m.code.Update(k)
		if m.code.done == closed {
			m.state = stateMain
		}
		return nil
	case stateExercises:
		return m.updateExercises(k)
	case stateStory:
		var cmd tea.Cmd
		if m.story, cmd = m.story.Update(k); m.story.done == closed {
			m.state = stateMain
		}
		return cmd
	case stateJump:
		var cmd tea.Cmd
		m.jump, cmd = m.jump.Update(k)
		switch m.jump.done {
		case closed:
			m.state = stateMain
		case submitted:
			m.state = stateMain
			return jumpJob(m.x.Spec, m.jump.input.Value()).run(m)
		}
		return cmd
	case statePicker:
		return m.updatePicker(k)
	case stateHunt:
		return m.updateHunt(k)
	}
	return m.updateMain(k)
}

// updateMain handles a key on the main screen.
func (m *Model) updateMain(k tea.KeyMsg) tea.Cmd {
	km := m.keys
	if key.Matches(k, km.Quit) {
		return tea.Quit
	}
	if key.Matches(k, km.Help) {
		m.help.ShowAll = !m.help.ShowAll
		return nil
	}
	if key.Matches(k, km.Close) {
		m.flash = ""
		m.help.ShowAll = false
		return nil
	}
	if key.Matches(k, km.Follow) {
		return m.follow()
	}
	// every key below moves or forks: a follower detaches into its own copy
	if m.follower.on && km.takesCopy(k) {
		m.leaveStage()
	}
	if km.movesCursor(k) {
		m.flash = "" // news of where the cursor was ("end of the branch") is stale once it moves
	}
	switch {
	case key.Matches(k, km.Play):
		cmd, news := m.play.toggle(m.x)
		if news != "" {
			m.flash = news
		}
		return cmd
	case key.Matches(k, km.Faster):
		m.play.faster()
	case key.Matches(k, km.Slower):
		m.play.slower()
	case key.Matches(k, km.Step):
		m.pause()
		m.flash = stepBy(m.x, 1, &m.at)
	case key.Matches(k, km.Back):
		m.pause()
		m.flash = stepBy(m.x, -1, &m.at)
	case key.Matches(k, km.Tick):
		m.pause()
		return tickMove(m.x.Spec, m.at, engine.Second).run(m)
	case key.Matches(k, km.TickBack):
		m.pause()
		return tickMove(m.x.Spec, m.at, -engine.Second).run(m)
	case key.Matches(k, km.NextDec):
		m.pause()
		return decisionMove(true).run(m)
	case key.Matches(k, km.PrevDec):
		m.pause()
		return decisionMove(false).run(m)
	case key.Matches(k, km.NextMark):
		m.pause()
		return bookmarkMove(m.x.Spec, m.at, true).run(m)
	case key.Matches(k, km.PrevMark):
		m.pause()
		return bookmarkMove(m.x.Spec, m.at, false).run(m)
	case key.Matches(k, km.Start):
		m.pause()
		m.x.Goto(0)
		m.at = m.x.World().Now
	case key.Matches(k, km.End):
		m.pause()
		return endMove(m.x).run(m)
	case key.Matches(k, km.Jump):
		m.pause()
		m.jump, m.state = newJumpInput(m.common, m.at), stateJump
	case key.Matches(k, km.Fork):
		m.pause()
		m.fork, m.state = newForkForm(m.common, m.x, m.at), stateFork
	case key.Matches(k, km.Branches):
		m.branches, m.state = newBranchList(m.common, m.x), stateBranches
	case key.Matches(k, km.NextBr):
		return nextBranchMove(m.x, m.at).run(m) // a job: it pauses
	case key.Matches(k, km.Compare):
		m.pause()
		return compareJob(m.x, &m.snap, m.sel).run(m)
	case key.Matches(k, km.Exercises):
		m.openExercises()
	case key.Matches(k, km.Up):
		if id, ok := nextSelectable(m.snap.selectable, m.sel, -1); ok {
			m.setSel(id)
		} else {
			m.flash = "no messages on screen to select"
		}
	case key.Matches(k, km.Down):
		if id, ok := nextSelectable(m.snap.selectable, m.sel, 1); ok {
			m.setSel(id)
		} else {
			m.flash = "no messages on screen to select"
		}
	case key.Matches(k, km.Story):
		m.pause()
		sel, news, ok := storySubject(m.x, m.snap.selectable, m.sel)
		if news != "" {
			m.flash = news
		}
		if sel != m.sel { // the first message on screen instead
			m.sel = sel
			m.snap.readInbox(m.x, sel)
		}
		if !ok {
			return nil
		}
		return storyJob(m.x, &m.snap, sel).run(m)
	case key.Matches(k, km.Code):
		m.openCode()
		return copyCmd(m.r, m.code.code)
	case key.Matches(k, km.Hunt):
		m.pause()
		m.openHunt()
	case key.Matches(k, km.Incidents):
		m.pause()
		m.picker.show(m.x.Spec.ID)
		m.state = statePicker
	}
	return nil
}

// keptExplorer is an incident the session left, as it was left.
type keptExplorer struct {
	x   *engine.Explorer
	at  engine.Time
	sel int32
}

// keptIncidents are the other incidents a session opened, by id, with
// their branches, cursor and selection: `i` and back loses nothing. Their
// memory counts against the session's budget.
type keptIncidents map[string]keptExplorer

// budgetLeft is the budget b less the memory the kept incidents hold.
func (k keptIncidents) budgetLeft(b engine.Limits) engine.Limits {
	if b.Bytes > 0 {
		var held int64
		for _, e := range k {
			held += e.x.Bytes()
		}
		b.Bytes = max(1, b.Bytes-held)
	}
	return b
}

// branches is how many forks the kept incidents hold.
func (k keptIncidents) branches() int {
	n := 0
	for _, e := range k {
		n += len(e.x.Branches()) - 1
	}
	return n
}

// setExplorer replaces the explorer with another incident's, keeping the
// one it leaves (its branches, cursor and selection) for `i` back: its
// memory stays charged to the pool, and the new explorer's memory budget
// is what the kept ones leave.
func (m *Model) setExplorer(x *engine.Explorer) {
	if m.x != nil {
		m.kept[m.x.Spec.ID] = keptExplorer{x: m.x, at: m.at, sel: m.sel}
	}
	if k, ok := m.kept[x.Spec.ID]; ok && k.x == x {
		delete(m.kept, x.Spec.ID)
	}
	x.Limit(m.kept.budgetLeft(m.shared.Budget), m.shared.Pool)
	m.x = x
	m.reset()
}

// reset forgets what belonged to the explorer before m.x.
func (m *Model) reset() {
	x := m.x
	m.sel = x.Spec.Featured
	m.exercise = nil
	m.exercises.row = 0
	m.branches.row = 0
	m.panes = [numPanes]int{}
	m.at = x.World().Now
	m.refresh(true)
}

// activeKeys are the keys the help bar shows: the active screen's own, so
// that it never offers a key the screen does not answer.
func (m Model) activeKeys() help.KeyMap {
	if r := m.exercises.room; m.stage != nil && !m.presenter && r.asked() {
		return roomKeyMap(r.state) // a follower's question is over the screen
	}
	switch m.state {
	case stateFork:
		return m.fork.keys
	case stateBranches:
		return m.branches.keys
	case stateCompare:
		return m.compare.keys
	case stateCode:
		return m.code.keys
	case stateExercises:
		return m.exercises.keys
	case stateStory:
		return m.story.keys
	case stateJump:
		return m.jump.keys
	case statePicker:
		return m.picker.keys
	case stateHunt:
		return m.hunt.keys
	}
	k := m.keys
	k.Question.SetEnabled(m.stage != nil && !m.presenter && m.exercises.room.hiddenOpen())
	return k
}
