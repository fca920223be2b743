package hunt

import (
	"unsafe"

	"inflight/engine"
)

// memLook is how often (events, minus one) the base line's first pass
// looks at what it holds.
const memLook = 1<<12 - 1

// maxLines is the most branches a hunt plays at once, whatever the cores:
// each line in play may come to hold a whole world.
const maxLines = 8

// memory is a hunt's draw on its account: everything it keeps is charged
// from the state's known sizes (World.Footprint, its own slices), so the
// same hunt stops at the same point on every machine and under any
// GOMAXPROCS. The account's room, once the base line is known, is split:
// the lines in play first, then a quarter of the rest for the base
// line's checkpoints, a quarter for a parent's line's while its children
// play, half for the frontier kept for the next depth.
type memory struct {
	acct      *engine.Account
	lines     int   // lines that may play at once
	lineBytes int64 // a line's most: the base line's peak footprint
	base      share
	line      share
	front     share
	cur, next int64 // the frontier charged for the level being expanded, and the next
}

// share is a part of the room, and how much of it is held.
type share struct{ room, held int64 }

const (
	logEventBytes = int64(unsafe.Sizeof(logEvent{}))
	decBytes      = int64(unsafe.Sizeof(dec{})) + 6*8 // and its alternatives, typically
	nodeBytes     = int64(unsafe.Sizeof(node{}) + unsafe.Sizeof(outcome{}))
	forcedBytes   = int64(unsafe.Sizeof(Forced{})) + 96 // and its words, typically
)

func listBytes(logN, decN int) int64 { return int64(logN)*logEventBytes + int64(decN)*decBytes }

// walking checks the base line's first pass: its world and its lists
// so far must fit, or the hunt stops there.
func (m *memory) walking(w *engine.World, logN int, decs []dec) error {
	if m.acct == nil {
		return nil
	}
	fp := w.Footprint()
	m.lineBytes = max(m.lineBytes, fp)
	return m.acct.Check(fp + listBytes(logN, len(decs)))
}

// plan charges what the search holds throughout, once the base line is
// known: its lists, the line that walks it again, the lines in play and
// a parent's line being expanded; and shares out the rest. A hunt whose
// least (one line in play, some room for checkpoints) does not fit is
// refused here, before any branch is played.
func (m *memory) plan(baseLen int64, logN int, decs []dec) error {
	if m.acct == nil {
		m.lines = maxLines << 10
		return nil
	}
	L := max(m.lineBytes, 1)
	fixed := listBytes(logN, len(decs))
	if err := m.acct.Fits(0, fixed+4*L); err != nil {
		return err
	}
	room := m.acct.Room()
	if room < 0 {
		room = 1 << 62
	}
	m.lines = int(min(maxLines, max(1, (room-fixed)/4/L)))
	if err := m.acct.Charge(fixed + int64(m.lines+2)*L); err != nil {
		return err
	}
	rest := max(0, m.acct.Room())
	if m.acct.Room() < 0 {
		rest = 1 << 62
	}
	m.base.room, m.line.room = rest/4, rest/4
	m.front.room = rest - m.base.room - m.line.room
	return nil
}

// spacer decides where a line's checkpoints go: before a decision, when
// the checkpoints so far and those to come at the same spacing fit the
// share; else the line goes on and asks again further on. A branch
// forks from the latest checkpoint before its decision and plays up to
// it, so spacing changes how fast a hunt is, never what it finds.
type spacer struct {
	m      *memory
	sh     *share
	length int64 // the line's expected events
	gap    int64 // the least gap worth asking about again
	err    error
}

func (m *memory) spacing(sh *share, length int64) *spacer {
	return &spacer{m: m, sh: sh, length: length}
}

// take says whether to keep a checkpoint of w, the last one being at
// event last (-1: none yet, and one is always kept), and charges it.
func (sp *spacer) take(w *engine.World, last int64) bool {
	if sp.m.acct == nil {
		return true
	}
	g := w.Pos - last
	if last >= 0 && g < sp.gap {
		return false
	}
	c := w.Footprint()
	if last >= 0 {
		left := max(0, sp.length-w.Pos) / max(g, 1) // checkpoints to come at this spacing
		proj := c
		if left > 0 && c > (1<<62)/left {
			proj = 1 << 62
		} else {
			proj += c * left
		}
		if sp.sh.held+proj > sp.sh.room {
			sp.gap = g + g/4 + 1
			return false
		}
		sp.gap = g / 2
	}
	sp.extra(c)
	return true
}

// extra charges n more to the spacer's share: a checkpoint's facts.
func (sp *spacer) extra(n int64) {
	if sp.m.acct == nil {
		return
	}
	sp.sh.held += n
	if err := sp.m.acct.Charge(n); err != nil && sp.err == nil {
		sp.err = err
	}
}

// dropLine gives back a parent's line's checkpoints once its children
// have played.
func (m *memory) dropLine() {
	if m.acct == nil {
		return
	}
	m.acct.Release(m.line.held)
	m.line.held = 0
}

// nodes charges n nodes kept for the next depth (or the first).
func (m *memory) nodes(n int) error { return m.frontier(int64(n) * nodeBytes) }

// keep charges outcomes kept with their nodes: what they forced, and
// their lines' decisions while they fit in half the frontier's share (a
// quarter when the next depth is not the last: its own frontier needs
// room), the rest kept for what the level's later outcomes forced; past
// that the decisions are dropped, and found again by playing the branch
// once more when it is expanded (slower, the same children).
func (m *memory) keep(outs []outcome, last bool) error {
	if m.acct == nil {
		return nil
	}
	var b, d int64
	for i := range outs {
		b += int64(len(outs[i].forced)) * forcedBytes
		d += int64(len(outs[i].decs)) * decBytes
	}
	room := m.front.room / 2
	if !last {
		room /= 2
	}
	if m.front.held+b+d > room {
		for i := range outs {
			if outs[i].decs != nil {
				outs[i].decs, outs[i].dropped = nil, true
			}
		}
		d = 0
	}
	return m.frontier(b + d)
}

// free gives back b bytes of decisions kept and then dropped (see reach).
func (m *memory) free(b int64) {
	if m.acct == nil || b == 0 {
		return
	}
	m.next -= b
	m.front.held -= b
	m.acct.Release(b)
}

// frontier charges b bytes of the frontier; past its share the hunt
// stops.
func (m *memory) frontier(b int64) error {
	if m.acct == nil {
		return nil
	}
	m.next += b
	m.front.held += b
	if err := m.acct.Charge(b); err != nil {
		return err
	}
	if m.front.held > m.front.room {
		return m.stop()
	}
	return nil
}

// stop is the hunt's stop line when a share of its room is spent.
func (m *memory) stop() error {
	a := m.acct
	if a.Bytes <= 0 && a.Pool != nil {
		return &engine.BudgetError{What: "server memory", Need: a.Held(), Limit: a.Pool.Bytes, Raise: a.Pool.Flag, During: true, Of: a.Of}
	}
	return &engine.BudgetError{What: "memory", Need: a.Held(), Limit: a.Bytes, Raise: a.BytesFlag, During: true, Of: a.Of}
}

// levelDone gives back the level just expanded: the next one is kept.
func (m *memory) levelDone() {
	if m.acct == nil {
		return
	}
	m.acct.Release(m.cur)
	m.front.held -= m.cur
	m.cur, m.next = m.next, 0
}

// bytes is what a copy of f holds.
func (f *facts) bytes() int64 {
	return int64(len(f.effects))*9 + 72 + int64(len(f.pass))*9 + int64(len(f.last))*8
}
