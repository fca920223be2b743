package tui

import tea "github.com/charmbracelet/bubbletea"

// session is the explorer as a server runs it for one SSH session: the
// Model behind a pointer, so that a follower's frames (ten a second
// while the stage plays, in every follower) neither copy the Model
// nor redraw it: the stage's shared frame is taken as it is.
type session struct{ m Model }

// NewSession builds the explorer for one session of a workshop server;
// it is New's Model behind a pointer, drawing the stage's frame while it
// follows.
func NewSession(o Options) (tea.Model, error) {
	o.Keep = nil // an attendee's branches are never read from or written to the server's disk
	m, err := New(o)
	if err != nil {
		return nil, err
	}
	return &session{m: m}, nil
}

// Init starts the Model.
func (s *session) Init() tea.Cmd { return s.m.Init() }

// Update takes a follower's frame in place; everything else goes to the
// Model.
func (s *session) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if sm, ok := msg.(stageMsg); ok && s.m.jobs.cur == nil {
		return s, s.m.onStage(sm)
	}
	nm, cmd := s.m.Update(msg)
	s.m = nm.(Model)
	return s, cmd
}

// View is the stage's frame while following, else the Model's own.
func (s *session) View() string {
	if f, ok := s.m.stageFrame(); ok {
		if o, ok := s.m.roomFrame(f); ok { // the room's question over it (poll_room.go)
			return o
		}
		if o, ok := s.m.hiddenFrame(f); ok { // its help bar says how to show it again
			return o
		}
		return f
	}
	return s.m.View()
}

// Release gives back what the Model holds.
func (s *session) Release() { s.m.Release() }
