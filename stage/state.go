package stage

import "inflight/engine"

// State is everything a follower needs to draw what the presenter sees,
// as plain data: share codes and small numbers, no pointers into an
// engine, so that it serialises (JSON) and another process can rebuild
// the same screen from it.
type State struct {
	// Code is the cursor's format-2 share code: incident, branch path
	// with the forks' names, event, displayed clock and selection.
	Code string `json:"code"`
	// Branches are the lines of every branch the presenter holds, in the
	// order they were made (main first), each a share code whose forks
	// are the branch's path; its cursor is the branch's fork point.
	Branches []string `json:"branches,omitempty"`
	Playing  bool     `json:"playing,omitempty"`
	Speed    float64  `json:"speed"` // simulated seconds per second, 0 as fast as it goes
	Screen   Screen   `json:"screen"`
	Away     bool     `json:"away,omitempty"` // no presenter session is connected
	// Question is the room's open question, when the presenter asks one:
	// its slot in the state, kept by the poll.
	Question string `json:"question,omitempty"`
	// Clock, while the stage plays at a set speed, anchors play to the
	// stage's clock (Stage.Now) instead of any process's timer: the moment
	// shown at stage time t is the code's clock plus Speed × (t − Wall),
	// so followers on every process show the same moment without the
	// presenter publishing every frame.
	Clock *Anchor `json:"clock,omitempty"`
	// Beat is the plan's beat the presenter moved the stage to (serve
	// --plan): its number and title, never the presenter's notes.
	Beat *Beat `json:"beat,omitempty"`
	// Offline says this process has lost the connection that carries the
	// stage between processes (serve --stage): it is this process's to
	// say, never carried.
	Offline bool `json:"-"`
	// LostAt, while Offline, is the stage clock (Unix ms) at which this
	// process lost that connection; Here says a presenter session is
	// connected to this process. Both are this process's to say, like
	// Offline: its followers are told whether the stage still reaches
	// them or the room is split.
	LostAt int64 `json:"-"`
	Here   bool  `json:"-"`
	// Stale says the state is the last heard before the link went down
	// and nothing has been heard since, though the link may be back (a
	// Redis that came back empty holds no state until the presenter's
	// process sends it again): the presenter's stage may be elsewhere.
	Stale bool `json:"-"`
}

// Anchor is a playing stage's anchor on the stage's clock.
type Anchor struct {
	Wall int64 `json:"wall"` // the stage clock (Unix ms) at which the code's moment held
	// Until is the stage clock (Unix ms) at which play stopped without a
	// pause (the presenter went away); 0 while it plays.
	Until int64 `json:"until,omitempty"`
}

// Screen is the screen open over the main view and its small
// parameters. Kind is "" for the main view.
type Screen struct {
	Kind string `json:"kind,omitempty"` // help, story, compare, exercises, branches, fork, code, jump, picker
	Msg  int32  `json:"msg,omitempty"`  // story: the message
	A    int    `json:"a,omitempty"`    // compare: the branches, by their place in Branches
	B    int    `json:"b,omitempty"`
	Row  int    `json:"row,omitempty"` // exercises, branches: the row
	Off  int    `json:"off,omitempty"` // story, compare: the scroll offset
	Text string `json:"text,omitempty"`
	Fork *Fork  `json:"fork,omitempty"`
}

// Fork is the fork form as it is filled in.
type Fork struct {
	Row     int      `json:"row"`
	Pick    int      `json:"pick"`
	Dec     string   `json:"dec,omitempty"`    // a decision value typed
	Values  []string `json:"values"`           // each knob's value as typed, in the form's order
	Name    string   `json:"name,omitempty"`   // the branch's name as typed
	Filter  string   `json:"filter,omitempty"` // the knob filter
	Filters bool     `json:"filters,omitempty"`
	Before  bool     `json:"before,omitempty"` // it forks before the displayed clock's events, some behind the cursor
}

// Speeds are the play speeds the stage offers, simulated seconds per
// second of wall time; 0 is "as fast as it goes".
var Speeds = [...]float64{1, 2, 5, 10, 30, 60, 120, 300, 0}

// Play on stage is paced by the stage's clock (Stage.Now), the same on
// every process, not by any session's timer: the presenter publishes an
// anchor when play starts and nothing while it just plays, and every
// follower works out the moment from the anchor at each beat of the
// stage's clock, so followers on different processes show the same moment.

// ClockMoment is the moment shown at stage time t (Unix ms) by play
// anchored at moment at and stage time wall: never before the anchor,
// which a process whose clock runs a little behind would otherwise show.
func ClockMoment(at engine.Time, speed float64, wall, t int64) engine.Time {
	return at + engine.Time(speed*float64(max(0, t-wall)))
}

// Running says the state plays on the stage's clock now: followers take
// a frame at each of its beats.
func (st State) Running() bool {
	return st.Clock != nil && st.Clock.Until == 0 && st.Playing && !st.Away && st.Speed > 0
}

// ClockTime is the stage time (Unix ms) whose moment a clocked state
// shows at stage time now: now while it runs, Until once it stopped.
// ok is false for a state not clocked, which shows its code as it is.
func (st State) ClockTime(now int64) (t int64, ok bool) {
	switch c := st.Clock; {
	case c == nil || st.Speed <= 0:
		return 0, false
	case c.Until > 0:
		return c.Until, true
	case !st.Running():
		return c.Wall, true
	}
	return now, true
}

// Moment is the moment state st shows at stage time now, from its code
// c: the code's clock itself unless the state is clocked.
func (st State) Moment(c engine.Code, now int64) (engine.Time, bool) {
	t, ok := st.ClockTime(now)
	if !ok || !c.HasAt {
		return c.At, false
	}
	return ClockMoment(c.At, st.Speed, st.Clock.Wall, t), true
}
