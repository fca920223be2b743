package stagelink

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"inflight/tui"
)

// catchUp, on each connection: a process whose presenter is here is the
// stage's authority and sends its state and question again; another (or
// one whose presenter has published nothing yet) takes them from Redis.
// Either way it reads the current tally and sends every answer given here
// again (Redis may have restarted empty).
func (l *Link) catchUp(ctx context.Context) error {
	if st, gen := l.stage.State(); l.stage.Presenting() && gen > 0 {
		sh := l.poll.Shared()
		l.mu.Lock()
		if l.out.state == nil {
			l.out.state = &st
		}
		if sh.Seq > 0 && l.out.question == nil {
			l.out.question = &sh
		}
		l.mu.Unlock()
	} else {
		var gets []redis.Cmder
		err := l.op(ctx, func(ctx context.Context) error {
			var err error
			gets, err = l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.Get(ctx, l.keys.question)
				p.Get(ctx, l.keys.state)
				return nil
			})
			return err
		})
		for _, c := range gets {
			b, err := c.(*redis.StringCmd).Bytes()
			switch {
			case err == nil:
				l.apply(b, true)
			case err != redis.Nil: // nil: nothing published yet
				return err
			}
		}
		if err != nil && err != redis.Nil {
			return err
		}
	}
	if err := l.readTally(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	for s := range l.out.answers {
		l.out.unsent[s] = true
	}
	if l.presenter != "" {
		l.heardAt = time.Now() // the outage was ours, not its silence
	}
	l.mu.Unlock()
	l.poke()
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

func (l *Link) sendState(ctx context.Context, st *tui.StageState) error {
	if st == nil {
		return nil
	}
	l.mu.Lock()
	l.rev++
	e := envelope{V: version, Proc: l.proc, Kind: "state", Rev: l.rev, State: st}
	l.mu.Unlock()
	return l.setAndPublish(ctx, l.keys.state, e)
}

func (l *Link) sendQuestion(ctx context.Context, q *tui.PollShared) error {
	if q == nil {
		return nil
	}
	return l.setAndPublish(ctx, l.keys.question, envelope{V: version, Proc: l.proc, Kind: "question", Question: q})
}

// setAndPublish keeps e as the latest of its kind and tells the others.
func (l *Link) setAndPublish(ctx context.Context, key string, e envelope) error {
	b, ok := l.encode(e)
	if !ok {
		return nil
	}
	return l.op(ctx, func(ctx context.Context) error {
		cmds, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, b, 0)
			p.Publish(ctx, l.keys.events, b)
			return nil
		})
		return l.broken(cmds, err)
	})
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

func (l *Link) sendBeat(ctx context.Context) error {
	b, ok := l.encode(envelope{V: version, Proc: l.proc, Kind: "beat",
		Beat: &beatMsg{Waiting: l.poll.Waiting(), Presenting: l.stage.Presenting()}})
	if !ok {
		return nil
	}
	// A beat's deadline is its period: a Redis that hangs shows within two.
	ctx, cancel := context.WithTimeout(ctx, beatEvery)
	defer cancel()
	return l.rdb.Publish(ctx, l.keys.events, b).Err()
}
