package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
	"inflight/stage"
)

// state is which screen has the keyboard: its row in the screens' table
// (screens.go).
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
	stateRestore
	stateGoto // `#`: select a message by its number (goto.go)
	numStates
)

// Model is the explorer's root model, one per session. It routes keys to
// the active screen (the table in screens.go) and owns the explorer;
// panes and screens only draw.
type Model struct {
	common // the session's renderer, styles, keys and the size drawn in
	x      *engine.Explorer
	help   help.Model
	state  state

	// the cursor's displayed moment: the clock the user asked for (a tick,
	// a jump, a bookmark) or the latest event's time, never before it
	at engine.Time
	// stepped is where the last event move (l, h, n, N) left the cursor:
	// f there forks at the cursor, between events of one clock; after any
	// other move, at the moment shown, before that clock's events
	stepped stepMark

	play  player
	sel   int32 // the selected message, -1 none
	snap  snap
	main  mainScreen // the main view's own state
	flash string     // one line of news: an error, a fork made
	// legendOff scrolls the help screen's legend (↑/↓ while it is open)
	legendOff int

	// the terminal's size as it said it, which the drawn size is clamped from
	termW, termH int

	fork      forkForm
	branches  branchList
	book      branchBook // the branch list's marks and deletions, kept between opens
	compare   compareView
	code      codeView
	exercises exerciseList
	story     storyView
	jump      jumpInput
	goTo      gotoInput
	picker    picker
	hunt      huntList         // the properties `x` hunts a break of (hunt.go)
	exercise  *engine.Exercise // the exercise this branch answers

	stage     *Stage
	presenter bool // this session drives the stage
	follower  follower
	plan      planCursor  // the presenter's place in the session's plan (plan.go)
	shownBeat *stage.Beat // a follower's mirror: the beat the stage is at

	shared *Shared // the process-wide budget, pool and chart cache
	// kept are the other incidents this session opened, with their
	// branches, cursor and selection, while the program runs: `i` and
	// back loses nothing. Their memory counts against the budget.
	kept keptIncidents
	jobs jobRunner // the long moves, run off the update loop

	charts chartWatch // the whole-run charts: the one on screen, the passes started

	keep    *keeper      // the saved branch tree (saved.go); nil under serve
	restore restoreOffer // the prompt offering it back
}

func newModel(x *engine.Explorer, r *lipgloss.Renderer, o Options, sh *Shared) Model {
	c := newCommon(r)
	st := c.st
	h := help.New()
	h.Styles = st.Help
	m := Model{common: c, x: x, help: h, sel: x.Spec.Featured, stage: o.Stage, presenter: o.Presenter && o.Stage != nil, shared: sh, kept: keptIncidents{},
		jobs: jobRunner{slots: sh.slots, pool: sh.Pool, gate: sh.gate}}
	m.play = newPlayer()
	m.plan = newPlanCursor(o)
	m.picker = newPicker(c)
	m.charts.watch(x, sh)
	m.at = x.World().Now
	if o.Follow && o.Stage != nil {
		m.flash = m.follower.start(o.Stage)
		// made here, not by Init's wait: Init's Model is a copy, and
		// Release must close the channel that first wait selects on
		m.follower.left = &leaving{c: make(chan struct{})}
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
	if j := m.jobs.cur; j != nil { // a presenter resuming a screen that opens by a job
		cmds = append(cmds, j.wait(), jobTick(j.id))
	}
	cmds = append(cmds, m.watchPoll()) // the room's questions (poll_room.go)
	return tea.Batch(cmds...)
}

// Update routes a message, in the order soft-serve's root does: keys that
// hold on every screen first (ctrl+c; while a job runs, its own keys),
// then the sizes, which every screen gets, then the app's messages (jobs,
// charts, autoplay, the stage), and the rest of the keys to the active
// screen. Every screen is a component with its own keys, SetSize, Update
// and View (the screen interface, screens.go); its onKey acts on the root
// as its Update's outcome asks.
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
			cmd = m.typedTogether(msg)
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
		if m.follower.restart() { // the stage's frame at the new size
			cmd = m.wait()
		}
	case tea.MouseMsg:
		if m.jobs.cur == nil {
			cmd = m.main.mouse(&m, msg)
		}
	case jobDoneMsg: // one that went on in the background has ended
		if m.jobs.current(msg.id) {
			cmd = m.finishJob(m.jobs.cur)
		}
	case jobTickMsg: // its progress line moves
		cmd = m.jobs.ticked(msg.id)
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
		if s, ok := m.state.screen(&m).(moving); ok { // a follower's cursor moves under it
			s.moved(&m)
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
		if c := m.charts.watch(m.x, m.shared); c != nil {
			cmd = tea.Batch(cmd, c)
		}
	}
	return m, cmd
}

// typedTogether takes keys typed faster than one read ("++") one at a
// time, each where it would go alone: to a job's own keys once one key
// has started a job, else to the screen; a quit ends the read.
func (m *Model) typedTogether(k tea.KeyMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range k.Runes {
		one := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}
		job := m.jobs.cur != nil
		if job {
			cmds = append(cmds, m.jobKey(one))
		} else {
			cmds = append(cmds, m.updateKey(one))
		}
		if key.Matches(one, m.keys.Quit) && (job || m.state == stateMain) {
			break
		}
	}
	return tea.Batch(cmds...)
}

// updateKey routes a key to the screen that has the keyboard.
func (m *Model) updateKey(k tea.KeyMsg) tea.Cmd {
	defer m.noteSeat(true)           // the room view's count of who is where (poll_room.go)
	if cmd, ok := m.roomKey(k); ok { // a follower answering the room's question, the presenter's room view
		return cmd
	}
	if cmd, ok := m.planKey(k); ok { // the presenter's beat keys (plan.go)
		return cmd
	}
	if s := m.state.screen(m); s != nil {
		return s.onKey(m, k)
	}
	return m.main.onKey(m, k)
}

