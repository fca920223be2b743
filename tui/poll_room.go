package tui

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/stage"
)

// roomSeat is one session's place in the room under serve: the number the
// poll gave it, the poll as last read, and a follower's own answer. It is
// per session, so each follower's overlay shows its own choice.
type roomSeat struct {
	session uint64
	gen     uint64 // the generation last read (the tally's, for the presenter)
	state   stage.PollState
	mine    int    // this follower's answer to state.Seq, -1 none
	mineSeq uint64 // the question mine answers
	hidden  uint64 // the question this follower closed with esc
	left    *leaving
	view    bool   // the presenter's room view is open (r)
	recall  uint64 // the presenter's last call back to the stage, as read
	read    bool   // the poll has been read once: a recall before it is old news
	offline bool   // the presenter was last told the hall's link is down
}

// leaving is closed when the session ends (Release), so that its wait on
// the poll ends with it. Copies of the Model share it.
type leaving struct {
	once sync.Once
	c    chan struct{}
}

func (l *leaving) close() { l.once.Do(func() { close(l.c) }) }

// pollMsg says the poll may have moved (or that a wait timed out).
type pollMsg struct{ session uint64 }

// watchPoll is the command that waits on the room's poll: a follower for
// the question to change, the presenter for the tally too. The first wait
// returns at once, with a session number for this Model.
func (m Model) watchPoll() tea.Cmd {
	if m.stage == nil {
		return nil
	}
	p, presenter := m.stage.Poll(), m.presenter
	session, gen, left := m.exercises.room.session, m.exercises.room.gen, m.exercises.room.left
	return func() tea.Msg {
		if session == 0 || left == nil {
			return pollMsg{session: p.Session()}
		}
		ch := p.TallyChanged(gen)
		if !presenter {
			p.HereUntil(session, left.c)
			ch = p.Changed(gen)
		}
		t := time.NewTimer(stage.PollWait)
		defer t.Stop()
		select {
		case <-ch:
		case <-left.c:
			return nil // the session has ended
		case <-t.C:
		}
		return pollMsg{session: session}
	}
}

// leaveRoom says the session has ended: it no longer counts as waiting to
// answer, and its wait on the poll ends.
func (m Model) leaveRoom() {
	r := m.exercises.room
	if r.left != nil {
		r.left.close()
	}
	if m.stage != nil && r.session != 0 {
		m.stage.Poll().Gone(r.session)
	}
}

// onPoll rereads the poll and waits on it again.
func (m *Model) onPoll(msg pollMsg) tea.Cmd {
	if m.stage == nil {
		return nil
	}
	r := &m.exercises.room
	if r.session == 0 {
		r.session = msg.session
	}
	if r.left == nil {
		// made before the wait that selects on it, in the Model that
		// Release will get
		r.left = &leaving{c: make(chan struct{})}
	}
	old := r.state
	r.state = m.stage.Poll().State()
	if r.hidden == r.state.Seq && r.state.Revealed && !(old.Seq == r.state.Seq && old.Revealed) {
		r.hidden = 0 // the reveal reaches a follower who hid the question
	}
	r.gen = r.state.Gen
	if m.presenter {
		r.gen = r.state.TallyGen
	}
	var back tea.Cmd
	if r.read && r.state.Recall > r.recall && !m.presenter && !m.follower.on {
		back = m.callBack()
	}
	r.recall, r.read = max(r.recall, r.state.Recall), true
	if m.presenter && r.offline && !r.state.Offline {
		m.flash = "stage link back: followers on other servers see the stage again" // once; the next flash replaces it
	}
	r.offline = r.state.Offline
	m.noteSeat(false)
	return tea.Batch(back, m.watchPoll())
}

// noteSeat tells the poll where this session is, for the presenter's room
// view: following or on its own copy, and whether a key just came.
func (m *Model) noteSeat(key bool) {
	if r := m.exercises.room; m.stage != nil && !m.presenter && r.session != 0 {
		m.stage.Poll().Seat(r.session, !m.follower.on, key)
	}
}

