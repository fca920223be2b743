package stagelink

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"inflight/stage"
)

// catchUp, on each connection: a process whose presenter is here is the
// stage's authority and sends its state and question again; another (or
// one whose presenter has published nothing yet) takes them from Redis.
// Either way it reads the current tally and sends every answer given here
// again (Redis may have restarted empty).
func (l *Link) catchUp(ctx context.Context) error {
	st, gen := l.stage.State()
	authority := l.stage.Presenting() && gen > 0
	if authority {
		sh := l.poll.Shared()
		l.mu.Lock()
		if l.out.state == nil {
			l.out.state = &st
		}
		if sh.Seq > 0 && l.out.question == nil {
			l.out.question = &sh
		}
		l.mu.Unlock()
	} else if err := l.readStage(ctx); err != nil {
		return err
	}
	if err := l.readTally(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	for s := range l.out.answers {
		l.out.unsent[s] = true
	}
	if l.presenter != "" && authority {
		l.heardAt = l.now() // the outage was ours, not its silence
	}
	l.mu.Unlock()
	l.poke()
	return nil
}

// readStage reads the question, whether a presenter is present and
// where, and the state, and puts them on here. The presenter's process
// is watched from when NAME:presenter was last set: a process that died
// just before is lost when its key expires, as the others find.
func (l *Link) readStage(ctx context.Context) error {
	var (
		q, st, who *redis.StringCmd
		ttl        *redis.DurationCmd
	)
	err := l.op(ctx, func(ctx context.Context) error {
		_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			q, st = p.Get(ctx, l.keys.question), p.Get(ctx, l.keys.state)
			who, ttl = p.Get(ctx, l.keys.presenter), p.PTTL(ctx, l.keys.presenter)
			return nil
		})
		return err
	})
	if err != nil && err != redis.Nil { // nil: nothing published yet
		return err
	}
	if b, err := q.Bytes(); err == nil {
		l.apply(b)
	}
	present := who.Val()
	left := ttl.Val() // negative: no key (or it expired in between)
	if left <= 0 || present == l.proc && !l.stage.Presenting() {
		present = "" // (this process knows its own presenter has gone)
	}
	l.mu.Lock()
	l.presenter = present
	if present == l.proc {
		l.presenter = "" // its own beats are not heard, and need not be
	}
	if present != "" {
		l.heardAt = l.now().Add(min(left-presentFor, 0))
	}
	l.mu.Unlock()
	if b, err := st.Bytes(); err == nil {
		if e, ok := l.decode(b); ok && e.Kind == "state" && e.State != nil && e.Proc != l.proc {
			l.catchUpState(e, present)
		}
	}
	return nil
}

// readTally reads the current question's tally.
func (l *Link) readTally(ctx context.Context) error {
	sh := l.poll.Shared()
	n := len(sh.Question.Choices)
	if sh.Seq == 0 || n == 0 {
		return nil
	}
	fields := make([]string, n)
	for i := range fields {
		fields[i] = strconv.Itoa(i)
	}
	var vals []any
	err := l.op(ctx, func(ctx context.Context) error {
		var err error
		vals, err = l.rdb.HMGet(ctx, l.keys.tally(sh.Seq), fields...).Result()
		return err
	})
	if err != nil {
		return err
	}
	counts := make([]int, n)
	for i, v := range vals {
		if s, ok := v.(string); ok {
			counts[i], _ = strconv.Atoi(s)
		}
	}
	if err := checkTally(counts); err != nil {
		l.warn("stage tally refused", "err", err)
		return nil
	}
	l.setTally(sh.Seq, counts)
	return nil
}

// send sends what waits in the mailbox. What fails to go stays there,
// unless something newer took its place.
func (l *Link) send(ctx context.Context) error {
	l.mu.Lock()
	st, q := l.out.state, l.out.question
	l.out.state, l.out.question = nil, nil
	seq := l.out.seq
	answers := make(map[uint64]int, len(l.out.unsent))
	for s := range l.out.unsent {
		answers[s] = l.out.answers[s]
	}
	clear(l.out.unsent)
	l.mu.Unlock()

	err := l.sendQuestion(ctx, q)
	if err == nil {
		err = l.sendState(ctx, st)
	}
	if err == nil {
		err = l.sendAnswers(ctx, seq, answers)
	}
	if err != nil {
		l.mu.Lock()
		if l.out.state == nil {
			l.out.state = st
		}
		if l.out.question == nil {
			l.out.question = q
		}
		if l.out.seq == seq {
			for s := range answers {
				l.out.unsent[s] = true
			}
		}
		l.mu.Unlock()
	}
	return err
}

