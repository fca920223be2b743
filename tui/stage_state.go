package tui

import (
	"fmt"
	"slices"

	"inflight/engine"
	"inflight/stage"
)

// The state on stage is package stage's plain data; here is how a session
// makes it from what it shows, and shows it or rebuilds an explorer from it.

// stageState is what this session shows, as the stage keeps it.
func (m *Model) stageState() stage.State {
	st := stage.State{Code: m.shareCode(), Playing: m.play.on, Speed: speeds[m.play.speed], Screen: m.stageScreen(), Beat: m.plan.stageBeat()}
	if a := m.play.anchor; a != nil { // clocked: the anchor, the same from tick to tick
		st.Code, st.Clock = a.code, &stage.Anchor{Wall: a.wall}
	}
	for _, b := range m.x.Branches() {
		st.Branches = append(st.Branches, branchLine(m.x, b).String())
	}
	return st
}

// stageScreen is the open screen and its parameters.
func (m *Model) stageScreen() stage.Screen {
	if j := m.jobs.cur; j != nil && j.opens != nil { // opening, as the stage had it
		return *j.opens
	}
	if s, ok := m.state.staged(m); ok { // the screens' table (screens.go)
		return s
	}
	if m.help.ShowAll {
		return stage.Screen{Kind: "help"}
	}
	return stage.Screen{}
}

// branchLine is branch b's line as a share code: its path from main, the
// cursor at its fork point. Only the path is read back (addLine).
func branchLine(x *engine.Explorer, b *engine.Branch) engine.Code {
	c := engine.Code{Incident: x.Spec.ID, Seed: x.Seed, Set: x.Set, Cursor: b.ForkPos}
	for _, p := range b.Path()[1:] {
		c.Forks = append(c.Forks, x.CodeFork(p))
	}
	return c
}

// addLine finds the branch c's forks lead to in x, making the forks x
// does not have yet, and returns it. It moves the cursor; call it under
// the explorer's Run, which turns a budget overrun into an error.
func addLine(x *engine.Explorer, c engine.Code) (*engine.Branch, error) {
	cur := x.Branches()[0]
	for i, f := range c.Forks {
		name := x.ForkNameOn(cur, f)
		var next *engine.Branch
		for _, b := range x.Branches() {
			if b.Parent == cur && b.Name == name && (f.Pos < 0 || b.ForkPos == f.Pos) &&
				slices.Equal(b.Changes, f.Set) && sameOverride(b.Override, f.Override) && slices.Equal(b.Faults, f.Faults) {
				next = b
				break
			}
		}
		if next == nil {
			x.Switch(cur)
			pos := f.Pos
			if pos < 0 {
				pos = x.PosAtTime(cur, f.At)
			}
			x.Goto(pos)
			if x.Pos() != pos {
				return nil, fmt.Errorf("fork %d is at event %d, but the run ends at event %d", i+1, pos, x.Pos())
			}
			b, err := x.Fork(engine.ForkOptions{Name: name, Pos: pos, At: f.At, Set: f.Set, Override: f.Override, Faults: f.Faults})
			if err != nil {
				return nil, fmt.Errorf("fork %d: %w", i+1, err)
			}
			next = b
		}
		cur = next
	}
	return cur, nil
}

func sameOverride(a, b *engine.DecisionOverride) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// restoreExplorer rebuilds the presenter's explorer from a state: every
// branch in its order, then the cursor where the code puts it.
func restoreExplorer(st stage.State, sh *Shared) (*engine.Explorer, error) {
	c, err := engine.ParseCode(st.Code)
	if err != nil {
		return nil, err
	}
	spec, err := bundledSpec(c.Incident)
	if err != nil {
		return nil, fmt.Errorf("the stage: %w", err)
	}
	x, err := engine.NewExplorer(spec, c.Seed, c.Set)
	if err != nil {
		return nil, err
	}
	x.Limit(sh.Budget, sh.Pool)
	var werr error
	err = x.Run(nil, func() { werr = restoreLines(x, st, c) })
	if err == nil {
		err = werr
	}
	if err != nil {
		if sh.Pool != nil {
			sh.Pool.Release(x.Bytes())
		}
		return nil, fmt.Errorf("the stage: %w", err)
	}
	return x, nil
}

// restoreLines adds the state's branches to x and puts the cursor on the
// code's branch and event.
func restoreLines(x *engine.Explorer, st stage.State, c engine.Code) error {
	for _, l := range st.Branches {
		lc, err := engine.ParseCode(l)
		if err != nil {
			return err
		}
		if _, err := addLine(x, lc); err != nil {
			return err
		}
	}
	b, err := addLine(x, c)
	if err != nil {
		return err
	}
	x.Switch(b)
	if c.Cursor < 0 {
		x.End()
	} else {
		x.Goto(c.Cursor)
	}
	return nil
}

