package stage

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeLink records what a stage hands its link.
type fakeLink struct {
	mu        sync.Mutex
	states    []State
	questions []PollShared
	answers   [][3]uint64
}

func (l *fakeLink) Publish(st State) {
	l.mu.Lock()
	l.states = append(l.states, st)
	l.mu.Unlock()
}

func (l *fakeLink) Question(q PollShared) {
	l.mu.Lock()
	l.questions = append(l.questions, q)
	l.mu.Unlock()
}

func (l *fakeLink) Answer(seq, session uint64, choice int) {
	l.mu.Lock()
	l.answers = append(l.answers, [3]uint64{seq, session, uint64(choice)})
	l.mu.Unlock()
}

func TestStageCarriesItsOwnChangesOnly(t *testing.T) {
	s, l := New(), &fakeLink{}
	s.Link(l)
	s.Arrive()
	s.Publish(State{Code: codeA})
	s.Publish(State{Code: codeA}) // no change: nothing carried
	s.Receive(State{Code: codeB, Away: true})
	if st, gen := s.State(); st.Code != codeB || st.Away || gen != 2 {
		t.Fatalf("received %+v gen %d: a presenter here is not away", st, gen)
	}
	s.Leave()
	if len(l.states) != 2 || l.states[0].Code != codeA || l.states[1].Code != codeB || !l.states[1].Away {
		t.Fatalf("carried %+v, want a, then b away (the presenter leaving)", l.states)
	}
	s.Arrive()
	if len(l.states) != 3 || l.states[2].Away {
		t.Fatalf("the presenter's return was not carried: %+v", l.states)
	}
}

func TestStageOfflineAndLost(t *testing.T) {
	c := newClock()
	s := NewWithClock(c.Now)
	s.SetOnline(false) // before anything is on stage: nothing to wake
	if _, gen := s.State(); gen != 0 {
		t.Fatal("going offline before a state put one on stage")
	}
	s.Receive(State{Code: codeA, Playing: true, Speed: 10, Clock: &Anchor{Wall: 1000}})
	if st, _ := s.State(); !st.Offline {
		t.Fatal("a received state cleared this process's offline flag")
	}
	s.SetOnline(true)
	s.SetOnline(false) // playing on the clock, no presenter here: it stops
	if st, _ := s.State(); st.Clock.Until != c.ms() {
		t.Fatal("an offline stage without its presenter here plays on")
	}
	s.Receive(State{Code: codeA, Playing: true, Speed: 10, Clock: &Anchor{Wall: 1000}}) // the latest, once back
	s.SetOnline(true)
	if st, _ := s.State(); st.Clock.Until != 0 || st.Offline {
		t.Fatalf("the latest state after the outage did not play on: %+v", st.Clock)
	}
	_, gen := s.State()
	c.Add(1500 * time.Millisecond)
	s.Lost()
	st, gen2 := s.State()
	if !st.Away || gen2 != gen+1 || st.Clock == nil || st.Clock.Until != c.ms() {
		t.Fatalf("lost: %+v %+v gen %d→%d; want away and the clock stopped", st, st.Clock, gen, gen2)
	}
	s.Lost() // already away
	if _, gen3 := s.State(); gen3 != gen2 {
		t.Fatal("Lost twice moved the stage twice")
	}
	s.Arrive()
	s.Lost() // a presenter here is not lost
	if st, _ := s.State(); st.Away {
		t.Fatal("Lost with a presenter connected here")
	}
	s.Publish(State{Code: codeB, Playing: true, Speed: 10, Clock: &Anchor{Wall: 2000}})
	s.SetOnline(false) // this process's presenter plays on
	if st, _ := s.State(); st.Clock.Until != 0 || !st.Offline {
		t.Fatalf("the presenter's own stage stopped offline: %+v", st.Clock)
	}
}

