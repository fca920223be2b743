package stage

import (
	"reflect"
	"slices"
	"sync"
	"time"
)

// Poll is the room's question under serve: the presenter asks one of the
// incident's questions, every follower answers it with one key, and the
// presenter reveals the answer. The stage holds one Poll for the whole
// server, so it is safe for concurrent use. It is bounded: one answer per
// session (a later key replaces it), at most maxPollSessions sessions
// counted, and it keeps counts only — no answer is tied to a name, and a
// session is a number the poll itself handed out.
type Poll struct {
	mu       sync.Mutex
	seq      uint64 // the question's number; 0 before the first
	q        PollQuestion
	open     bool // a question is up (asked, perhaps revealed)
	revealed bool
	answers  map[uint64]int       // session → choice, this question's
	present  map[uint64]time.Time // follower sessions → when each last waited here
	sessions uint64               // session numbers handed out

	// gen moves when the question does (asked, revealed, dropped): every
	// follower wakes. tally moves with gen and with every answer: only
	// the presenter, whose screen counts them, waits on it.
	gen, tally         uint64
	wakeGen, wakeTally chan struct{}

	now func() time.Time // the stage's clock; tests give their own

	// Under serve --stage the question is the room's across processes:
	// link carries this process's questions and answers, and room is
	// the tally every process's answers make, as the link last heard it.
	link Link
	room roomTally
	// offline: the link is down (Stage.SetOnline), so room is stale and
	// State counts this process's answers only.
	offline bool
	keep    func(Revealed) // each reveal here, kept (Keep)

	// The room's seats (Seat): each present session's own copy or not
	// and its last key, this process's, bounded like present; others is
	// the other processes' counts as their beats last said them.
	seats  map[uint64]seat
	others RoomCounts
	recall uint64 // the presenter's call back to the stage (Recall), the last one
}

// seat is what the room view reads of one session.
type seat struct {
	own    bool      // on its own copy, not following
	active time.Time // its last key
}

// RoomCounts is the room by state: sessions following the stage, on
// their own copy, and on their own copy without a key for IdleAfter.
type RoomCounts struct {
	Following int `json:"following"`
	Own       int `json:"own"`
	Idle      int `json:"idle"`
}

// Add is the sum of two processes' counts.
func (c RoomCounts) Add(o RoomCounts) RoomCounts {
	return RoomCounts{c.Following + o.Following, c.Own + o.Own, c.Idle + o.Idle}
}

// IdleAfter is how long an attendee on their own copy may go without a
// key before the room view counts them idle.
const IdleAfter = 2 * time.Minute

// roomTally is question seq's answers counted over every process, and the
// followers of the other processes who have not answered.
type roomTally struct {
	seq    uint64 // 0: none heard
	tally  []int
	others int
}

// PollShared is the question as it travels between processes: everything
// but the answers, which each process counts into the room's tally.
type PollShared struct {
	Seq      uint64       `json:"seq"`
	Open     bool         `json:"open,omitempty"`
	Revealed bool         `json:"revealed,omitempty"`
	Question PollQuestion `json:"question"`
	// Recall is the presenter's last call back to the stage: every
	// session on its own copy follows again when it moves.
	Recall uint64 `json:"recall,omitempty"`
}

// PollQuestion is what followers see of a question: the answer's index is
// -1 in a PollState until the presenter reveals it.
type PollQuestion struct {
	Incident string   `json:"incident"`
	Key      string   `json:"key"`
	Text     string   `json:"text"`
	Choices  []string `json:"choices"`
	Answer   int      `json:"answer"`
}

// PollState is one consistent reading of the poll.
type PollState struct {
	Seq      uint64 // the question's number (0: none asked yet)
	Open     bool
	Revealed bool
	Question PollQuestion
	Tally    []int // answers per choice
	Answered int
	Waiting  int    // followers present who have not answered
	Gen      uint64 // the question's generation
	TallyGen uint64 // the tally's
	// Offline says the link to the other processes is down: Tally,
	// Answered and Waiting count this server's followers only.
	Offline bool
	// Room is the room by state (this process's and, in a hall, the
	// others' as their beats said); Recall the last call back.
	Room   RoomCounts
	Recall uint64
}

