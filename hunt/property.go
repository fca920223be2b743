package hunt

import (
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
)

// facts are what the property's message checks read: each message's
// effects, deliveries and whether it sits in the dead letter queue. They
// are kept per line as it plays (a fork copies its parent's), only when
// the property has a message check. On a branch (j set) they also keep
// when each message's check last broke, for judging from the fork on.
type facts struct {
	effects    []int32
	deliveries []int32
	dlq        []bool

	j *judge
	// per message and check (index m*len(j.checks)+c): whether the check
	// holds on the message now, and the event that last broke it (-1:
	// it never held, so nothing broke it)
	pass []bool
	brk  []int64
	last []int64 // per message: its latest event (its fate so far)
}

func (f *facts) grow(m int32) {
	for int(m) >= len(f.effects) {
		f.effects = append(f.effects, 0)
		f.deliveries = append(f.deliveries, 0)
		f.dlq = append(f.dlq, false)
		if f.j != nil {
			n := len(f.effects) - 1
			f.last = append(f.last, -1)
			for c := range f.j.checks {
				f.pass = append(f.pass, f.j.checks[c].holds(f, n))
				f.brk = append(f.brk, -1)
			}
		}
	}
}

func (f *facts) clone() *facts {
	g := &facts{
		effects:    append([]int32(nil), f.effects...),
		deliveries: append([]int32(nil), f.deliveries...),
		dlq:        append([]bool(nil), f.dlq...),
		j:          f.j,
	}
	if f.j != nil {
		g.pass = append([]bool(nil), f.pass...)
		g.brk = append([]int64(nil), f.brk...)
		g.last = append([]int64(nil), f.last...)
	}
	return g
}

// event reads one event as engine.Probe does.
func (f *facts) event(e *engine.Event) {
	if e.Kind == engine.EvRedrive {
		for i := range f.dlq {
			f.dlq[i] = false
		}
		if f.j != nil {
			for m := range f.effects {
				f.judged(m, e.Pos)
			}
		}
	}
	if e.Msg < 0 {
		return
	}
	switch e.Kind {
	case engine.EvPublish:
		f.grow(e.Msg)
	case engine.EvDeliver:
		f.grow(e.Msg)
		f.deliveries[e.Msg]++
	case engine.EvEffect:
		f.grow(e.Msg)
		f.effects[e.Msg]++
	case engine.EvDLQ:
		f.grow(e.Msg)
		f.dlq[e.Msg] = true
	}
	if f.j != nil && int(e.Msg) < len(f.effects) {
		f.last[e.Msg] = e.Pos
		f.judged(int(e.Msg), e.Pos)
	}
}

// judged rereads message m's checks after event pos: one that held and
// no longer does was broken by it.
func (f *facts) judged(m int, pos int64) {
	n := len(f.j.checks)
	for c := range f.j.checks {
		i := m*n + c
		p := f.j.checks[c].holds(f, m)
		if f.pass[i] && !p {
			f.brk[i] = pos
		}
		f.pass[i] = p
	}
}

// after says whether check c's break on message m (it fails now) counts
// on a branch: its offending event is at or after the fork's. That is
// the event that last broke it (the second email against "effects 1",
// the move to the DLQ against "dlq false"); for a check the message never
// held (no email at all against "effects >=1"), its latest event, its
// fate (the move to the DLQ, the ack that lost it).
func (f *facts) after(m, c int) bool {
	if f.j == nil {
		return true
	}
	i := m*len(f.j.checks) + c
	if f.brk[i] >= 0 {
		return f.brk[i] >= f.j.from
	}
	return f.last[m] >= f.j.from
}

// judge is how a hunt on a branch judges its property: only what happens
// from the branch's fork on (its moment: the fork's event), so that "does
// the fix hold?" is not answered by what came before the fix.
type judge struct {
	from   int64 // the fork's event: the first played after it is at from
	at     engine.Time
	sum    engine.Summary    // the line's summary at the fork
	flat   map[string]string // sum's, flattened (nil until the fork is reached)
	checks []msgCheck
	of     []int // p.Checks[i]'s index in checks, -1 for a summary check
}

// msgCheck is one of the property's message checks: over every message
// (msg -1) or one.
type msgCheck struct {
	msg  int32
	key  string
	want string
	memo [2][32]int8 // holds, for counts (and false/true) 0..31: 1 yes, 2 no; read only once made
}

func newMsgCheck(msg int32, key, want string) msgCheck {
	c := msgCheck{msg: msg, key: key, want: want}
	for n := range c.memo[0] {
		c.memo[0][n] = 2
		if engine.Matches(want, strconv.Itoa(n)) {
			c.memo[0][n] = 1
		}
	}
	for b, s := range []string{"false", "true"} {
		c.memo[1][b] = 2
		if engine.Matches(want, s) {
			c.memo[1][b] = 1
		}
	}
	return c
}

// holds says whether the check holds on message m's facts now (a check
// of another message always does).
func (c *msgCheck) holds(f *facts, m int) bool {
	if c.msg >= 0 && int(c.msg) != m {
		return true
	}
	n := int32(-1)
	switch c.key {
	case "effects":
		n = f.effects[m]
	case "deliveries":
		n = f.deliveries[m]
	case "dlq":
		b := 0
		if f.dlq[m] {
			b = 1
		}
		return c.memo[1][b] == 1
	}
	if n >= 0 && int(n) < len(c.memo[0]) {
		return c.memo[0][n] == 1
	}
	return engine.Matches(c.want, f.field(m, c.key))
}