// speedIndex is the place of speed sp in speeds (the default for a speed
// this build does not offer).
func speedIndex(sp float64) int {
	if i := slices.Index(speeds[:], sp); i >= 0 {
		return i
	}
	return newPlayer().speed
}

// showStage shows a state's moment and screen on this session's
// explorer, which already holds the state's branches: the cursor, clock
// and selection, the play state, the open screen. Screens that read the
// engine when they open start their job here (openScreen). A clocked state
// shows the moment its clock gives at stage time now (Unix ms): the
// events at or before it, the clock capped at the branch's end.
func (m *Model) showStage(st stage.State, reopen bool, now int64) error {
	c, err := engine.ParseCode(st.Code)
	if err != nil {
		return err
	}
	moment, clocked := st.Moment(c, now)
	before, beforeBr := m.x.Pos(), m.x.Branch()
	end := false // the clock has passed the branch's end
	if clocked || lineOf(m.x.Code().String()) != lineOf(st.Code) || m.x.Pos() != c.Cursor {
		if err := m.x.Run(nil, func() {
			var b *engine.Branch
			if b, err = addLine(m.x, c); err == nil {
				pos := c.Cursor
				if clocked {
					pos = max(pos, m.x.PosAfterTime(b, moment))
				}
				m.x.Switch(b)
				m.x.Goto(pos)
				end = clocked && m.x.AtEnd()
			}
		}); err != nil {
			return err
		}
		if err != nil {
			return err
		}
	}
	w := m.x.World()
	m.at = w.Now
	switch {
	case clocked && !end:
		m.at = max(moment, w.Now)
	case c.HasAt && c.At >= w.Now:
		m.at = c.At
	}
	m.sel = m.x.Spec.Featured
	if c.HasSel && c.Sel < int32(max(1, w.Published())) {
		m.sel = c.Sel
		m.snap.noteSel(m.x, c.Sel)
	}
	m.refresh(m.x.Branch() != beforeBr || m.x.Pos() < before)
	m.snap.readPanes(m.x, m.at, m.sel, false)
	if reopen {
		m.openScreen(st.Screen)
	}
	scrollStaged(m, st.Screen) // the screens' table (screens.go)
	// after the screen: a screen's job pauses
	m.play.on = st.Playing
	m.play.speed = speedIndex(st.Speed)
	return nil
}

// openScreen opens the screen s names over the main view, as the
// presenter left it. A screen that reads the engine (a life story, a
// comparison) starts its job and returns: the screen opens, scrolled as
// s says, when the job's end is delivered (a session's jobDoneMsg, the
// stage's mirror settling), and meanwhile the stage keeps s as the open
// screen. Nothing here waits.
func (m *Model) openScreen(s stage.Screen) {
	m.jobs.cancel() // the screen before, still opening
	m.state = stateMain
	m.help.ShowAll = false
	if s.Kind == "help" {
		m.help.ShowAll = true
	} else {
		openStaged(m, s) // the screens' table (screens.go)
	}
	m.flash = ""
	if j := m.jobs.cur; j != nil {
		j.opens = &s
		apply := j.apply
		j.apply = func(m *Model) {
			if apply != nil {
				apply(m)
			}
			scrollStaged(m, s)
		}
	}
}

// restoreFork fills the form in as the presenter had it. The row and the
// pick index this form's rows and values: one this form does not have
// (a state from another process, checked only against the bounds any
// form keeps) leaves the form's own.
func restoreFork(f *forkForm, s stage.Fork) {
	if len(s.Values) == len(f.inputs) {
		for i, v := range s.Values {
			f.inputs[i].SetValue(v)
		}
	}
	f.name.SetValue(s.Name)
	f.decIn.SetValue(s.Dec)
	f.filter.SetValue(s.Filter)
	f.filters = s.Filters
	if s.Pick >= -2 && s.Pick < len(f.values) {
		f.pick = s.Pick
	}
	if slices.Contains(f.rows(), s.Row) {
		f.row = s.Row
	}
	f.focus()
}

// resumable is the stage a presenter's new session resumes, if one is on
// stage: a presenter who reconnects finds it where it was. A presenter
// who opens a share code (ssh -t HOST open CODE) puts that on stage instead.
func (o Options) resumable() (stage.State, bool) {
	if !o.Presenter || o.Stage == nil || o.Code != nil || o.Explorer != nil {
		return stage.State{}, false
	}
	st, gen := o.Stage.State()
	return st, gen > 0
}
