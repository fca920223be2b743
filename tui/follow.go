package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// follower is a session showing the presenter's stage. While it follows,
// its screen is the stage's frame for its size and colours, drawn once
// for every follower alike; its own explorer (with the branches it made
// before) waits untouched until it detaches. tag names the current wait,
// so a wait left over from before a detach or a resize is dropped.
type follower struct {
	on       bool
	tag      int
	gen      uint64 // the generation last shown
	stalled  bool   // a stage message came during a job: wait again after it
	frame    string // the stage drawn for this terminal; "" before the first
	colours  colours
	coloured bool            // colours is known
	draft    bool            // the frame was drawn before the chart was ready: fetch again soon
	opening  <-chan struct{} // closed when the screen the frame waits for can be drawn open: fetch again then
	beat     int64           // the beat of the stage's clock (Unix ms) the frame was drawn at
	left     *leaving        // closed when the session ends (Release): its wait ends with it
	scroll   followScroll    // its own scroll of the stage's screen (follow_scroll.go)
}

// stageWait bounds one wait on the stage, so a session that quits leaves
// no goroutine waiting for long; draftWait is the wait after a frame drawn
// before its chart was ready.
const (
	stageWait = 2 * time.Second
	draftWait = 250 * time.Millisecond
)

// stageBeat is how often a follower takes a new frame at most. Followers
// take frames on the beat of the stage's clock, not of their own last
// frame, so that they all ask for the same generation and moment and
// share its frame: the room's screens are drawn ten times a second,
// whatever its size, and while the stage plays on its clock each beat's
// frame shows the moment of that beat on every process.
const stageBeat = 100 * time.Millisecond

// stageMsg brings the stage's frame for the size it was drawn at (or,
// with timeout, says the wait ended with nothing new).
type stageMsg struct {
	tag     int
	gen     uint64
	beat    int64 // the beat of the stage's clock it was drawn at
	frame   string
	w, h    int
	timeout bool
	draft   bool
	opening <-chan struct{} // see follower.opening
}

// start makes the session a follower of s (ssh follow@host, or F); news
// says when there is nothing to follow yet.
func (f *follower) start(s *Stage) (news string) {
	f.on = true
	if _, gen := s.State(); gen == 0 {
		return "nothing to follow yet: no presenter has started. This is the start of the incident; the screen follows the presenter once they do."
	}
	return ""
}

// wait is the command that waits for the stage to move past the
// generation last shown, or while it plays on its clock for the clock's
// next beat, and fetches its frame at this session's size.
func (m *Model) wait() tea.Cmd {
	s := m.stage
	if s == nil || !m.follower.on {
		return nil
	}
	if !m.follower.coloured {
		m.follower.colours, m.follower.coloured = coloursOf(m.r), true
	}
	if m.follower.left == nil { // made before the wait that selects on it, in the Model Release gets
		m.follower.left = &leaving{c: make(chan struct{})}
	}
	tag, gen, w, h, c, sh, left, opening := m.follower.tag, m.follower.gen, m.width, m.height, m.follower.colours, m.shared, m.follower.left, m.follower.opening
	scroll := m.follower.scroll
	next := m.follower.beat + stageBeat.Milliseconds() // one frame a beat at most
	d := stageWait
	if m.follower.draft {
		d = draftWait
	}
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		var beat <-chan time.Time
		if st, g := s.State(); g == gen && st.Running() {
			now := stageMs(s.Now())
			bt := time.NewTimer(time.Duration(max(next, beatOf(now)+stageBeat.Milliseconds())-now) * time.Millisecond)
			defer bt.Stop()
			beat = bt.C
		}
		select {
		case <-s.Changed(gen):
		case <-beat:
		case <-opening:
		case <-left.c:
			return nil // the session has ended
		case <-t.C:
			if d == stageWait {
				return stageMsg{tag: tag, gen: gen, timeout: true}
			}
		}
		now := stageMs(s.Now())
		if now < next {
			t.Reset(time.Duration(next-now) * time.Millisecond)
			select {
			case <-t.C:
			case <-left.c:
				return nil
			}
			now = max(next, stageMs(s.Now()))
		}
		f, g, b, final, op := s.scrolledFrame(w, h, c, sh, beatOf(now), scroll.on(s))
		return stageMsg{tag: tag, gen: g, beat: b, frame: f, w: w, h: h, draft: !final, opening: op}
	}
}

// resume waits on the stage again after a job, if a message came meanwhile.
func (f *follower) resume(m *Model) tea.Cmd {
	if !f.stalled {
		return nil
	}
	f.stalled = false
	return m.wait()
}