// newJudge is the judge of p on a branch forked at event from (clock at).
func newJudge(p *engine.Property, from int64, at engine.Time) *judge {
	j := &judge{from: from, at: at}
	for _, c := range p.Every {
		j.checks = append(j.checks, newMsgCheck(-1, c.Key, c.Want))
	}
	for _, c := range p.Checks {
		j.of = append(j.of, -1)
		parts := strings.Split(c.Key, ".")
		if len(parts) != 3 || parts[0] != "message" {
			continue
		}
		m, err := strconv.Atoi(parts[1])
		if err != nil || m < 0 || m > 1<<30 {
			continue
		}
		j.of[len(j.of)-1] = len(j.checks)
		j.checks = append(j.checks, newMsgCheck(int32(m), parts[2], c.Want))
	}
	return j
}

// moment is the fork's moment as the hunt says it: "19:52:00 #178".
func (j *judge) moment() string { return fmt.Sprintf("%s #%d", j.at.Short(), j.from) }

// sinceKeys are the summary's counts of things gone wrong that a check
// on a branch counts from the fork on: each rises by an event the run
// makes (a duplicate effect, a loss, a move to the DLQ, a late ack
// refused). Other keys are levels or totals (held at the end, a
// balance, a family's figure the kernel cannot read by event) and are
// judged at the end, as the branch stands.
var sinceKeys = map[string]bool{"duplicate_effects": true, "lost": true, "dlq": true, "late_acks_refused": true}

// since is a summary check's value counted from the fork on, when the
// check bounds one of sinceKeys (zero keeps it): the count at the end
// less the count at the fork, in words with the whole run's. redriven
// says the dead letters were moved back after the fork: every one left
// came later.
func (j *judge) since(key, want, got string, redriven bool) (string, string, bool) {
	if !sinceKeys[key] || !engine.Matches(want, "0") {
		return "", "", false
	}
	was, ok := quick(&j.sum, key)
	if !ok {
		was = j.flat[key]
	}
	a, err1 := strconv.ParseFloat(got, 64)
	b, err2 := strconv.ParseFloat(was, 64)
	if err1 != nil || err2 != nil {
		return "", "", false
	}
	if key == "dlq" && redriven {
		b = 0
	}
	d := max(a-b, 0)
	v := strconv.FormatFloat(d, 'f', -1, 64)
	return v, fmt.Sprintf("%s since the fork (%s in all)", v, got), true
}

func (f *facts) field(m int, k string) string {
	switch k {
	case "effects":
		return strconv.Itoa(int(f.effects[m]))
	case "deliveries":
		return strconv.Itoa(int(f.deliveries[m]))
	case "dlq":
		return strconv.FormatBool(f.dlq[m])
	}
	return ""
}

// Broken is one check a run failed: the check as written, and what the
// run gave.
type Broken struct {
	Check string `json:"check"` // "duplicate_effects: 0", "every message: effects >=1"
	Got   string `json:"got"`   // "1", "order 14: effects 0"
	Msg   int32  `json:"message"`
}

// verdict checks property p against a run's summary and facts (nil when
// p has no message check), returning the checks it broke, in p's order.
// With a judge (a branch's hunt) only what went wrong from the fork on
// counts; redriven says the DLQ was redriven after the fork.
func verdict(w *engine.World, p *engine.Property, s *engine.Summary, f *facts, j *judge, redriven bool) []Broken {
	var out []Broken
	var flat map[string]string
	for i, c := range p.Checks {
		got, ok := quick(s, c.Key)
		msg := strings.HasPrefix(c.Key, "message.") && f != nil
		if !ok {
			if flat == nil {
				flat = s.Flat()
			}
			got = flat[c.Key]
			if msg {
				got = messageKey(f, c.Key)
			}
		}
		if engine.Matches(c.Want, got) {
			continue
		}
		if j != nil && msg {
			if k := j.of[i]; k >= 0 {
				if m := int(j.checks[k].msg); m < len(f.effects) && !f.after(m, k) {
					continue
				}
			}
		} else if j != nil {
			if v, words, ok := j.since(c.Key, c.Want, got, redriven); ok {
				if engine.Matches(c.Want, v) {
					continue
				}
				got = words
			}
		}
		out = append(out, Broken{Check: c.Key + ": " + c.Want, Got: got, Msg: -1})
	}
	for k, c := range p.Every {
		for m := range f.effects {
			if got := f.field(m, c.Key); !engine.Matches(c.Want, got) && f.after(m, k) {
				out = append(out, Broken{Check: "every message: " + c.Key + " " + c.Want,
					Got: fmt.Sprintf("%s: %s %s", w.MsgName(int32(m)), c.Key, got), Msg: int32(m)})
				break
			}
		}
	}
	return out
}

// quick reads the summary keys properties use most without flattening it.
func quick(s *engine.Summary, k string) (string, bool) {
	n := int64(-1)
	switch k {
	case "messages":
		n = s.Messages
	case "deliveries":
		n = s.Deliveries
	case "effects":
		n = s.Effects
	case "duplicate_effects":
		n = s.DuplicateEffects
	case "done":
		n = s.Done
	case "held_at_end":
		n = s.HeldAtEnd
	case "lost":
		n = s.Lost
	case "dlq":
		n = s.DLQ
	default:
		if fk, ok := strings.CutPrefix(k, "figures."); ok {
			if v, ok := s.Figures[fk]; ok {
				return fmt.Sprint(v), true
			}
		}
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// messageKey answers "message.N.FIELD" from the facts.
func messageKey(f *facts, key string) string {
	parts := strings.Split(key, ".")
	if len(parts) != 3 {
		return ""
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 0 || m >= len(f.effects) {
		return "unpublished"
	}
	return f.field(m, parts[2])
}

// needsFacts says whether p reads any message's facts.
func needsFacts(p *engine.Property) bool {
	if len(p.Every) > 0 {
		return true
	}
	for _, c := range p.Checks {
		if strings.HasPrefix(c.Key, "message.") {
			return true
		}
	}
	return false
}
