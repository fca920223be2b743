package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/stage"
)

// maxFollowScroll bounds a follower's own scroll, in lines: past any
// screen's end (a screen clamps its own), so it bounds the frames a
// scrolling follower can ask to be drawn.
const maxFollowScroll = 4096

// followScroll is a follower's own scroll of the stage's screen (a life
// story, a comparison), on top of the presenter's: a follower on a small
// terminal reads a screen the presenter's large one shows whole, without
// leaving the stage. It holds for the screen it was made on; another
// screen starts at the presenter's scroll again.
type followScroll struct {
	by int          // lines below the presenter's scroll (negative: above)
	of stage.Screen // the screen scrolled, its scroll left out
}

// scrollable reports whether the stage's screen kind scrolls.
func scrollable(kind string) bool {
	for _, d := range screens {
		if d.scroll != nil && d.name == kind {
			return true
		}
	}
	return false
}

// unscrolled is s without its scroll: which screen it is.
func unscrolled(s stage.Screen) stage.Screen {
	s.Off = 0
	return s
}

// on is the scroll to draw the stage's current screen with: 0 when the
// screen is another than the one scrolled.
func (f followScroll) on(s *Stage) int {
	if f.by == 0 {
		return 0
	}
	st, _ := s.State()
	if !scrollable(st.Screen.Kind) || !sameScreen(unscrolled(st.Screen), f.of) {
		return 0
	}
	return max(f.by, -st.Screen.Off)
}

func sameScreen(a, b stage.Screen) bool {
	return a.Kind == b.Kind && a.Msg == b.Msg && a.A == b.A && a.B == b.B
}

// onScrollKey answers a following session's j/k/↓/↑ while the stage shows
// a screen that scrolls: the follower's own view of it scrolls, and the
// session stays on the stage. false for any other key or screen.
func (m *Model) onScrollKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if !m.follower.on || m.stage == nil || m.presenter {
		return nil, false
	}
	d := 0
	switch {
	case key.Matches(k, m.keys.Down):
		d = 1
	case key.Matches(k, m.keys.Up):
		d = -1
	default:
		return nil, false
	}
	st, _ := m.stage.State()
	if !scrollable(st.Screen.Kind) {
		return nil, false
	}
	f := &m.follower.scroll
	if scr := unscrolled(st.Screen); !sameScreen(scr, f.of) {
		*f = followScroll{of: scr}
	}
	f.by = min(maxFollowScroll, max(-st.Screen.Off, f.by+d))
	if !m.follower.restart() { // the frame at the new scroll, at once
		return nil, true
	}
	return m.wait(), true
}

// scrolledView is the mirror's view with its screen scrolled by scroll
// lines more than the stage's, and the scroll put back.
func (mr *mirror) scrolledView(scroll int) string {
	if scroll == 0 {
		return mr.m.View()
	}
	s := mr.scr
	s.Off = max(0, s.Off+scroll)
	scrollStaged(&mr.m, s)
	v := mr.m.View()
	scrollStaged(&mr.m, mr.scr)
	return v
}

// followKeys are a following session's keys, for its help bar: what it
// is seeing first, then the keys that do something while it follows (the
// rest of the explorer's keys are a move: they leave the stage).
type followKeys struct {
	Following, Leave, Rejoin, Scroll, Branches, Question, Quit key.Binding
}

func (k followKeys) ShortHelp() []key.Binding {
	// too wide, the help bar drops the third from last first: b, then ↑↓
	return []key.Binding{k.Following, k.Leave, k.Rejoin, k.Scroll, k.Branches, k.Question, k.Quit}
}
func (k followKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// followKeyMap is the help bar of a session following a stage on screen
// kind (the stage's screen): ↑↓ scroll only a screen that scrolls, A
// only while the follower hid an open question.
func followKeyMap(kind string, hidden bool) followKeys {
	k := followKeys{
		Following: key.NewBinding(key.WithKeys(""), key.WithHelp("following", "the presenter")), // no key: what it sees,
		Leave:     key.NewBinding(key.WithKeys(""), key.WithHelp("a move key", "leaves")),
		Rejoin:    binding([]string{"F"}, "F", "rejoins"),
		Scroll:    binding([]string{"j", "k", "down", "up"}, "↑↓/jk", "scroll"),
		Branches:  binding([]string{"b"}, "b", "your branches"),
		Question:  key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "the question")),
		Quit:      binding([]string{"q", "ctrl+c"}, "q", "quit"),
	}
	k.Scroll.SetEnabled(scrollable(kind))
	k.Question.SetEnabled(hidden)
	return k
}

// followingKeys are the help bar's keys while m follows: a session
// showing the stage's frame (its footer is drawn for it when it hid the
// question), or the stage's mirror, which draws every follower's frame
// and whose open screen is the stage's.
func (m *Model) followingKeys() (followKeys, bool) {
	switch {
	case !m.follower.on:
		return followKeys{}, false
	case m.stage == nil && m.help.ShowAll: // the presenter shows the room every key
		return followKeys{}, false
	case m.stage == nil: // the mirror (stage_frames.go)
		return followKeyMap(m.state.String(), false), true
	case m.state == stateMain:
		st, _ := m.stage.State()
		return followKeyMap(st.Screen.Kind, m.exercises.room.hiddenOpen()), true
	}
	return followKeys{}, false
}