// follow starts following the stage again. The session's own branches
// stay: they come back when it detaches.
func (f *follower) follow(m *Model) tea.Cmd {
	if m.stage == nil {
		m.flash = "there is no stage to follow here (presenter mode runs under inflight serve)"
		return nil
	}
	if m.presenter {
		m.flash = "this session is the presenter"
		return nil
	}
	m.play.pause()
	m.flash = f.start(m.stage)
	f.tag++
	f.gen = 0 // show the current stage at once
	f.frame, f.opening = "", nil
	return m.wait()
}

// onStage takes the stage's frame, if it was drawn for this size, and
// waits for the next.
func (m *Model) onStage(s stageMsg) tea.Cmd {
	if !m.follower.on || s.tag != m.follower.tag {
		return nil
	}
	if !s.timeout {
		if s.w == m.width && s.h == m.height {
			m.follower.frame = s.frame
			m.follower.gen = s.gen
			m.follower.draft = s.draft
			m.follower.opening = s.opening
			m.follower.beat = s.beat
			if s.gen > 0 && m.flash != "" && s.frame != "" {
				m.flash = "" // "nothing to follow yet" is over
			}
		} else {
			m.follower.gen = 0 // resized meanwhile: fetch again
		}
	}
	return m.wait()
}

// restart drops the wait on the stage for one that fetches the frame
// afresh (at a new size); false when not following.
func (f *follower) restart() bool {
	if !f.on {
		return false
	}
	f.tag++
	f.gen = 0
	return true
}

// takesCopy reports whether msg detaches a follower into its own copy of
// the stage's moment: the keys that move or fork, and those that read the
// moment (a life story, a comparison, its share code), which read the copy.
func (k KeyMap) takesCopy(msg tea.KeyMsg) bool {
	return k.movesCursor(msg) || key.Matches(msg, k.Story) || key.Matches(msg, k.Compare) || key.Matches(msg, k.Code)
}

// stageFrame is what a following session draws: the stage's frame, when
// there is one for its size.
func (m *Model) stageFrame() (string, bool) {
	if !m.follower.on || m.follower.frame == "" || m.state != stateMain || m.jobs.cur != nil {
		return "", false
	}
	return m.follower.frame, true
}

// leave detaches m, a follower (f is its follower), into its own copy of
// the stage's moment: the presenter's branches and cursor, and the
// branches the session had made itself before it followed.
func (f *follower) leave(m *Model) {
	if !f.on {
		return
	}
	m.flash = f.detach()
	f.frame = ""
	if !f.coloured {
		f.colours, f.coloured = coloursOf(m.r), true
	}
	x, st := m.stage.copyExplorer(f.colours, m.shared, f.beat) // the moment it sees
	if x == nil {
		return // nothing on stage: the session's own explorer is its copy
	}
	c, err := engine.ParseCode(st.Code)
	if err != nil { // the stage's own code: not expected
		if m.shared.Pool != nil {
			m.shared.Pool.Release(x.Bytes())
		}
		m.flash = "cannot take the stage's moment: " + err.Error()
		return
	}
	// the session's own explorer of the stage's incident (the one it has,
	// or one it kept when it changed incident): its branches come along
	var mine *engine.Explorer
	if own := m.x; own.Spec.ID == x.Spec.ID {
		mine = own
	} else {
		m.kept[own.Spec.ID] = keptExplorer{x: own, at: m.at, sel: m.sel}
		if k, ok := m.kept[x.Spec.ID]; ok {
			mine = k.x
			delete(m.kept, x.Spec.ID)
		}
	}
	x.Limit(m.kept.budgetLeft(m.shared.Budget), m.shared.Pool)
	if mine != nil {
		if news := bringBranches(x, mine, c); news != "" {
			m.flash = news
		}
		if m.shared.Pool != nil {
			m.shared.Pool.Release(mine.Bytes())
		}
	}
	m.x = x
	m.main.reset(m)
	// the presenter's clock, when it is ahead of its cursor's event, and
	// the selected message
	showMoment(m, &c)
	m.refresh(true)
	m.play.speed = speedIndex(st.Speed)
}

// bringBranches adds the branches of mine (beyond main) to x, the copy of
// the stage, and puts x's cursor back at the stage's moment c, within x's
// limits; news says when they did not all fit.
func bringBranches(x, mine *engine.Explorer, c engine.Code) (news string) {
	if len(mine.Branches()) < 2 {
		return ""
	}
	err := x.Run(nil, func() {
		for _, b := range mine.Branches()[1:] {
			if _, err := addLine(x, branchLine(mine, b)); err != nil {
				news = "your own branches did not all fit: " + err.Error()
				break
			}
		}
		if b, err := addLine(x, c); err == nil {
			x.Switch(b)
			x.Goto(c.Cursor)
		}
	})
	if err != nil {
		news = "your own branches did not all fit: " + err.Error()
	}
	return news
}

// lineOf is a code without its cursor: the incident and branch path.
func lineOf(code string) string {
	line, _, _ := strings.Cut(code, "#")
	return line
}
