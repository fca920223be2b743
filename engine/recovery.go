package engine

import "fmt"

// The recovery time a lesson prices: "a dead consumer's messages sit
// invisible for however long you set, which becomes your worst case
// recovery time". It is read from the events, after the fact: a crash (or
// a wedge) of the worker holding a message's current lease, then that
// message's next delivery. The trace carries nothing new; a headless run
// reads it as it goes, the hot path paying one bit test an event
// (World.scanWhile), and reports it only after a crash or a wedge
// (RecoveryWanted).

// Recovery is one message a crashed or wedged worker held: from the crash
// to its next delivery, or to its move into the DLQ, or still waiting.
type Recovery struct {
	Msg     int32
	Name    string // the message in the incident's words: "order 14"
	Worker  string // the holder that crashed or wedged
	Cause   string // "crashed" or "wedged"
	From    Time
	FromPos int64 // the crash's event
	End     RecoveryEnd
	To      Time  // when End is not RecoveryWaiting
	ToPos   int64 // the event that ended the wait
}

// RecoveryEnd is how a wait ended.
type RecoveryEnd uint8

const (
	RecoveryWaiting      RecoveryEnd = iota // not yet, at the moment read
	RecoveryDelivered                       // delivered again
	RecoveryDeadLettered                    // moved to the DLQ instead
)

// at is r as it stood after pos events (its crash behind them): a wait
// that ended later is still waiting then.
func (r Recovery) at(pos int64) Recovery {
	if r.End != RecoveryWaiting && r.ToPos >= pos {
		r.End = RecoveryWaiting
	}
	return r
}

// Wait is how long the message waited, or by now has waited.
func (r Recovery) Wait(now Time) Duration {
	if r.End == RecoveryWaiting {
		return max(0, now-r.From)
	}
	return r.To - r.From
}

// Words say the wait as the status line and a summary give it: "order 14
// invisible 60.0s after B2 crashed".
func (r Recovery) Words(now Time) string {
	s := fmt.Sprintf("%s invisible %.1fs after %s %s", r.Name, r.Wait(now).Seconds(), r.Worker, r.Cause)
	switch r.End {
	case RecoveryWaiting:
		s = fmt.Sprintf("%s invisible %.1fs so far since %s %s", r.Name, r.Wait(now).Seconds(), r.Worker, r.Cause)
	case RecoveryDeadLettered:
		s += ", then dead-lettered"
	}
	return s
}

// RecoveryScan is a sink that reads a branch's events in order, from its
// first, and keeps every recovery. A message waits on one crash at a time
// (its current lease's holder), so open holds at most the workers' count.
type RecoveryScan struct {
	list  []Recovery
	open  map[int32]int // message -> its waiting recovery in list
	wedge Kind          // the family's "wedge" kind, 0 none
	read  bool          // wedge looked up
	k     *walker       // where an explorer's scan stands (ScanRecovery)
}

// RecoveryWanted reports whether w's run so far has anything for a
// recovery scan to find: a crash, or a family's wedge.
func RecoveryWanted(w *World) bool {
	if w.Stats.Crashes > 0 {
		return true
	}
	if fs, ok := w.fam.(FamilySummary); ok {
		_, stuck, retried := fs.Running(w, w.Stats.LastEvent)
		return stuck+retried > 0
	}
	return false
}

// Event reads one event, on w just after it happened.
func (s *RecoveryScan) Event(w *World, e *Event, _ *Decision) {
	if !s.read {
		s.read = true
		for k := Kind(1); k < 64; k++ {
			if !k.Kernel() && w.fam != nil && w.KindName(k) == "wedge" {
				s.wedge = k
			}
		}
	}
	if w.rec == s {
		defer s.mask(w)
	}
	switch {
	case e.Kind == EvCrash || s.wedge != 0 && e.Kind == s.wedge:
		if e.Msg < 0 || e.Worker < 0 {
			return // an idle worker: it held nothing
		}
		m := w.Truth().MsgPtr(e.Msg)
		if m == nil || m.Status != StInFlight || m.Receives != e.Delivery {
			return // its lease had already ended: nothing waits on it
		}
		if _, ok := s.open[e.Msg]; ok {
			return
		}
		cause := "crashed"
		if e.Kind != EvCrash {
			cause = "wedged"
		}
		if s.open == nil {
			s.open = map[int32]int{}
		}
		s.open[e.Msg] = len(s.list)
		s.list = append(s.list, Recovery{Msg: e.Msg, Name: w.MsgName(e.Msg), Worker: w.Line(e, nil).Actor, Cause: cause, From: e.T, FromPos: e.Pos})
	case e.Kind == EvDeliver || e.Kind == EvDLQ:
		i, ok := s.open[e.Msg]
		if !ok {
			return
		}
		delete(s.open, e.Msg)
		r := &s.list[i]
		r.End, r.To, r.ToPos = RecoveryDelivered, e.T, e.Pos
		if e.Kind == EvDLQ {
			r.End = RecoveryDeadLettered
		}
	}
}

