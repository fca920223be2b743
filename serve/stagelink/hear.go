package stagelink

import (
	"context"
	"encoding/json"
	"time"

	"github.com/redis/go-redis/v9"
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
			l.apply([]byte(m.Payload), false)
		}
	}
}

// apply takes one message of another process's (or the tally, whoever
// caused it); stored says it was read from a key rather than heard.
func (l *Link) apply(b []byte, stored bool) {
	if len(b) > maxMessage {
		l.warn("stage message refused: too big", "bytes", len(b), "max", maxMessage)
		return
	}
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		l.warn("stage message refused", "err", err)
		return
	}
	if e.V != version {
		l.warn("stage message refused: another version", "version", e.V, "want", version)
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
	now := time.Now()
	l.mu.Lock()
	if e.Proc == l.presenter && !stored {
		l.heardAt = now
	}
	switch {
	case e.Kind == "beat" && e.Beat != nil:
		l.beats[e.Proc] = beat{at: now, waiting: e.Beat.Waiting, presenting: e.Beat.Presenting}
		l.followPresenter(e.Proc, e.Beat.Presenting, now)
		l.mu.Unlock()
	case e.Kind == "state" && e.State != nil:
		// The key read on connecting may hold the state last heard: it goes
		// on again (the stage stopped its clock while offline); an older
		// one does not.
		if e.Proc == l.seen.proc && (e.Rev < l.seen.rev || e.Rev == l.seen.rev && !stored) {
			l.mu.Unlock()
			return
		}
		l.seen = seenState{e.Proc, e.Rev}
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

func (l *Link) warn(msg string, kv ...any) {
	l.mu.Lock()
	quiet := time.Since(l.warnedAt) < 10*time.Second
	if !quiet {
		l.warnedAt = time.Now()
	}
	l.mu.Unlock()
	if !quiet {
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
	if sh.Seq == 0 {
		return
	}
	now := time.Now()
	l.mu.Lock()
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
	l.poll.SetRoom(sh.Seq, tally, others)
}

// watch, every watchEvery while connected: the presenter's process gone
// silent makes the stage Lost, and stale beats leave the room's count.
func (l *Link) watch() {
	l.mu.Lock()
	lost := l.presenter != "" && time.Since(l.heardAt) > silentFor
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
