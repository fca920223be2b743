package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// follower is a session tracking the presenter's stage. tag names the
// current wait, so a wait left over from before a detach is dropped.
type follower struct {
	on      bool
	tag     int
	gen     uint64 // the generation last shown
	stalled bool   // a stage message came during a job: wait again after it
}

// resume waits on the stage again after a job, if a message came meanwhile.
func (m *Model) resume() tea.Cmd {
	if !m.follower.stalled {
		return nil
	}
	m.follower.stalled = false
	if !m.follower.on {
		return nil
	}
	return m.follower.wait(m.stage)
}

// stageWait bounds one wait on the stage, so a session that quits leaves
// no goroutine waiting for long.
const stageWait = 2 * time.Second

// stageMsg reports the stage moved (or that a wait timed out: code "").
type stageMsg struct {
	tag  int
	code string
	gen  uint64
}

// wait is the command that waits for the stage to move past the
// generation last shown.
func (f follower) wait(s *Stage) tea.Cmd {
	if s == nil {
		return nil
	}
	tag, gen := f.tag, f.gen
	return func() tea.Msg {
		select {
		case <-s.Changed(gen):
			code, g := s.Current()
			return stageMsg{tag: tag, code: code, gen: g}
		case <-time.After(stageWait):
			return stageMsg{tag: tag, gen: gen}
		}
	}
}

// follow starts following the stage again.
func (m *Model) follow() tea.Cmd {
	if m.stage == nil {
		m.flash = "there is no stage to follow here (presenter mode runs under inflight serve)"
		return nil
	}
	if m.presenter {
		m.flash = "this session is the presenter"
		return nil
	}
	m.pause()
	m.follower.on = true
	m.follower.tag++
	m.follower.gen = 0 // show the current stage at once
	m.flash = "following the presenter"
	return m.follower.wait(m.stage)
}

// onStage shows the presenter's moment: the same incident, branch and
// clock. A code on the same line of branches only moves the cursor.
func (m *Model) onStage(s stageMsg) tea.Cmd {
	if !m.follower.on || s.tag != m.follower.tag {
		return nil
	}
	var cmd tea.Cmd
	if s.code != "" && s.gen != m.follower.gen {
		m.follower.gen = s.gen
		cmd = m.showCode(s.code)
	}
	return tea.Batch(cmd, m.follower.wait(m.stage))
}

// showCode moves to the moment a share code names, reusing the explorer
// when only the cursor differs. Another line of branches is opened in a
// job: the presenter's branch may be millions of events long.
func (m *Model) showCode(staged string) tea.Cmd {
	code, clock, _ := strings.Cut(staged, " ")
	// the presenter's clock, when it is ahead of its cursor's event
	atClock := func(m *Model) {
		if t, err := engine.ParseClock(clock); err == nil && t >= m.x.World().Now {
			m.at = t
		}
	}
	c, err := engine.ParseCode(code)
	if err != nil {
		m.flash = err.Error()
		return nil
	}
	mine := m.x.Code()
	if lineOf(mine.String()) == lineOf(code) && c.Cursor >= 0 && c.Cursor <= m.x.Branch().Len()+m.x.Every {
		// a known stretch of the branch: a checkpoint restore and a short
		// replay at most
		m.x.Goto(c.Cursor)
		m.at = m.x.World().Now
		atClock(m)
		return nil
	}
	if lineOf(mine.String()) == lineOf(code) && c.Cursor >= 0 {
		return m.move("following the presenter", func(x *engine.Explorer) { x.Goto(c.Cursor) }, func(m *Model) {
			m.at = m.x.World().Now
			atClock(m)
		})
	}
	spec, sh := m.x.Spec, m.shared
	return m.startJob("opening the presenter's moment", 0, func(_ *engine.Explorer, mt *engine.Meter) (*engine.Explorer, error) {
		return openCode(code, spec, sh, mt)
	}, func(m *Model) {
		m.reset()
		m.state = stateMain
		atClock(m)
	}, func(m *Model, err error) {
		m.flash = "cannot show the stage: " + err.Error()
	})
}

// lineOf is a code without its cursor: the incident and branch path.
func lineOf(code string) string {
	line, _, _ := strings.Cut(code, "#")
	return line
}