// callBack answers the presenter's call back to the stage: a session on
// its own copy follows again from whatever screen it is on; its own
// branches stay, and b still lists them.
func (m *Model) callBack() tea.Cmd {
	m.jobs.cancel()
	m.state = stateMain
	m.help.ShowAll = false
	return m.follower.follow(m)
}

// roomViewKeys are the keys of the presenter's room view.
type roomViewKeys struct{ Recall, Close key.Binding }

func (k roomViewKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Recall, k.Close} }
func (k roomViewKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func roomViewKeyMap() roomViewKeys {
	return roomViewKeys{
		Recall: binding([]string{"F", "enter"}, "F", "call every attendee back to the stage"),
		Close:  binding([]string{"esc", "r", "q"}, "esc", "close"),
	}
}

// roomOpen is the presenter's room-view key on the main view.
var roomOpen = binding([]string{"r"}, "r", "the room")

// roomViewKey answers the presenter's keys for the room view: r on the
// main view opens it; while it is open, F calls everyone back and esc
// closes it, and other keys wait for it to close.
func (m *Model) roomViewKey(k tea.KeyMsg) (tea.Cmd, bool) {
	r := &m.exercises.room
	if !r.view {
		if m.state == stateMain && key.Matches(k, roomOpen) {
			r.view = true
			r.state = m.stage.Poll().State()
			return nil, true
		}
		return nil, false
	}
	km := roomViewKeyMap()
	switch {
	case key.Matches(k, km.Close):
		r.view = false
	case key.Matches(k, km.Recall):
		p := m.stage.Poll()
		p.Recall()
		r.state = p.State()
		m.flash = "called every attendee back to the stage"
	}
	return nil, true
}

// roomView is the presenter's view of the room, w×h: how many sessions
// follow the stage, are on their own copy (busy or idle), and have
// answered the question up.
func (m *Model) roomView(w, h int) string {
	st, rs := m.st, m.exercises.room.state
	c := rs.Room
	all := c.Following + c.Own + c.Idle
	out := []string{st.PaneTitle.Render("The room") + st.Dim.Render("  "+plural(all, "attendee", "attendees")+" connected"), ""}
	row := func(n int, what, why string) {
		out = append(out, fmt.Sprintf("  %5d  %-10s", n, what)+st.Dim.Render(" "+why))
	}
	row(c.Following, "following", "see the stage")
	row(c.Own, "own copy", "exploring on their own; a key within "+durWords(stage.IdleAfter))
	row(c.Idle, "idle", "on their own copy, no key for "+durWords(stage.IdleAfter))
	switch {
	case rs.Open && rs.Seq != 0:
		row(rs.Answered, "answered", fmt.Sprintf("question %s; %d not yet", rs.Question.Key, rs.Waiting))
	default:
		row(0, "answered", "no question is up (e, then a, asks one)")
	}
	out = append(out, "")
	if rs.Offline {
		out = append(out, hint(st, "the stage's connection is lost: these are this process's attendees only", w)...)
	}
	out = append(out, hint(st, "F calls every attendee on their own copy back to the stage; their branches are kept (b lists them) · esc closes", w)...)
	return window(out, 0, h)
}

// durWords is a short duration in words: "2 min".
func durWords(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return d.String()
}

// asked reports whether a follower's question overlay is up: a question
// is open that it has not closed.
func (r roomSeat) asked() bool {
	return r.session != 0 && r.state.Open && r.state.Seq != 0 && r.hidden != r.state.Seq
}

// hidden reports whether a follower has hidden a question still open
// (esc): the Question key shows it again.
func (r roomSeat) hiddenOpen() bool {
	return r.session != 0 && r.state.Open && r.state.Seq != 0 && r.hidden == r.state.Seq
}

// roomKeys are the keys of a follower's question overlay, for the footer:
// a choice answers (until the reveal), esc hides the question.
type roomKeys struct{ Answer, Hide key.Binding }

func (k roomKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Answer, k.Hide} }
func (k roomKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func roomKeyMap(st stage.PollState) roomKeys {
	k := roomKeys{
		Answer: binding([]string{"1", "2", "3", "4", "5", "a", "b", "c", "d", "e"}, choiceKeys(len(st.Question.Choices)), "answer"),
		Hide:   binding([]string{"esc", "q"}, "esc", "hide (A shows it again)"),
	}
	if st.Revealed {
		k.Answer.SetEnabled(false)
		k.Hide = binding([]string{"esc", "q"}, "esc", "close")
	}
	return k
}

// roomKey answers a follower's key while the question overlay is up: a
// choice (1–5 or a–e) answers, or changes the answer until the reveal;
// esc or q hides the overlay; every other key waits for it to close.
// While a hidden question is open, the Question key shows it again.
func (m *Model) roomKey(k tea.KeyMsg) (tea.Cmd, bool) {
	r := &m.exercises.room
	if m.stage != nil && m.presenter {
		return m.roomViewKey(k)
	}
	if m.stage == nil {
		return nil, false
	}
	show := m.keys.Question
	show.SetEnabled(true) // the key map's is enabled only for the footer
	if r.hiddenOpen() && key.Matches(k, show) {
		r.hidden = 0
		return nil, true
	}
	if !r.asked() {
		return nil, false
	}
	if key.Matches(k, roomKeyMap(r.state).Hide) {
		r.hidden = r.state.Seq
		return nil, true
	}
	if i, ok := choiceIndex(k, len(r.state.Question.Choices)); ok && !r.state.Revealed {
		p := m.stage.Poll()
		if p.Answer(r.state.Seq, r.session, i) {
			r.mine, r.mineSeq = i, r.state.Seq
		} else {
			m.flash = "the answers have closed"
		}
		r.state = p.State()
	}
	return nil, true
}

// roomOverlay is a follower's question overlay, w×h: the question, the
// choices with its own answer marked and, once revealed, the answer and
// the room's tally beside it.
func (m *Model) roomOverlay(w, h int) (string, bool) {
	r := m.exercises.room
	if m.stage != nil && m.presenter && r.view {
		return m.roomView(w, h), true
	}
	if m.stage == nil || m.presenter || !r.asked() {
		return "", false
	}
	st, q := m.st, r.state.Question
	mine := -1
	if r.mineSeq == r.state.Seq {
		mine = r.mine
	}
	out := []string{st.PaneTitle.Render("The presenter asks") + st.Dim.Render(fmt.Sprintf("  %s · question %s", q.Incident, q.Key)), ""}
	for _, s := range wrap(q.Text, max(w-6, 20)) {
		out = append(out, "  "+s)
	}
	out = append(out, "")
	var tally []int
	if r.state.Revealed {
		tally = r.state.Tally
	}
	out = append(out, choiceLines(st, q.Choices, mine, q.Answer, r.state.Revealed, tally, w)...)
	out = append(out, "")
	switch {
	case r.state.Revealed && mine < 0:
		out = append(out, "  "+st.Good.Render(fmt.Sprintf("The answer is %c.", 'a'+rune(q.Answer)))+st.Dim.Render(" You did not answer · esc closes"))
	case r.state.Revealed && mine == q.Answer:
		out = append(out, "  "+st.Good.Render(fmt.Sprintf("Right: the answer is %c.", 'a'+rune(q.Answer)))+st.Dim.Render(" · esc closes"))
	case r.state.Revealed:
		out = append(out, "  "+st.Bad.Render(fmt.Sprintf("You answered %c; the answer is %c.", 'a'+rune(mine), 'a'+rune(q.Answer)))+st.Dim.Render(" · esc closes"))
	case mine >= 0:
		out = append(out, hint(st, fmt.Sprintf("your answer: %c (another key changes it) · anonymous: the presenter sees counts only · esc hides", 'a'+rune(mine)), w)...)
	default:
		out = append(out, hint(st, "press "+choiceKeys(len(q.Choices))+" to answer · anonymous: the presenter sees counts only · esc hides", w)...)
	}
	if r.state.Revealed {
		// what the presenter sees once revealed: the room's tally and why
		n := 0
		if q.Answer >= 0 && q.Answer < len(r.state.Tally) {
			n = r.state.Tally[q.Answer]
		}
		out = append(out, hint(st, fmt.Sprintf("%d of %s answered %c.", n, plural(r.state.Answered, "attendee", "attendees"), 'a'+rune(q.Answer)), w)...)
		if e := explanation(q); e != "" {
			out = append(out, "")
			for _, s := range wrap(e, max(w-6, 20)) {
				out = append(out, "  "+s)
			}
		}
	}
	return window(out, 0, h), true
}

// roomFrame is a follower's question overlay over a frame drawn for it
// elsewhere (the stage's shared frame): the frame's header line, then the
// overlay and the question's keys, at the session's size.
func (m *Model) roomFrame(frame string) (string, bool) {
	if m.width < minWidth || m.height < minHeight {
		return "", false
	}
	beat := m.stageBeatLine() // the plan's beat stays in view (plan.go)
	h := m.height - headerHeight - 1 - len(beat)
	o, ok := m.roomOverlay(m.width, h)
	if !ok {
		return "", false
	}
	header, _, _ := strings.Cut(frame, "\n")
	return fitLine(header, m.width) + "\n" + fit(o, m.width, h) + "\n" + strings.Join(append(beat, m.ownFooter()), "\n"), true
}

// ownFooter is the session's own help bar (the shared frame's is every
// follower's alike), one line wide as the screen.
func (m *Model) ownFooter() string {
	v := m.mainView()
	v.help.ShowAll = false
	return fitLine(v.viewFooter(), m.width)
}

// hiddenFrame is the stage's frame for a follower who hid the open
// question: its help bar is the session's own, which says the key that
// shows the question again.
func (m *Model) hiddenFrame(frame string) (string, bool) {
	if m.stage == nil || m.presenter || !m.exercises.room.hiddenOpen() {
		return "", false
	}
	i := strings.LastIndexByte(frame, '\n')
	if i < 0 {
		return "", false
	}
	return frame[:i+1] + m.ownFooter(), true
}

// resumeQuestion gives a presenter who comes back the room's open
// question, as the one who asked it left it: on screen with its live
// tally, to reveal (enter) or drop (esc). A question the incident on stage
// does not have is dropped: no one could reveal it.
func (m *Model) resumeQuestion() {
	if m.stage == nil || !m.presenter {
		return
	}
	p := m.stage.Poll()
	rs := p.State()
	if !rs.Open || rs.Seq == 0 {
		return
	}
	i := -1
	if rs.Question.Incident == m.x.Spec.ID {
		i = slices.IndexFunc(m.x.Spec.Exercises, func(ex engine.Exercise) bool { return ex.Key == rs.Question.Key })
	}
	if i < 0 {
		p.Drop(rs.Seq)
		return
	}
	ex := m.x.Spec.Exercises[i]
	m.openExercises()
	m.exercises.row = i
	q := question{on: true, ex: ex, pick: -1, room: true, seq: rs.Seq, keys: questionKeyMap(len(ex.Choices), true)}
	if rs.Revealed {
		q.revealed = true
		q.keys.Choose = binding([]string{"enter", " "}, "enter", "play on to the proof")
		q.arrived = ex.Proof == nil || m.at >= ex.Proof.At
		q.keys.Choose.SetEnabled(!q.arrived) // already there: enter would do nothing
	}
	m.exercises.q, m.exercises.keys = q, q.keys
	m.exercises.room.state = rs
	if rs.Revealed {
		m.exercises.tried[ex.Key] = true
	}
	if ex.Changes() {
		e := ex
		m.exercise = &e
	}
}

// explanation is the lesson's explanation of question q's answer, from
// the bundled incident the question names ("" for one it does not have):
// the presenter's process sends the question, not its teaching.
func explanation(q stage.PollQuestion) string {
	spec, err := bundledSpec(q.Incident)
	if err != nil {
		return ""
	}
	for _, ex := range spec.Exercises {
		if ex.Key == q.Key {
			return ex.Explain
		}
	}
	return ""
}