const (
	// maxPollSessions bounds the sessions a poll counts and the answers it
	// keeps: past it a new session is not counted and cannot answer.
	maxPollSessions = 4096
	// presentFor is how long a follower counts as in the room after it
	// last waited on the poll; followers wait again at least every
	// PollWait. A session that ends leaves at once (Gone, when the
	// session is released): this only catches one that never says so.
	presentFor = 3 * PollWait
	// PollWait bounds one wait on the poll. A session's wait ends with
	// the session (Gone), so the bound only limits how long a session
	// that never says so leaves a goroutine behind; a long one keeps an
	// idle room from waking every session for nothing.
	PollWait = 30 * time.Second
)

// NewPoll returns a poll with no question, on the real clock.
func NewPoll() *Poll { return newPoll(time.Now) }

// newPoll is a poll that reads presence off clock now (the stage's).
func newPoll(now func() time.Time) *Poll {
	return &Poll{answers: map[uint64]int{}, present: map[uint64]time.Time{}, seats: map[uint64]seat{},
		wakeGen: make(chan struct{}), wakeTally: make(chan struct{}), now: now}
}

// Session hands out a new anonymous session number (never 0).
func (p *Poll) Session() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessions++
	return p.sessions
}

// moved wakes the waiters: everyone when the question changed, the
// presenter only for a new answer.
func (p *Poll) moved(question bool) {
	if question {
		p.gen++
		close(p.wakeGen)
		p.wakeGen = make(chan struct{})
	}
	p.tally++
	close(p.wakeTally)
	p.wakeTally = make(chan struct{})
}

// Ask puts a question to the room, replacing any other, and returns its
// number. The answer stays hidden until Reveal.
func (p *Poll) Ask(q PollQuestion) uint64 {
	q.Choices = append([]string(nil), q.Choices...)
	p.mu.Lock()
	p.seq++
	p.q, p.open, p.revealed = q, true, false
	clear(p.answers)
	p.moved(true)
	seq := p.seq
	p.share()
	return seq
}

// share unlocks p.mu and hands the question to the link.
func (p *Poll) share() {
	sh, l := p.shared(), p.link
	p.mu.Unlock()
	if l != nil {
		l.Question(sh)
	}
}

// shared is the question as it travels; p.mu is held.
func (p *Poll) shared() PollShared {
	q := p.q
	q.Choices = append([]string(nil), q.Choices...)
	return PollShared{Seq: p.seq, Open: p.open, Revealed: p.revealed, Question: q, Recall: p.recall}
}

// Receive takes the question as another process's presenter left it:
// asked, revealed or dropped. A question older than the one here is
// dropped (the link may deliver the latest state after a newer message).
// A question Check refuses is never put up: its error comes back.
func (p *Poll) Receive(q PollShared) error {
	if err := q.Check(); err != nil {
		return err
	}
	q = q.clean()
	p.mu.Lock()
	defer p.mu.Unlock()
	if q.Seq < p.seq || q.Seq == p.seq && reflect.DeepEqual(p.shared(), q) {
		return nil
	}
	if q.Seq != p.seq || !q.Open {
		clear(p.answers)
	}
	q.Question.Choices = append([]string(nil), q.Question.Choices...)
	p.seq, p.q, p.open, p.revealed = q.Seq, q.Question, q.Open, q.Revealed
	p.recall = max(p.recall, q.Recall)
	p.moved(true)
	return nil
}

// Shared is the question as it travels between processes.
func (p *Poll) Shared() PollShared {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shared()
}

// SetRoom takes question seq's tally over every process (answers per
// choice) and how many followers of the other processes have not
// answered; State reports them instead of this process's own counts.
func (p *Poll) SetRoom(seq uint64, tally []int, others int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq < p.seq { // a late tally of a question gone by
		return
	}
	r := roomTally{seq: seq, tally: append([]int(nil), tally...), others: others}
	if slices.Equal(r.tally, p.room.tally) && r.seq == p.room.seq && r.others == p.room.others {
		return
	}
	p.room = r
	p.moved(false)
}

// SetOnline says whether the link that carries the room's tally is
// connected (the stage tells its poll); the presenter's wait wakes, as
// what State counts changes.
func (p *Poll) SetOnline(ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.offline == !ok {
		return
	}
	p.offline = !ok
	p.moved(false)
}

