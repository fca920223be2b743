package tui

import (
	"reflect"
	"sync"
)

// Stage is presenter mode's shared state: the presenter's session
// publishes what it shows as a StageState, and follower sessions wait for
// the generation to move and show the frame the stage draws for their
// terminal. The state, not the presenter's session, is the stage: a
// presenter who reconnects resumes it, and it is plain data, so that it
// can be carried between processes. The SSH server makes one Stage per
// server and hands it to every session; it is safe for concurrent use.
type Stage struct {
	mu        sync.Mutex
	state     StageState
	gen       uint64
	wake      chan struct{} // closed and replaced when gen moves
	presenter int           // presenter sessions connected

	frames frames // the followers' frames, drawn once per state, size and colours
	poll   *Poll  // the room's question (poll.go)
}

// NewStage returns an empty stage: no presenter has published yet.
func NewStage() *Stage { return &Stage{wake: make(chan struct{})} }

// Poll is the room's question, which the presenter asks and followers
// answer (made on first use).
func (s *Stage) Poll() *Poll {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.poll == nil {
		s.poll = NewPoll()
	}
	return s.poll
}

// Publish puts the presenter's state on stage. Publishing the state
// already on stage does nothing, so followers are not woken for nothing.
func (s *Stage) Publish(st StageState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Away = s.state.Away // presence is the server's to say (Arrive, Leave)
	if s.gen > 0 && reflect.DeepEqual(st, s.state) {
		return
	}
	s.state = st
	s.bump()
}

// bump moves the generation and wakes every follower; s.mu is held.
func (s *Stage) bump() {
	s.gen++
	close(s.wake)
	s.wake = make(chan struct{})
}

// State returns the state on stage and its generation (0 before the
// presenter's first publish).
func (s *Stage) State() (StageState, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.gen
}

// Changed returns a channel that is closed once the generation has moved
// past gen; it is already closed if it has.
func (s *Stage) Changed(gen uint64) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.wake
}

// Arrive notes a presenter session starting: the stage is no longer away.
func (s *Stage) Arrive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.presenter++
	if s.state.Away {
		s.state.Away = false
		s.bump()
	}
}

// Leave notes a presenter session ending. When the last one goes the
// stage stays where it was and says the presenter is away.
func (s *Stage) Leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.presenter--
	if s.presenter == 0 && s.gen > 0 && !s.state.Away {
		s.state.Away = true
		s.bump()
	}
}

// Close gives back the memory the followers' frames hold.
func (s *Stage) Close() { s.frames.close() }
