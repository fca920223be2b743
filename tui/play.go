package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
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

// speeds are simulated seconds per second of wall time; 0 is "as fast as
// the engine goes".
var speeds = [...]float64{1, 2, 5, 10, 30, 60, 120, 300, 0}

// player is autoplay's state. gen tags ticks: pausing, seeking or forking
// bumps it, so a tick already in flight is dropped when it arrives.
type player struct {
	on    bool
	speed int // index into speeds
	gen   int
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

func (m *Model) togglePlay() tea.Cmd {
	if m.play.on {
		m.pause()
		return nil
	}
	if m.x.AtEnd() {
		m.flash = "at the end of this branch: g goes back to the start"
		return nil
	}
	m.play.on = true
	m.play.gen++
	return tickCmd(m.play.gen)
}

func (m *Model) pause() {
	if m.play.on {
		m.play.on = false
		m.play.gen++
	}
}

// onTick advances the clock by one frame's worth of simulated time and
// steps the events that fall inside it, within the slice budget.
func (m *Model) onTick(t playTickMsg) tea.Cmd {
	if !m.play.on || t.gen != m.play.gen {
		return nil
	}
	// autoplay plays on the explorer itself, a frame's slice at a time,
	// under the budget: a branch that passes it stops here
	if err := m.x.Run(nil, func() { m.advance(frame) }); err != nil {
		m.pause()
		m.flash = err.Error()
		return nil
	}
	if m.x.AtEnd() {
		m.pause()
		m.flash = "end of the branch"
		return nil
	}
	return tickCmd(m.play.gen)
}

// advance plays dt of wall time at the current speed.
func (m *Model) advance(dt time.Duration) {
	start := time.Now()
	sp := speeds[m.play.speed]
	if sp == 0 {
		for n := 0; n < sliceEvents && time.Since(start) < sliceBudget && !m.x.AtEnd(); n += 64 {
			m.x.Step(64)
		}
		m.at = m.x.World().Now
		return
	}
	target := m.at + engine.Time(sp*float64(dt/time.Millisecond))
	for n := 0; n < sliceEvents; n++ {
		if n%64 == 0 && time.Since(start) > sliceBudget {
			m.at = max(m.at, m.x.World().Now)
			return // the engine is behind the clock: catch up next frame
		}
		next, ok := m.peek()
		if !ok || next > target {
			break
		}
		m.x.Step(1)
	}
	m.at = max(target, m.x.World().Now)
}

// peek is the time of the next event without moving the cursor: a clone
// of the world, stepped once. At a fork point of the cursor's own line the
// clone would continue the parent's history, so it answers "now" there
// and the caller simply steps.
func (m *Model) peek() (engine.Time, bool) {
	w := m.x.World()
	for _, b := range m.x.Branch().Path()[1:] {
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
