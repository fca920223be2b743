package stage

import (
	"sync"
	"testing"
	"time"
)

// TestPollCountsOneAnswerPerSession: fifty sessions answer at once, some
// of them twice; the tally counts each session once, with its last
// answer, and refuses what is not an answer to the question that is up.
func TestPollCountsOneAnswerPerSession(t *testing.T) {
	p := NewPoll()
	seq := p.Ask(PollQuestion{Key: "5", Text: "What does the broker do?", Choices: []string{"accept", "refuse", "hold"}, Answer: 1})
	if st := p.State(); !st.Open || st.Question.Answer != -1 || st.Answered != 0 {
		t.Fatalf("asked: %+v (the answer must stay hidden)", st)
	}
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := p.Session()
			p.Here(s)
			if i%5 == 0 {
				p.Answer(seq, s, 0) // changes its mind below
			}
			if !p.Answer(seq, s, 1+i%2) {
				t.Errorf("session %d: answer refused", s)
			}
			p.State()
		}()
	}
	wg.Wait()
	st := p.State()
	if st.Answered != n || st.Tally[0] != 0 || st.Tally[1]+st.Tally[2] != n || st.Waiting != 0 {
		t.Fatalf("tally %v, %d answered, %d waiting; want 50 answers, one each, none on the first choice", st.Tally, st.Answered, st.Waiting)
	}
	s := p.Session()
	for _, bad := range []struct {
		seq, session uint64
		choice       int
	}{{seq, s, 3}, {seq, s, -1}, {seq + 1, s, 0}, {seq, 0, 0}, {seq, s + 1, 0}} {
		if p.Answer(bad.seq, bad.session, bad.choice) {
			t.Errorf("answer %+v accepted", bad)
		}
	}
	p.Reveal(seq)
	if p.Answer(seq, s, 0) {
		t.Error("an answer after the reveal was accepted")
	}
	if st := p.State(); !st.Revealed || st.Question.Answer != 1 || st.Answered != n {
		t.Fatalf("revealed: %+v", st)
	}
	// a new question starts from nothing
	seq2 := p.Ask(PollQuestion{Choices: []string{"x", "y"}, Answer: 0})
	if st := p.State(); st.Seq != seq2 || st.Answered != 0 || st.Revealed || len(st.Tally) != 2 {
		t.Fatalf("second question: %+v", st)
	}
	if _, ok := p.Mine(seq2, s); ok {
		t.Error("an answer carried over to the next question")
	}
	p.Drop(seq2)
	if st := p.State(); st.Open {
		t.Fatal("dropped question still open")
	}
}

// TestPollWaiting counts the followers present who have not answered; a
// follower that stops waiting on the poll drops out of the count.
func TestPollWaiting(t *testing.T) {
	c := newClock()
	p := newPoll(c.Now)
	seq := p.Ask(PollQuestion{Choices: []string{"a", "b"}})
	var ss []uint64
	for range 10 {
		s := p.Session()
		p.Here(s)
		ss = append(ss, s)
	}
	for _, s := range ss[:4] {
		p.Answer(seq, s, 0)
	}
	if st := p.State(); st.Waiting != 6 || st.Answered != 4 {
		t.Fatalf("%d waiting, %d answered; want 6 and 4", st.Waiting, st.Answered)
	}
	p.Gone(ss[9])
	c.Add(presentFor / 2)
	for _, s := range ss[:8] {
		p.Here(s) // ss[8] stops waiting
	}
	c.Add(presentFor/2 + time.Millisecond)
	if st := p.State(); st.Waiting != 4 {
		t.Fatalf("%d waiting; want 4 (one left, one stopped waiting)", st.Waiting)
	}
}

// TestPollBounds: the poll counts at most maxPollSessions sessions.
func TestPollBounds(t *testing.T) {
	p := NewPoll()
	seq := p.Ask(PollQuestion{Choices: []string{"a", "b"}})
	ok := 0
	for range maxPollSessions + 10 {
		s := p.Session()
		p.Here(s)
		if p.Answer(seq, s, 1) {
			ok++
		}
	}
	st := p.State()
	if ok != maxPollSessions || st.Answered != maxPollSessions || len(p.present) != maxPollSessions {
		t.Fatalf("%d answers accepted, %d counted, %d present; want %d", ok, st.Answered, len(p.present), maxPollSessions)
	}
}

// TestPollWakes: a question's change wakes everyone; an answer wakes only
// the tally's watcher (the presenter).
func TestPollWakes(t *testing.T) {
	p := NewPoll()
	st := p.State()
	q, tally := p.Changed(st.Gen), p.TallyChanged(st.TallyGen)
	if closedNow(q) || closedNow(tally) {
		t.Fatal("woken before anything moved")
	}
	seq := p.Ask(PollQuestion{Choices: []string{"a", "b"}})
	if !closedNow(q) || !closedNow(tally) {
		t.Fatal("asking woke nobody")
	}
	st = p.State()
	q, tally = p.Changed(st.Gen), p.TallyChanged(st.TallyGen)
	p.Answer(seq, p.Session(), 1)
	if closedNow(q) || !closedNow(tally) {
		t.Fatalf("an answer: question woken %v, tally woken %v; want false, true", closedNow(q), closedNow(tally))
	}
	p.Reveal(seq)
	if !closedNow(q) {
		t.Fatal("the reveal woke no follower")
	}
}
