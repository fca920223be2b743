package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
	"inflight/stage"
)

// frame is autoplay's tick: the engine runs between frames, in bounded
// slices, so Update always returns within a frame.
const frame = 50 * time.Millisecond

// sliceBudget bounds the engine work one tick may do, in wall time and in
// events, so a key pressed while playing at full speed is answered within a
// frame.
const (
	sliceBudget = 8 * time.Millisecond
	sliceEvents = 20_000
)

// speeds are the stage's: simulated seconds per second of wall time; 0
// is "as fast as the engine goes".
var speeds = stage.Speeds

// player is autoplay's state. gen tags ticks: pausing, seeking or forking
// bumps it, so a tick already in flight is dropped when it arrives.
type player struct {
	on    bool
	speed int // index into speeds
	gen   int
	// anchor, while a presenter plays at a set speed, paces play by the
	// stage's clock, as followers see it (stage_clock.go)
	anchor *stageAnchor
	// clock times the play slices: nil, the wall's; a test's that stands
	// still makes a run's path independent of the machine's speed
	clock func() time.Time
}

func (p *player) now() time.Time {
	if p.clock != nil {
		return p.clock()
	}
	return time.Now()
}

func newPlayer() player { return player{speed: 3} }

func (p *player) faster() { p.speed = min(p.speed+1, len(speeds)-1) }
func (p *player) slower() { p.speed = max(p.speed-1, 0) }

// label is the play state for the header: "▶ 10×" or "⏸ 10×".
func (p player) label() string {
	s := "⏸ paused"
	if p.on {
		s = "▶ playing"
	}
	return s + " " + p.speedLabel()
}

// paddedLabel is label padded to the widest label any state and speed
// gives, so that the header does not shift as the speed changes.
func (p player) paddedLabel() string {
	s := p.label()
	return s + strings.Repeat(" ", max(0, labelWidth()-lipgloss.Width(s)))
}

func labelWidth() int {
	w := 0
	for i := range speeds {
		for _, on := range []bool{false, true} {
			w = max(w, lipgloss.Width(player{on: on, speed: i}.label()))
		}
	}
	return w
}

func (p player) speedLabel() string {
	if speeds[p.speed] == 0 {
		return "max"
	}
	return fmt.Sprintf("%g×", speeds[p.speed])
}

// playTickMsg is one autoplay frame, tagged with the player's generation.
type playTickMsg struct {
	gen int
	t   time.Time
}

func tickCmd(gen int) tea.Cmd {
	return tea.Tick(frame, func(t time.Time) tea.Msg { return playTickMsg{gen: gen, t: t} })
}

// toggle starts or stops autoplay on x; at x's end it does not start,
// and says why.
func (p *player) toggle(x *engine.Explorer) (tea.Cmd, string) {
	if p.on {
		p.pause()
		return nil, ""
	}
	if x.AtEnd() {
		return nil, "at the end of this branch: g goes back to the start"
	}
	p.on = true
	p.gen++
	return tickCmd(p.gen), ""
}

// pause stops autoplay; a tick already in flight is dropped. Every
// screen's long move pauses it first.
func (p *player) pause() {
	if p.on {
		p.on = false
		p.gen++
	}
}

// onTick advances the clock *at by one frame's worth of simulated time
// and steps x through the events that fall inside it, within the slice
// budget; it stops at the budget or the branch's end, and says so. While
// anchored on stage s's clock it plays to the moment the clock gives
// instead, so that a late tick catches up rather than drifting.
func (p *player) onTick(t playTickMsg, x *engine.Explorer, at *engine.Time, s *Stage) (tea.Cmd, string) {
	if !p.on || t.gen != p.gen {
		return nil, ""
	}
	// autoplay plays on the explorer itself, a frame's slice at a time,
	// under the budget: a branch that passes it stops here
	if err := x.Run(nil, func() {
		if a := p.anchor; a != nil && s != nil {
			*at = playTo(x, *at, stage.ClockMoment(a.at, speeds[p.speed], a.wall, stageMs(s.Now())), p.now)
			a.pos, a.shown = x.Pos(), *at
			return
		}
		*at = p.advance(x, *at, frame)
	}); err != nil {
		p.pause()
		return nil, err.Error()
	}
	if x.AtEnd() {
		p.pause()
		// the last frame's clock may have run past the last event: show
		// the end, as G does, so that no moment past it is shown or shared
		*at = x.World().Now
		return nil, "end of the branch"
	}
	return tickCmd(p.gen), ""
}

// advance plays dt of wall time on x at the current speed from the clock
// at, and returns the clock it reaches.
func (p *player) advance(x *engine.Explorer, at engine.Time, dt time.Duration) engine.Time {
	start := p.now()
	sp := speeds[p.speed]
	if sp == 0 {
		for n := 0; n < sliceEvents && p.now().Sub(start) < sliceBudget && !x.AtEnd(); n += 64 {
			x.Step(64)
		}
		return x.World().Now
	}
	return playTo(x, at, at+engine.Time(sp*float64(dt/time.Millisecond)), p.now)
}

// playTo steps x through the events at or before target, within the
// slice budget, and returns the clock it reaches from at.
func playTo(x *engine.Explorer, at, target engine.Time, now func() time.Time) engine.Time {
	start := now()
	for n := 0; n < sliceEvents; n++ {
		if n%64 == 0 && now().Sub(start) > sliceBudget {
			return max(at, x.World().Now) // the engine is behind the clock: catch up next frame
		}
		next, ok := peek(x)
		if !ok || next > target {
			break
		}
		x.Step(1)
	}
	return max(at, target, x.World().Now) // at: a stage clock set back does not rewind play
}

// peek is the time of x's next event without moving its cursor: a clone
// of the world, stepped once. At a fork point of the cursor's own line the
// clone would continue the parent's history, so it answers "now" there
// and the caller simply steps.
func peek(x *engine.Explorer) (engine.Time, bool) {
	w := x.World()
	for _, b := range x.Branch().Path()[1:] {
		if b.ForkPos == w.Pos {
			return w.Now, true
		}
	}
	c := w.Clone()
	var t engine.Time = -1
	c.Step(sinkFn(func(_ *engine.World, e *engine.Event, _ *engine.Decision) { t = e.T }))
	if t < 0 {
		return 0, false
	}
	return t, true
}

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }
