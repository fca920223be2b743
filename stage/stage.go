package stage

import (
	"reflect"
	"sync"
	"time"
)

// Stage is presenter mode's shared state: the presenter's session
// publishes what it shows as a State, and follower sessions wait for the
// generation to move and show it. The state, not the presenter's
// session, is the stage: a presenter who reconnects resumes it, and it is
// plain data, so that it can be carried between processes (a Link). The
// SSH server makes one Stage per server and hands it to every session; it
// is safe for concurrent use.
type Stage struct {
	mu        sync.Mutex
	state     State
	gen       uint64
	wake      chan struct{} // closed and replaced when gen moves
	presenter int           // presenter sessions connected
	link      Link          // nil: the stage lives in this process only
	offset    time.Duration // the stage's clock less this process's
	clock     func() time.Time

	poll *Poll // the room's question (poll.go)
}

// Link carries one process's stage to the others of a workshop (serve
// --stage) and theirs to it. The stage calls it outside its lock, after
// the change is on stage here, so a link may call back; its methods must
// not block (the latest state wins).
type Link interface {
	// Publish carries a state this process put on stage: its presenter's,
	// or its presenter arriving or leaving.
	Publish(State)
	// Question carries the room's question as this process's presenter
	// asked, revealed or dropped it.
	Question(PollShared)
	// Answer carries a follower's answer here to question seq, counted
	// with every process's.
	Answer(seq, session uint64, choice int)
}

// New returns an empty stage on the real clock: no presenter has
// published yet.
func New() *Stage { return NewWithClock(time.Now) }

// NewWithClock is New on the clock now: this process's clock, which the
// stage's is set against (SetClockOffset), and its poll's. Tests give
// their own, so that nothing waits for real time to pass.
func NewWithClock(now func() time.Time) *Stage {
	return &Stage{wake: make(chan struct{}), clock: now}
}

// Link makes l carry the stage between processes. Call it before the
// stage is used.
func (s *Stage) Link(l Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.link = l
	if s.poll != nil {
		s.poll.link = l
	}
}

// Poll is the room's question, which the presenter asks and followers
// answer (made on first use).
func (s *Stage) Poll() *Poll {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.poll == nil {
		s.poll = newPoll(s.clock)
		s.poll.link = s.link
		s.poll.offline = s.state.Offline
	}
	return s.poll
}

// Publish puts the presenter's state on stage. Publishing the state
// already on stage does nothing, so followers are not woken for nothing.
// What the presenter typed passes the text guard on the way.
func (s *Stage) Publish(st State) {
	st = st.clean()
	s.mu.Lock()
	st.Away = s.state.Away // presence is the server's to say (Arrive, Leave)
	st.Offline, st.LostAt, st.Here = s.state.Offline, s.state.LostAt, s.state.Here
	if s.gen > 0 && reflect.DeepEqual(st, s.state) {
		s.mu.Unlock()
		return
	}
	s.state = st
	s.bump()
	s.carry()
}

// carry unlocks s.mu and hands the state on stage to the link.
func (s *Stage) carry() {
	st, l := s.state, s.link
	s.mu.Unlock()
	if l != nil {
		l.Publish(st)
	}
}

// Receive puts on stage a state another process published (its presence
// included); the link is not told again. A state Check refuses is not
// put on: its error comes back.
func (s *Stage) Receive(st State) error { return s.receive(st, false) }

// ReceiveLost is Receive for a state whose presenter is known to be gone
// (a process catching up finds no presenter present): it goes on stage
// as Lost leaves one, away and stopped where the clock says, so that it
// is never shown present for a moment. A presenter here is not away.
func (s *Stage) ReceiveLost(st State) error { return s.receive(st, true) }

func (s *Stage) receive(st State, lost bool) error {
	if err := st.Check(); err != nil {
		return err
	}
	st = st.clean()
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Offline, st.LostAt, st.Here = s.state.Offline, s.state.LostAt, s.state.Here
	st.Stale = false // heard: where the presenter's stage is
	switch {
	case s.presenter > 0:
		st.Away = false // a presenter is here, whatever the other process says
	case lost:
		st.Away = true
		st.Clock = s.stopped(st.Clock)
	}
	if s.gen > 0 && reflect.DeepEqual(st, s.state) {
		return nil
	}
	s.state = st
	s.bump()
	return nil
}

// SetOnline says whether the link that carries the stage is connected;
// while it is not, followers are told so and the stage stays as it was:
// a stage playing on its clock stops where it is (what the presenter does
// meanwhile is unknown here), unless the presenter is this process's.
// The link puts the stage's latest state on when it is back. The poll is
// told too: offline, its tally is this process's only.
func (s *Stage) SetOnline(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Offline == !ok {
		return
	}
	s.state.Offline = !ok
	s.state.LostAt = 0
	if !ok {
		s.state.LostAt = s.now().UnixMilli()
	}
	if s.poll != nil {
		s.poll.SetOnline(ok) // lock order: the stage's, then the poll's
	}
	if !ok && s.presenter == 0 {
		s.stop()
		s.state.Stale = s.gen > 0 && !s.state.Away
	}
	if s.gen > 0 {
		s.bump()
	}
}

// SetClockOffset sets the stage's clock to this process's plus d (the
// link measures it against the clock every process shares).
func (s *Stage) SetClockOffset(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offset = d
}

// Now is the stage's clock, which paces a playing stage on every process.
func (s *Stage) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now()
}

// now is the stage's clock; s.mu is held.
func (s *Stage) now() time.Time { return s.clock().Add(s.offset) }

// bump moves the generation and wakes every follower; s.mu is held.
func (s *Stage) bump() {
	s.gen++
	close(s.wake)
	s.wake = make(chan struct{})
}

// State returns the state on stage and its generation (0 before the
// presenter's first publish).
func (s *Stage) State() (State, uint64) {
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

// Presenting says a presenter session is connected to this process.
func (s *Stage) Presenting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.presenter > 0
}

// Arrive notes a presenter session starting: the stage is no longer away.
func (s *Stage) Arrive() {
	s.mu.Lock()
	s.presenter++
	here := !s.state.Here
	stale := s.state.Stale
	s.state.Here, s.state.Stale = true, false // the presenter's state is this process's own
	if !s.state.Away {
		if (here && s.state.Offline || stale) && s.gen > 0 {
			s.bump() // its followers are told the room is split
		}
		s.mu.Unlock()
		return
	}
	s.state.Away = false
	s.bump()
	s.carry()
}

// Leave notes a presenter session ending. When the last one goes the
// stage stays where it was and says the presenter is away.
func (s *Stage) Leave() {
	s.mu.Lock()
	s.presenter--
	s.state.Here = s.presenter > 0
	if s.presenter != 0 || s.gen == 0 || s.state.Away {
		s.mu.Unlock()
		return
	}
	s.away()
	s.carry()
}

// Lost says the process that held the presenter has gone silent (the
// link heard nothing from it): the stage shows the presenter away and
// stays where it was. Nothing is carried: the others hear the same
// silence.
func (s *Stage) Lost() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.presenter == 0 && s.gen > 0 && !s.state.Away {
		s.state.Stale = false // the stage is where the presenter left it
		s.away()
	} else if s.state.Stale {
		s.state.Stale = false
		s.bump()
	}
}

// away marks the presenter away and stops a clocked stage where it is
// now; s.mu is held.
func (s *Stage) away() {
	s.state.Away = true
	s.stop()
	s.bump()
}

// stop stops a stage playing on its clock at the clock's now; s.mu is
// held.
func (s *Stage) stop() { s.state.Clock = s.stopped(s.state.Clock) }

// stopped is clock c stopped at the stage clock's now, if it runs; s.mu
// is held.
func (s *Stage) stopped(c *Anchor) *Anchor {
	if c == nil || c.Until != 0 {
		return c
	}
	st := *c
	st.Until = s.now().UnixMilli()
	return &st
}