// Worst is the longest wait among the crashes behind the first pos events
// (a clock now then), the earliest of equal ones; ok is false when none
// left a message waiting.
func (s *RecoveryScan) Worst(pos int64, now Time) (Recovery, bool) {
	var best Recovery
	found := false
	for _, r := range s.list {
		if r.FromPos >= pos {
			break
		}
		r = r.at(pos)
		if !found || r.Wait(now) > best.Wait(now) {
			best, found = r, true
		}
	}
	return best, found
}

// Count is how many crashes behind the first pos events left a message
// waiting.
func (s *RecoveryScan) Count(pos int64) int {
	n := 0
	for _, r := range s.list {
		if r.FromPos < pos {
			n++
		}
	}
	return n
}

// RecoveryFigure is the worst recovery of a run, as its summary gives it.
type RecoveryFigure struct {
	Message   int32   `json:"message"`
	Worker    string  `json:"worker"`
	Cause     string  `json:"cause"` // crashed or wedged
	CrashedAt string  `json:"crashed_at"`
	Ended     string  `json:"ended"` // delivered, dead_lettered, or waiting (at the end)
	EndedAt   string  `json:"ended_at,omitempty"`
	WaitS     float64 `json:"wait_s"`
	Stranded  int     `json:"stranded"` // crashes or wedges that left a message waiting
	Words     string  `json:"words"`
}

// Figure is the worst recovery behind pos events at the clock now, nil
// when there is none.
func (s *RecoveryScan) Figure(pos int64, now Time) *RecoveryFigure {
	r, ok := s.Worst(pos, now)
	if !ok {
		return nil
	}
	f := &RecoveryFigure{Message: r.Msg, Worker: r.Worker, Cause: r.Cause, CrashedAt: r.From.Short(),
		WaitS: r.Wait(now).Seconds(), Stranded: s.Count(pos), Words: r.Words(now)}
	switch r.End {
	case RecoveryWaiting:
		f.Ended = "waiting"
	case RecoveryDelivered:
		f.Ended, f.EndedAt = "delivered", r.To.Short()
	case RecoveryDeadLettered:
		f.Ended, f.EndedAt = "dead_lettered", r.To.Short()
	}
	return f
}

// ScanRecovery reads branch b's events from s's last on, up to event to
// or at most limit events, and reports whether it reached to (or b's
// end). A scan is of one branch, read from its event 0.
func (x *Explorer) ScanRecovery(b *Branch, s *RecoveryScan, to, limit int64) bool {
	if s.k == nil || s.k.path[len(s.k.path)-1] != b {
		*s = RecoveryScan{}
		s.k = x.walkerAt(b, 0)
	}
	k := s.k
	for n := int64(0); k.w.Pos < to; n++ {
		if n >= limit {
			return false
		}
		if !k.step(s) {
			return true
		}
	}
	return true
}

// RecoveryOf is branch b's worst recovery to its end, nil when none: the
// compare screen's row. A branch with no crash or wedge is not read.
func (x *Explorer) RecoveryOf(b *Branch) *RecoveryFigure {
	x.extend(b, 1<<62)
	end := b.frontier
	if !RecoveryWanted(end) {
		return nil
	}
	var s RecoveryScan
	x.ScanRecovery(b, &s, end.Pos, 1<<62)
	return s.Figure(end.Pos, end.Stats.LastEvent)
}

// scanWhile has w hand s, as it goes, the events s reads: a headless run
// reads its recovery without a replay (Run). Until a message waits, only
// crashes and wedges reach s.
func (w *World) scanWhile(s *RecoveryScan) {
	s.Event(w, &Event{Kind: EvStart, Msg: -1, Worker: -1}, nil) // looks the wedge up; reads nothing else
	w.rec = s
	s.mask(w)
}

// mask sets the kinds w hands s: deliveries and DLQ moves only while a
// message waits.
func (s *RecoveryScan) mask(w *World) {
	m := uint64(1) << EvCrash
	if s.wedge != 0 && s.wedge < 64 {
		m |= 1 << s.wedge
	}
	if len(s.open) > 0 {
		m |= 1<<EvDeliver | 1<<EvDLQ
	}
	w.recMask = m
}
