package tui

import (
	"time"

	"inflight/engine"
	"inflight/stage"
)

// Play on stage is paced by the stage's clock (stage.Stage.Now; the
// moment a state shows is stage.State.Moment): here the presenter's play
// keeps its anchor on it.

// stageAnchor is where the presenter's clocked play started from: the
// state on stage holds its code and wall until it is re-anchored.
type stageAnchor struct {
	code string      // the share code at the anchor, its clock always given
	at   engine.Time // the code's clock
	wall int64       // the stage's clock (Unix ms) at the anchor
	// what it was anchored on: a change to any of them (a key, a job, a
	// new speed) re-anchors, while play's own moves do not
	gen, speed int
	br         *engine.Branch
	sel        int32
	pos        int64       // the cursor as play last left it
	shown      engine.Time // the clock as play last left it
}

// stageMs is a stage clock reading as the state's unit, Unix ms.
func stageMs(t time.Time) int64 { return t.UnixMilli() }

// beatOf is the beat of the stage's clock that stage time t is in.
func beatOf(t int64) int64 { return t - t%stageBeat.Milliseconds() }

// clockPlay keeps the presenter's play anchored on the stage's clock
// while it plays at a set speed: a fresh anchor when play starts, the
// speed, branch or selection changes or anything but play moves the
// cursor; none at "max", paused or without a stage.
func (m *Model) clockPlay() {
	p := &m.play
	if !m.presenter || m.stage == nil || !p.on || speeds[p.speed] == 0 {
		p.anchor = nil
		return
	}
	if a := p.anchor; a != nil && a.gen == p.gen && a.speed == p.speed && a.br == m.x.Branch() &&
		a.sel == m.sel && a.pos == m.x.Pos() && a.shown == m.at {
		return
	}
	c := m.momentCode(true) // the moment the clock counts from, even at an event
	p.anchor = &stageAnchor{code: c.String(), at: m.at, wall: stageMs(m.stage.Now()),
		gen: p.gen, speed: p.speed, br: m.x.Branch(), sel: m.sel, pos: m.x.Pos(), shown: m.at}
}

// resumeClock anchors a resumed presenter's play. A clock still running
// keeps its anchor, so the stage does not change and every screen plays
// on as it did; a stopped one (the presenter was away) starts afresh from
// the moment it stopped at, where showStage put the cursor.
func (m *Model) resumeClock(st stage.State) {
	c, err := engine.ParseCode(st.Code)
	if err != nil || !st.Running() || !c.HasAt || speeds[m.play.speed] != st.Speed {
		m.clockPlay()
		return
	}
	m.play.anchor = &stageAnchor{code: st.Code, at: c.At, wall: st.Clock.Wall,
		gen: m.play.gen, speed: m.play.speed, br: m.x.Branch(), sel: m.sel, pos: m.x.Pos(), shown: m.at}
}