// onKey answers a key on the main view.
func (s *mainScreen) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	km := m.keys
	if key.Matches(k, km.Quit) {
		return tea.Quit
	}
	if key.Matches(k, km.Help) {
		m.help.ShowAll = !m.help.ShowAll
		m.legendOff = 0
		return nil
	}
	if m.help.ShowAll && (key.Matches(k, km.Up) || key.Matches(k, km.Down)) {
		m.scrollLegend(key.Matches(k, km.Down)) // legend.go
		return nil
	}
	if key.Matches(k, km.Close) {
		m.flash = ""
		m.help.ShowAll = false
		return nil
	}
	if key.Matches(k, km.Follow) {
		return m.follower.follow(m)
	}
	if cmd, ok := m.onScrollKey(k); ok { // a follower scrolls the stage's screen (follow_scroll.go)
		return cmd
	}
	// every key below moves or forks: a follower detaches into its own copy
	if m.follower.on && km.takesCopy(k) {
		m.follower.leave(m)
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
		m.play.pause()
		m.flash = stepBy(m.x, 1, &m.at)
		m.stepped = markOf(m.x)
	case key.Matches(k, km.Back):
		m.play.pause()
		m.flash = stepBy(m.x, -1, &m.at)
		m.stepped = markOf(m.x)
	case key.Matches(k, km.Tick):
		m.play.pause()
		return tickMove(m.x.Spec, m.at, engine.Second).run(m)
	case key.Matches(k, km.TickBack):
		m.play.pause()
		return tickMove(m.x.Spec, m.at, -engine.Second).run(m)
	case key.Matches(k, km.NextDec):
		m.play.pause()
		return decisionMove(true).run(m)
	case key.Matches(k, km.PrevDec):
		m.play.pause()
		return decisionMove(false).run(m)
	case key.Matches(k, km.NextMark):
		m.play.pause()
		return bookmarkMove(m.x.Spec, m.at, true).run(m)
	case key.Matches(k, km.PrevMark):
		m.play.pause()
		return bookmarkMove(m.x.Spec, m.at, false).run(m)
	case key.Matches(k, km.Start):
		m.play.pause()
		m.x.Goto(0)
		m.at = m.x.World().Now
	case key.Matches(k, km.End):
		m.play.pause()
		return endMove(m.x).run(m)
	case key.Matches(k, km.Jump):
		m.play.pause()
		m.jump, m.state = newJumpInput(m.common, m.at), stateJump
	case key.Matches(k, km.Goto):
		m.goTo, m.state = newGotoInput(m.common, m.x.Spec), stateGoto
	case key.Matches(k, km.Fork):
		m.play.pause()
		return openForkJob(m.at, m.stepped != markOf(m.x), nil).run(m) // a job: it reads back
	case key.Matches(k, km.Branches):
		m.branches, m.state = newBranchList(m.common, m.x, &m.book), stateBranches
	case key.Matches(k, km.NextBr):
		return nextBranchMove(m.x, m.at).run(m) // a job: it pauses
	case key.Matches(k, km.Compare):
		m.play.pause()
		a, b, news := comparePair(m)
		if a == nil {
			m.flash = news
			return nil
		}
		return compareJob(m.x, &m.snap, m.sel, a, b).run(m)
	case key.Matches(k, km.Exercises):
		m.openExercises()
	case key.Matches(k, km.Up):
		if id, ok := nextSelectable(m.snap.selectable, m.sel, -1); ok {
			s.setSel(m, id)
		} else {
			m.flash = "no messages on screen to select"
		}
	case key.Matches(k, km.Down):
		if id, ok := nextSelectable(m.snap.selectable, m.sel, 1); ok {
			s.setSel(m, id)
		} else {
			m.flash = "no messages on screen to select"
		}
	case key.Matches(k, km.Story):
		m.play.pause()
		sel, news, ok := storySubject(m.x, m.snap.selectable, m.sel)
		if news != "" {
			m.flash = news
		}
		// the first message on screen instead is only read, not selected:
		// reading never changes the selection
		if !ok {
			return nil
		}
		return storyJob(m.x, &m.snap, sel).run(m)
	case key.Matches(k, km.Code):
		m.openCode()
		return copyCmd(m.r, m.code.code)
	case key.Matches(k, km.Hunt):
		m.play.pause()
		m.openHunt()
	case key.Matches(k, km.Incidents):
		m.play.pause()
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

// swap replaces m's explorer with another incident's, keeping the one it
// leaves (its branches, cursor and selection) in k, m's kept incidents,
// for `i` back: its memory stays charged to the pool, and the new
// explorer's memory budget is what the kept ones leave.
func (k keptIncidents) swap(m *Model, x *engine.Explorer) {
	if m.x != nil {
		k[m.x.Spec.ID] = keptExplorer{x: m.x, at: m.at, sel: m.sel}
	}
	if e, ok := k[x.Spec.ID]; ok && e.x == x {
		delete(k, x.Spec.ID)
	}
	x.Limit(k.budgetLeft(m.shared.Budget), m.shared.Pool)
	m.x = x
	m.main.reset(m)
}

// reset forgets what belonged to the explorer before m.x: the main
// view's and the lists' places.
func (s *mainScreen) reset(m *Model) {
	x := m.x
	m.sel = x.Spec.Featured
	m.exercise = nil
	m.exercises.row = 0
	m.branches.row = 0
	s.scroll = [maxPanes]int{}
	m.at = x.World().Now
	m.refresh(true)
}