// Waiting is how many followers of this process are present and have not
// answered the question up (the link tells the others).
func (p *Poll) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prune()
	return p.waiting()
}

// waiting counts this process's followers who have not answered; p.mu is
// held.
func (p *Poll) waiting() int {
	n := 0
	for s := range p.present {
		if _, ok := p.answers[s]; !ok {
			n++
		}
	}
	return n
}

// Answer records session's choice for question seq, replacing its earlier
// one. It refuses (false) a question that is not the one up, one already
// revealed, a choice out of range, and a session past the bound.
func (p *Poll) Answer(seq, session uint64, choice int) bool {
	p.mu.Lock()
	if !p.open || p.revealed || seq != p.seq || session == 0 || session > p.sessions || choice < 0 || choice >= len(p.q.Choices) {
		p.mu.Unlock()
		return false
	}
	if old, ok := p.answers[session]; ok && old == choice {
		p.mu.Unlock()
		return true
	} else if !ok && len(p.answers) >= maxPollSessions {
		p.mu.Unlock()
		return false
	}
	p.answers[session] = choice
	p.moved(false)
	l := p.link
	p.mu.Unlock()
	if l != nil {
		l.Answer(seq, session, choice)
	}
	return true
}

// Mine is session's answer to question seq, if it gave one.
func (p *Poll) Mine(seq, session uint64) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq != p.seq {
		return 0, false
	}
	c, ok := p.answers[session]
	return c, ok
}

// Reveal shows question seq's answer to the room; answers close.
func (p *Poll) Reveal(seq uint64) {
	p.mu.Lock()
	if seq != p.seq || !p.open || p.revealed {
		p.mu.Unlock()
		return
	}
	p.revealed = true
	p.moved(true)
	rec, keep := p.record(), p.keep
	p.share()
	if keep != nil {
		keep(rec)
	}
}

// Revealed is a reveal as it is kept (Poll.Keep): the question, the
// room's answers per choice, the right one and how many attendees were
// there to answer. It names no one: the poll counts only.
type Revealed struct {
	Time      time.Time `json:"time"`
	Seq       uint64    `json:"seq"`
	Incident  string    `json:"incident"`
	Key       string    `json:"question"`
	Text      string    `json:"text"`
	Choices   []string  `json:"choices"`
	Answer    int       `json:"answer"` // the right choice's index
	Counts    []int     `json:"counts"` // answers per choice
	Answered  int       `json:"answered"`
	Attendees int       `json:"attendees"` // answered, and present without answering
	// Offline says the counts are this process's only: the link to the
	// other processes was down at the reveal.
	Offline bool `json:"offline,omitempty"`
}

// Keep makes each reveal on this process (its presenter's) call fn, once,
// outside the poll's lock; fn must not block. Call it before the poll is
// used.
func (p *Poll) Keep(fn func(Revealed)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keep = fn
}

// record is the reveal as it is kept; p.mu is held.
func (p *Poll) record() Revealed {
	st := p.state()
	return Revealed{Time: p.now(), Seq: st.Seq, Incident: st.Question.Incident, Key: st.Question.Key, Text: st.Question.Text,
		Choices: st.Question.Choices, Answer: st.Question.Answer, Counts: st.Tally, Answered: st.Answered,
		Attendees: st.Answered + st.Waiting, Offline: st.Offline}
}

// Drop takes question seq down: followers' overlays close.
func (p *Poll) Drop(seq uint64) {
	p.mu.Lock()
	if seq != p.seq || !p.open {
		p.mu.Unlock()
		return
	}
	p.open = false
	clear(p.answers)
	p.moved(true)
	p.share()
}

// Here says a follower session is in the room (it counts in "not yet"
// until it answers); each of its waits on the poll says it again.
func (p *Poll) Here(session uint64) { p.HereUntil(session, nil) }

// HereUntil is Here for a session whose end closes left: checked under the
// poll's lock, so a wait that starts after the session's Gone cannot count
// it again.
func (p *Poll) HereUntil(session uint64, left <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-left:
		return
	default:
	}
	if session == 0 || session > p.sessions {
		return
	}
	if _, ok := p.present[session]; !ok && len(p.present) >= maxPollSessions {
		p.prune()
		if len(p.present) >= maxPollSessions {
			return
		}
	}
	p.present[session] = p.now()
}

