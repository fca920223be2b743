package stagelink

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"inflight/stage"
)

// listen applies the others' messages until the connection fails. Every
// process hears its own beat each second, so a silence of silentFor means
// the connection is dead even if no error says so.
func (l *Link) listen(ctx context.Context, ps *redis.PubSub) error {
	for {
		m, err := ps.ReceiveTimeout(ctx, silentFor)
		if err != nil {
			return err
		}
		if m, ok := m.(*redis.Message); ok {
			l.apply([]byte(m.Payload))
		}
	}
}

// apply takes one message heard from another process (or the tally,
// whoever caused it).
func (l *Link) apply(b []byte) {
	e, ok := l.decode(b)
	if !ok {
		return
	}
	if e.Kind == "tally" {
		if e.Tally != nil {
			l.setTally(e.Tally.Seq, e.Tally.Counts)
		}
		return
	}
	if e.Proc == l.proc {
		return
	}
	now := l.now()
	l.mu.Lock()
	if e.Proc == l.presenter {
		l.heardAt = now
	}
	switch {
	case e.Kind == "beat" && e.Beat != nil:
		l.beats[e.Proc] = beat{at: now, waiting: e.Beat.Waiting, presenting: e.Beat.Presenting}
		if r := e.Beat.Room; r != nil {
			l.beats[e.Proc] = beat{at: now, waiting: e.Beat.Waiting, presenting: e.Beat.Presenting, room: *r}
		}
		l.followPresenter(e.Proc, e.Beat.Presenting, now)
		last := l.last
		l.mu.Unlock()
		// A presenter present again (its process was silent a while, or
		// the key said none when this one caught up) puts the state it
		// left present back on: its clock shows where the stage is now.
		if e.Beat.Presenting && last != nil && !last.Away {
			if st, _ := l.stage.State(); st.Away {
				l.stage.Receive(*last)
			}
		}
	case e.Kind == "state" && e.State != nil:
		if e.Proc == l.seen.proc && e.Rev <= l.seen.rev {
			l.mu.Unlock()
			return
		}
		l.seen, l.last = seenState{e.Proc, e.Rev}, e.State
		l.followPresenter(e.Proc, !e.State.Away, now)
		l.mu.Unlock()
		l.stage.Receive(*e.State)
	case e.Kind == "question" && e.Question != nil:
		l.mu.Unlock()
		l.poll.Receive(*e.Question)
		l.refreshRoom()
	default:
		l.mu.Unlock()
	}
}

// catchUpState applies the state read from NAME:state on connecting, with
// the process NAME:presenter names ("" none).
// The key read may hold the state last heard: it goes on again (the
// stage stopped its clock while offline) if the presenter is present; an
// older one does not. With no presenter present the stage is away at
// once, as Lost leaves it: the state's sender never said so if it died.
func (l *Link) catchUpState(e envelope, present string) {
	l.mu.Lock()
	if e.Proc == l.seen.proc && e.Rev < l.seen.rev {
		l.mu.Unlock()
		return
	}
	again := e.Proc == l.seen.proc && e.Rev == l.seen.rev
	l.seen, l.last = seenState{e.Proc, e.Rev}, e.State
	l.mu.Unlock()
	away := e.State.Away || present == ""
	switch {
	case !away:
		l.stage.Receive(*e.State)
	case again:
		l.stage.Lost() // it stays where it stopped
	default:
		l.stage.ReceiveLost(*e.State)
	}
}

// followPresenter notes which process holds the presenter, whose silence
// makes the stage Lost; l.mu is held.
func (l *Link) followPresenter(proc string, presenting bool, now time.Time) {
	switch {
	case presenting:
		l.presenter, l.heardAt = proc, now
	case proc == l.presenter:
		l.presenter = ""
	}
}

// warn logs a refused message, at most once every warnEvery: a flood of
// forged messages costs one line, which counts the ones it kept quiet.
func (l *Link) warn(msg string, kv ...any) {
	l.mu.Lock()
	quiet := !l.warnedAt.IsZero() && l.now().Sub(l.warnedAt) < warnEvery
	n := l.unwarned
	if quiet {
		l.unwarned++
	} else {
		l.warnedAt, l.unwarned = l.now(), 0
	}
	l.mu.Unlock()
	if !quiet {
		if n > 0 {
			kv = append(kv, "refused_quietly_before", n)
		}
		l.log.Warn(msg, kv...)
	}
}

func (l *Link) setTally(seq uint64, counts []int) {
	l.mu.Lock()
	if seq >= l.tallySeq {
		l.tallySeq, l.tally = seq, counts
	}
	l.mu.Unlock()
	l.refreshRoom()
}

// refreshRoom gives the poll the room's tally for its question and the
// not-yet count of the other processes that beat lately.
func (l *Link) refreshRoom() {
	sh := l.poll.Shared()
	n := len(sh.Question.Choices)
	now := l.now()
	l.mu.Lock()
	var room stage.RoomCounts
	for _, b := range l.beats {
		if now.Sub(b.at) <= silentFor {
			room = room.Add(b.room)
		}
	}
	if sh.Seq == 0 {
		l.mu.Unlock()
		l.poll.SetOthers(room)
		return
	}
	tally := make([]int, n)
	if l.tallySeq == sh.Seq && len(l.tally) == n {
		copy(tally, l.tally)
	}
	others := 0
	for p, b := range l.beats {
		switch age := now.Sub(b.at); {
		case age <= silentFor:
			others += b.waiting
		case age > time.Minute:
			delete(l.beats, p)
		}
	}
	l.mu.Unlock()
	l.poll.SetOthers(room)
	l.poll.SetRoom(sh.Seq, tally, others)
}

// watch, every watchEvery while connected: the presenter's process gone
// silent makes the stage Lost, and stale beats leave the room's count.
func (l *Link) watch() {
	l.mu.Lock()
	lost := l.presenter != "" && l.now().Sub(l.heardAt) > silentFor
	if lost {
		l.presenter = ""
	}
	l.mu.Unlock()
	if lost {
		l.log.Info("stage: the presenter's process went silent")
		l.stage.Lost()
	}
	l.refreshRoom()
}