func TestPollCarriesAndTakesTheRoom(t *testing.T) {
	s, l := New(), &fakeLink{}
	s.Link(l)
	p := s.Poll()
	q := PollQuestion{Incident: "thursday", Key: "5", Text: "?", Choices: []string{"x", "y", "z"}, Answer: 1}
	seq := p.Ask(q)
	me := p.Session()
	p.Here(me)
	if !p.Answer(seq, me, 2) || !p.Answer(seq, me, 2) {
		t.Fatal("answer refused")
	}
	p.Reveal(seq)
	if len(l.questions) != 2 || !l.questions[1].Revealed || l.questions[0].Question.Answer != 1 {
		t.Fatalf("questions carried: %+v", l.questions)
	}
	if len(l.answers) != 1 || l.answers[0] != [3]uint64{seq, me, 2} {
		t.Fatalf("answers carried: %+v (the same answer twice is carried once)", l.answers)
	}
	// another process's newer question replaces this one; an older one does not
	p.Receive(PollShared{Seq: seq + 1, Open: true, Question: q})
	if st := p.State(); st.Seq != seq+1 || st.Revealed || st.Answered != 0 || st.Question.Answer != -1 {
		t.Fatalf("received question: %+v", st)
	}
	p.Receive(PollShared{Seq: seq, Open: true, Revealed: true, Question: q})
	if st := p.State(); st.Seq != seq+1 || st.Revealed {
		t.Fatalf("an older question replaced the newer: %+v", st)
	}
	if !p.Answer(seq+1, me, 0) {
		t.Fatal("answer to the received question refused")
	}
	if w := p.Waiting(); w != 0 {
		t.Fatalf("waiting %d after answering", w)
	}
	// the room's tally, every process's, stands in for this one's
	p.SetRoom(seq+1, []int{4, 1, 0}, 7)
	st := p.State()
	if !slices.Equal(st.Tally, []int{4, 1, 0}) || st.Answered != 5 || st.Waiting != 7 {
		t.Fatalf("room tally not used: %+v", st)
	}
	p.SetRoom(seq, []int{9, 9, 9}, 1) // an old question's tally is not this one's
	if st := p.State(); st.Answered != 5 {
		t.Fatalf("an old question's tally is shown: %+v", st)
	}
	// the next question asked here follows the received numbering
	if next := p.Ask(q); next != seq+2 {
		t.Fatalf("asked %d after receiving %d", next, seq+1)
	}
}

// Offline, the presenter's tally is this process's own answers, said to
// be so, including those its followers give meanwhile; back online, the
// room's again.
func TestPollOfflineCountsThisServer(t *testing.T) {
	s, l := New(), &fakeLink{}
	s.Link(l)
	s.Receive(State{Code: codeA})
	p := s.Poll()
	q := PollQuestion{Incident: "thursday", Key: "5", Text: "?", Choices: []string{"x", "y", "z"}, Answer: 1}
	seq := p.Ask(q)
	me, other, late := p.Session(), p.Session(), p.Session()
	for _, f := range []uint64{me, other, late} {
		p.Here(f)
	}
	p.Answer(seq, me, 0)
	p.SetRoom(seq, []int{4, 1, 0}, 7) // the room's, this process's answer among them
	if st := p.State(); st.Offline || st.Answered != 5 {
		t.Fatalf("online: %+v, want the room's tally", st)
	}
	gen := p.State().TallyGen
	s.SetOnline(false)
	select {
	case <-p.TallyChanged(gen):
	default:
		t.Fatal("going offline did not wake the presenter's wait on the tally")
	}
	p.Answer(seq, me, 2)    // changes its mind during the outage
	p.Answer(seq, other, 1) // answers during the outage
	st := p.State()
	if !st.Offline || !slices.Equal(st.Tally, []int{0, 1, 1}) || st.Answered != 2 || st.Waiting != 1 {
		t.Fatalf("offline: %+v; want this server's own counts (0 1 1, 2 answered, 1 not yet), said to be so", st)
	}
	gen = st.TallyGen
	s.SetOnline(true)
	if st := p.State(); st.Offline || st.Answered != 5 || st.TallyGen == gen {
		t.Fatalf("back online: %+v; want the room's tally (until the link hears a new one), the wait woken", st)
	}

	// a poll made while the stage is offline starts offline
	s2 := New()
	s2.Link(&fakeLink{})
	s2.SetOnline(false)
	if st := s2.Poll().State(); !st.Offline {
		t.Fatal("a poll made on an offline stage is online")
	}
}

// A state whose presenter is gone goes on away and stopped in one step
// (never present for a moment); with a presenter here it plays on.
func TestStageReceiveLost(t *testing.T) {
	c := newClock()
	s := NewWithClock(c.Now)
	s.ReceiveLost(State{Code: codeA, Playing: true, Speed: 10, Clock: &Anchor{Wall: 1000}})
	st, gen := s.State()
	if !st.Away || st.Clock.Until != c.ms() || gen != 1 {
		t.Fatalf("received lost: %+v %+v gen %d; want away, the clock stopped, in one move", st, st.Clock, gen)
	}
	s.Arrive()
	s.ReceiveLost(State{Code: codeB, Playing: true, Speed: 10, Clock: &Anchor{Wall: 2000}})
	if st, _ := s.State(); st.Away || st.Clock.Until != 0 {
		t.Fatalf("with a presenter here: %+v %+v; want present, playing", st, st.Clock)
	}
}
