package tui

import (
	"time"

	"inflight/engine"
)

// Play on stage is paced by the stage's clock (Stage.Now), the same on
// every process, not by any session's timer: the presenter publishes an
// anchor when play starts and nothing while it just plays, and every
// follower works out the moment from the anchor at each beat of the
// stage's clock, so followers on different processes show the same moment.

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

// clockMoment is the moment shown at stage time t (Unix ms) by play
// anchored at moment at and stage time wall: never before the anchor,
// which a process whose clock runs a little behind would otherwise show.
func clockMoment(at engine.Time, speed float64, wall, t int64) engine.Time {
	return at + engine.Time(speed*float64(max(0, t-wall)))
}

// running says the state plays on the stage's clock now: followers take
// a frame at each of its beats.
func (st StageState) running() bool {
	return st.Clock != nil && st.Clock.Until == 0 && st.Playing && !st.Away && st.Speed > 0
}

// clockTime is the stage time (Unix ms) whose moment a clocked state
// shows at stage time now: now while it runs, Until once it stopped.
// ok is false for a state not clocked, which shows its code as it is.
func (st StageState) clockTime(now int64) (t int64, ok bool) {
	switch c := st.Clock; {
	case c == nil || st.Speed <= 0:
		return 0, false
	case c.Until > 0:
		return c.Until, true
	case !st.running():
		return c.Wall, true
	}
	return now, true
}

// stageMoment is the moment state st shows at stage time now, from its
// code c: the code's clock itself unless the state is clocked.
func (st StageState) stageMoment(c engine.Code, now int64) (engine.Time, bool) {
	t, ok := st.clockTime(now)
	if !ok || !c.HasAt {
		return c.At, false
	}
	return clockMoment(c.At, st.Speed, st.Clock.Wall, t), true
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
func (m *Model) resumeClock(st StageState) {
	c, err := engine.ParseCode(st.Code)
	if err != nil || !st.running() || !c.HasAt || speeds[m.play.speed] != st.Speed {
		m.clockPlay()
		return
	}
	m.play.anchor = &stageAnchor{code: st.Code, at: c.At, wall: st.Clock.Wall,
		gen: m.play.gen, speed: m.play.speed, br: m.x.Branch(), sel: m.sel, pos: m.x.Pos(), shown: m.at}
}