// Gone says a session has ended: it leaves the count.
func (p *Poll) Gone(session uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.present[session]
	_, sat := p.seats[session]
	delete(p.present, session)
	delete(p.seats, session)
	if ok || sat {
		p.moved(false)
	}
}

// prune forgets the sessions that have not waited for presentFor.
func (p *Poll) prune() {
	cut := p.now().Add(-presentFor)
	for s, at := range p.present {
		if at.Before(cut) {
			delete(p.present, s)
			delete(p.seats, s)
		}
	}
}

// State reads the poll: the question (its answer hidden until revealed),
// the tally and how many followers present have not answered.
func (p *Poll) State() PollState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state()
}

// state is State; p.mu is held.
func (p *Poll) state() PollState {
	p.prune()
	st := PollState{Seq: p.seq, Open: p.open, Revealed: p.revealed, Question: p.q, Gen: p.gen, TallyGen: p.tally}
	st.Question.Choices = append([]string(nil), p.q.Choices...)
	if !p.revealed {
		st.Question.Answer = -1
	}
	st.Tally = make([]int, len(p.q.Choices))
	for _, c := range p.answers {
		st.Tally[c]++
	}
	st.Answered = len(p.answers)
	st.Waiting = p.waiting()
	st.Room, st.Recall = p.seated(), p.recall
	if p.link != nil && !p.offline {
		st.Room = st.Room.Add(p.others)
	}
	// Offline, the counts are this process's own, and say so. The room's
	// tally as last heard plus the answers given here since would look
	// more complete but can be wrong: a follower who answered before the
	// outage and changes its mind during it would count twice, an answer
	// sent just before it whose tally never came back not at all, and the
	// other processes' answers meanwhile are unknown either way. This
	// process's own counts are exact for what they claim.
	st.Offline = p.offline
	if p.link != nil && !p.offline && p.room.seq == p.seq && len(p.room.tally) == len(st.Tally) {
		// every process's answers, as the link last counted them
		copy(st.Tally, p.room.tally)
		st.Answered = 0
		for _, c := range st.Tally {
			st.Answered += c
		}
		st.Waiting += p.room.others
	}
	return st
}

// Changed is closed once the question has moved past generation gen.
func (p *Poll) Changed(gen uint64) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pending(p.gen != gen, p.wakeGen)
}

// TallyChanged is closed once the tally (or the question) has moved past
// generation gen.
func (p *Poll) TallyChanged(gen uint64) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pending(p.tally != gen, p.wakeTally)
}

func pending(moved bool, wake chan struct{}) <-chan struct{} {
	if moved {
		c := make(chan struct{})
		close(c)
		return c
	}
	return wake
}

// Seat says where session is: on its own copy (own) or following, as of
// a key it just took (key) or not. A change of place wakes the presenter's
// room view; a key only keeps the session from idling. Sessions past the
// bound are not seated.
func (p *Poll) Seat(session uint64, own, key bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if session == 0 || session > p.sessions {
		return
	}
	old, ok := p.seats[session]
	if !ok && len(p.seats) >= maxPollSessions {
		return
	}
	st := seat{own: own, active: old.active}
	if key || !ok {
		st.active = p.now()
	}
	p.seats[session] = st
	if !ok || old.own != own {
		p.moved(false)
	}
}

// seated counts this process's seats of sessions present; p.mu is held.
func (p *Poll) seated() RoomCounts {
	var c RoomCounts
	idle := p.now().Add(-IdleAfter)
	for s, st := range p.seats {
		if _, ok := p.present[s]; !ok {
			continue
		}
		switch {
		case !st.own:
			c.Following++
		case st.active.Before(idle):
			c.Idle++
		default:
			c.Own++
		}
	}
	return c
}

// Seats is this process's room by state, which its beats tell the others.
func (p *Poll) Seats() RoomCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prune()
	return p.seated()
}

// SetOthers takes the other processes' room by state (the link sums
// their beats); State adds it to this process's.
func (p *Poll) SetOthers(c RoomCounts) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c == p.others {
		return
	}
	p.others = c
	p.moved(false)
}

// Recall calls every session on its own copy back to the stage: they
// follow again, their own branches kept. It travels with the question.
func (p *Poll) Recall() {
	p.mu.Lock()
	p.recall++
	p.moved(true)
	p.share()
}