func (l *Link) sendState(ctx context.Context, st *stage.State) error {
	if st == nil {
		return nil
	}
	l.mu.Lock()
	l.rev++
	e := envelope{V: version, Proc: l.proc, Kind: "state", Rev: l.rev, State: st}
	l.mu.Unlock()
	// The presence key goes with the state, so that a presenter's arriving
	// or leaving is in Redis as soon as the state that says so.
	return l.setAndPublish(ctx, l.keys.state, e, l.presence(ctx, l.stage.Presenting()))
}

func (l *Link) sendQuestion(ctx context.Context, q *stage.PollShared) error {
	if q == nil {
		return nil
	}
	return l.setAndPublish(ctx, l.keys.question, envelope{V: version, Proc: l.proc, Kind: "question", Question: q}, nil)
}

// setAndPublish keeps e as the latest of its kind and tells the others,
// after the commands of also (nil: none).
func (l *Link) setAndPublish(ctx context.Context, key string, e envelope, also func(redis.Pipeliner)) error {
	b, ok := l.encode(e)
	if !ok {
		return nil
	}
	return l.op(ctx, func(ctx context.Context) error {
		cmds, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			if also != nil {
				also(p)
			}
			p.Set(ctx, key, b, 0)
			p.Publish(ctx, l.keys.events, b)
			return nil
		})
		return l.broken(cmds, err)
	})
}

// presence is the commands that keep NAME:presenter: set to this process
// for presentFor while its presenter is connected, deleted once it is
// not (if no other process has taken it meanwhile). Nil when there is
// nothing to say.
func (l *Link) presence(ctx context.Context, presenting bool) func(redis.Pipeliner) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case presenting:
		l.holding = true // as soon as it may be set: a failed send releases it later
		return func(p redis.Pipeliner) { p.Set(ctx, l.keys.presenter, l.proc, presentFor) }
	case l.holding:
		l.holding = false // a release that fails leaves the key to expire
		return func(p redis.Pipeliner) { p.Eval(ctx, releaseSrc, []string{l.keys.presenter}, l.proc) }
	}
	return nil
}

// broken sorts a pipeline's failure: a connection's is returned (the
// session ends and connects again); a command Redis refused is logged and
// dropped, since sending it again would be refused again.
func (l *Link) broken(cmds []redis.Cmder, err error) error {
	if err == nil {
		return nil
	}
	for _, c := range cmds {
		var refused redis.Error
		if e := c.Err(); e != nil && (!errors.As(e, &refused) || redis.HasErrorPrefix(e, "NOSCRIPT")) {
			return e
		}
	}
	l.warn("stage: Redis refused a command", "err", err)
	return nil
}

// sendAnswers counts this process's answers to question seq in Redis. The
// script publishes each new tally, which every process (this one too)
// hears. Answers to a question no longer up are dropped.
func (l *Link) sendAnswers(ctx context.Context, seq uint64, answers map[uint64]int) error {
	if len(answers) == 0 {
		return nil
	}
	sh := l.poll.Shared()
	n := len(sh.Question.Choices)
	if sh.Seq != seq || n == 0 {
		return nil
	}
	ks := []string{l.keys.answers(seq), l.keys.tally(seq)}
	ttl := int(answersTTL / time.Second)
	return l.op(ctx, func(ctx context.Context) error {
		cmds, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for s, c := range answers {
				answerScript.EvalSha(ctx, p, ks, l.proc+":"+strconv.FormatUint(s, 10), c, n, ttl,
					l.keys.events, l.proc, strconv.FormatUint(seq, 10))
			}
			return nil
		})
		return l.broken(cmds, err)
	})
}

// sendBeat says this process is here, with its not-yet count and whether
// a presenter is connected, and keeps NAME:presenter with it.
func (l *Link) sendBeat(ctx context.Context) error {
	presenting := l.stage.Presenting()
	b, ok := l.encode(envelope{V: version, Proc: l.proc, Kind: "beat",
		Beat: &beatMsg{Waiting: l.poll.Waiting(), Presenting: presenting, Room: new(l.poll.Seats())}})
	if !ok {
		return nil
	}
	// A beat's deadline is its period: a Redis that hangs shows within two.
	ctx, cancel := context.WithTimeout(ctx, beatEvery)
	defer cancel()
	also := l.presence(ctx, presenting)
	cmds, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if also != nil {
			also(p)
		}
		p.Publish(ctx, l.keys.events, b)
		return nil
	})
	return l.broken(cmds, err)
}

// release, as the process closes, deletes NAME:presenter if it holds it:
// its presenter cannot be connected any more.
func (l *Link) release(ctx context.Context) error {
	l.mu.Lock()
	held := l.holding
	l.holding = false
	l.mu.Unlock()
	if !held {
		return nil
	}
	return l.rdb.Eval(ctx, releaseSrc, []string{l.keys.presenter}, l.proc).Err()
}
