package tui

import "sync"

// Stage is presenter mode's shared state: the presenter's session publishes
// the share code of every moment it shows, and follower sessions wait for
// the generation to move and re-read it. The SSH server makes one Stage per
// server and hands it to every session, so it is safe for concurrent use.
type Stage struct {
	mu   sync.Mutex
	code string
	gen  uint64
	wake chan struct{} // closed and replaced when gen moves
	poll *Poll         // the room's question (poll.go)
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

// Publish sets the presenter's current share code. Publishing the code
// already on stage does nothing, so followers are not woken for nothing.
func (s *Stage) Publish(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == s.code {
		return
	}
	s.code = code
	s.gen++
	close(s.wake)
	s.wake = make(chan struct{})
}

// Current returns the code on stage and its generation ("" and 0 before
// the presenter's first move).
func (s *Stage) Current() (code string, gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, s.gen
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
