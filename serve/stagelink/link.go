// Package stagelink carries a workshop's stage between `inflight serve`
// processes through Redis (serve --stage URL): the presenter's state and
// question go out on a channel and into keys that a late or reconnecting
// process reads, and the answers of every process are counted in Redis.
//
// Layout for key NAME: NAME:state and NAME:question hold the latest state
// and question; NAME:events carries state, question, tally and beat
// messages; NAME:answers:SEQ (PROC:SESSION → choice) and NAME:tally:SEQ
// (choice → count) are kept by one script, with a day's TTL. Redis's
// channels are not per database, so in a database other than 0 the
// channel is NAME:events:DB: two halls on /1 and /2 stay apart.
package stagelink

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/charmbracelet/log"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"inflight/tui"
)

const (
	version    = 1       // the envelope's; a message of another is ignored
	maxMessage = 1 << 20 // bytes; a state this big is a bug, not a stage

	beatEvery  = time.Second
	silentFor  = 3 * time.Second // no beat for this long: that process is gone
	watchEvery = 250 * time.Millisecond
	clockEvery = 10 * time.Second
	opTimeout  = 2 * time.Second
	answersTTL = 24 * time.Hour

	minBackoff = 100 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// Options are Open's.
type Options struct {
	Logger *log.Logger // nil: stderr
	// RootCAs, for rediss://, are the CAs trusted instead of the system's
	// (a test's self-signed certificate). Verification is never off.
	RootCAs *x509.CertPool
}

// Link carries one process's stage to the others and theirs to it. It
// implements tui.StageLink: Publish, Question and Answer only leave the
// latest in a mailbox, and one goroutine talks to Redis, connecting again
// with backoff whenever Redis goes away.
type Link struct {
	url   URL
	stage *tui.Stage
	poll  *tui.Poll
	rdb   *redis.Client
	log   *log.Logger
	proc  string // this process, random: its own messages come back to it
	keys  keys

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{} // the mailbox has something; capacity 1
	close  sync.Once

	mu     sync.Mutex
	out    outbox
	rev    uint64 // this process's states sent
	online bool
	known  bool // online has been said once

	// what the others said (the goroutine listening writes, the one
	// sending reads)
	beats     map[string]beat // process → its last beat
	presenter string          // the process the presenter's state came from
	heardAt   time.Time       // when presenter last spoke
	seen      seenState       // the last state applied
	tallySeq  uint64
	tally     []int
	warnedAt  time.Time // bad messages are logged at most every few seconds
}

// keys are the Redis names under the URL's key NAME.
type keys struct{ name, state, question, events string }

func newKeys(name string, db int) keys {
	k := keys{name: name, state: name + ":state", question: name + ":question", events: name + ":events"}
	if db != 0 {
		k.events += ":" + strconv.Itoa(db)
	}
	return k
}

func (k keys) answers(seq uint64) string { return k.name + ":answers:" + strconv.FormatUint(seq, 10) }
func (k keys) tally(seq uint64) string   { return k.name + ":tally:" + strconv.FormatUint(seq, 10) }

// outbox is what waits to be sent: the latest state and question, and
// every answer given here to the current question (all of them are sent
// again after an outage: the script counts each session once).
type outbox struct {
	state    *tui.StageState
	question *tui.PollShared
	seq      uint64
	answers  map[uint64]int // session → choice
	unsent   map[uint64]bool
}

type beat struct {
	at         time.Time
	waiting    int
	presenting bool
}

type seenState struct {
	proc string
	rev  uint64
}

// envelope is every message on the channel and in the keys.
type envelope struct {
	V        int             `json:"v"`
	Proc     string          `json:"proc"`
	Kind     string          `json:"kind"` // state, question, tally, beat
	Rev      uint64          `json:"rev,omitempty"`
	State    *tui.StageState `json:"state,omitempty"`
	Question *tui.PollShared `json:"question,omitempty"`
	Tally    *tallyMsg       `json:"tally,omitempty"`
	Beat     *beatMsg        `json:"beat,omitempty"`
}

type tallyMsg struct {
	Seq    uint64 `json:"seq"`
	Counts []int  `json:"counts"`
}

type beatMsg struct {
	Waiting    int  `json:"waiting"`
	Presenting bool `json:"presenting,omitempty"`
}

// answerScript records one session's answer and publishes the new tally.
// It is the only writer of the two hashes, so the tally always matches
// the answers, and sending an answer twice changes nothing.
//
//go:embed answer.lua
var answerSrc string

var answerScript = redis.NewScript(answerSrc)

// Open links stage through the Redis at u and returns at once: it
// connects in the background, and the process serves whether or not
// Redis is there. Close stops it.
func Open(u URL, stage *tui.Stage, opt Options) *Link {
	logger := opt.Logger
	if logger == nil {
		logger = log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "stage"})
	}
	ro := &redis.Options{
		Addr: u.Addr(), Username: u.Username, Password: u.Password, DB: u.DB,
		Protocol: 2, DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		DialTimeout:              opTimeout, ReadTimeout: opTimeout, WriteTimeout: opTimeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1, // the link retries, with its own backoff
		DialerRetries:         1,
		PoolSize:              4,
	}
	if u.TLS {
		ro.TLSConfig = &tls.Config{ServerName: u.Host, MinVersion: tls.VersionTLS12, RootCAs: opt.RootCAs}
	}
	var id [8]byte
	rand.Read(id[:])
	l := &Link{
		url: u, stage: stage, poll: stage.Poll(), rdb: redis.NewClient(ro), log: logger,
		proc: hex.EncodeToString(id[:]),
		keys: newKeys(u.Key, u.DB),
		done: make(chan struct{}), wake: make(chan struct{}, 1),
		out:   outbox{answers: map[uint64]int{}, unsent: map[uint64]bool{}},
		beats: map[string]beat{},
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	stage.SetOnline(false) // until connected
	stage.Link(l)
	go l.run()
	return l
}

// Close stops the link, sending what waits first if it can (briefly).
func (l *Link) Close() error {
	l.close.Do(func() {
		l.cancel()
		<-l.done
		l.rdb.Close()
	})
	return nil
}

// Publish implements tui.StageLink.
func (l *Link) Publish(st tui.StageState) {
	l.mu.Lock()
	l.out.state = &st
	l.mu.Unlock()
	l.poke()
}

// Question implements tui.StageLink.
func (l *Link) Question(q tui.PollShared) {
	l.mu.Lock()
	l.out.question = &q
	l.mu.Unlock()
	l.poke()
}

// Answer implements tui.StageLink.
func (l *Link) Answer(seq, session uint64, choice int) {
	l.mu.Lock()
	if seq != l.out.seq {
		if seq < l.out.seq {
			l.mu.Unlock()
			return
		}
		l.out.seq = seq
		clear(l.out.answers)
		clear(l.out.unsent)
	}
	l.out.answers[session] = choice
	l.out.unsent[session] = true
	l.mu.Unlock()
	l.poke()
}

func (l *Link) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run connects, serves the connection until it fails, and connects again
// with backoff, until Close.
func (l *Link) run() {
	defer close(l.done)
	backoff := minBackoff
	for {
		start := time.Now()
		up, err := l.session()
		if l.ctx.Err() != nil {
			return
		}
		l.setOnline(false, err)
		if up && time.Since(start) > 10*maxBackoff {
			backoff = minBackoff // a connection that lasted; one that flaps backs off
		}
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// session is one connection: it subscribes, measures the clock, catches
// up, and then sends and listens until an error or Close. up says it got
// online.
func (l *Link) session() (up bool, err error) {
	ctx, cancel := context.WithCancel(l.ctx)
	ps := l.rdb.Subscribe(ctx, l.keys.events)
	listened := make(chan error, 1)
	listening := false
	defer func() {
		cancel()
		ps.Close()
		if listening {
			<-listened
		}
	}()
	if err := l.confirm(ctx, ps); err != nil {
		return false, err
	}
	if err := l.syncClock(ctx); err != nil {
		return false, err
	}
	if err := l.op(ctx, func(ctx context.Context) error { return answerScript.Load(ctx, l.rdb).Err() }); err != nil {
		return false, err
	}
	if err := l.catchUp(ctx); err != nil {
		return false, err
	}
	l.setOnline(true, nil)
	go func() { listened <- l.listen(ctx, ps) }()
	listening = true

	beats := time.NewTicker(beatEvery)
	defer beats.Stop()
	watch := time.NewTicker(watchEvery)
	defer watch.Stop()
	clock := time.NewTicker(clockEvery)
	defer clock.Stop()
	if err := l.sendBeat(ctx); err != nil {
		return true, err
	}
	for {
		select {
		case <-l.ctx.Done():
			// Closing: what waits (a presenter's leaving) goes out if it can.
			fctx, fcancel := context.WithTimeout(context.Background(), opTimeout)
			defer fcancel()
			return true, l.send(fctx)
		case err := <-listened:
			listening = false
			return true, err
		case <-l.wake:
			err = l.send(ctx)
		case <-beats.C:
			err = l.sendBeat(ctx)
		case <-clock.C:
			err = l.syncClock(ctx)
		case <-watch.C:
			l.watch()
		}
		if err != nil {
			return true, err
		}
	}
}

// op runs f with a deadline.
func (l *Link) op(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	return f(ctx)
}

// confirm waits for the subscription's reply: the connection works.
func (l *Link) confirm(ctx context.Context, ps *redis.PubSub) error {
	for {
		m, err := ps.ReceiveTimeout(ctx, opTimeout)
		if err != nil {
			return err
		}
		if _, ok := m.(*redis.Subscription); ok {
			return nil
		}
	}
}

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

func (l *Link) setOnline(ok bool, err error) {
	l.mu.Lock()
	changed := !l.known || l.online != ok
	l.online, l.known = ok, true
	l.mu.Unlock()
	l.stage.SetOnline(ok)
	switch {
	case !changed:
	case ok:
		l.log.Info("stage connected", "url", l.url.String())
	default:
		l.log.Warn("stage connection lost", "url", l.url.String(), "err", err, "retrying", true)
	}
}

// syncClock sets the stage's clock to Redis's, which every process shares:
// of three round trips, the shortest, taking Redis's TIME as read at its
// midpoint.
func (l *Link) syncClock(ctx context.Context) error {
	best, off := time.Duration(math.MaxInt64), time.Duration(0)
	for range 3 {
		var t0, t1, at time.Time
		err := l.op(ctx, func(ctx context.Context) error {
			var err error
			t0 = time.Now()
			at, err = l.rdb.Time(ctx).Result()
			t1 = time.Now()
			return err
		})
		if err != nil {
			return err
		}
		if rtt := t1.Sub(t0); rtt < best {
			best, off = rtt, clockOffset(t0, t1, at)
		}
	}
	l.stage.SetClockOffset(off)
	return nil
}

// clockOffset is how far ahead of this process's clock a clock read as
// at between sent and received is, taking the read at the midpoint.
func clockOffset(sent, received, at time.Time) time.Duration {
	return at.Sub(sent.Add(received.Sub(sent) / 2))
}

// catchUp, on each connection: a process whose presenter is here is the
// stage's authority and sends its state and question again; another takes
// them from Redis. Either way it reads the current tally and sends every
// answer given here again (Redis may have restarted empty).
func (l *Link) catchUp(ctx context.Context) error {
	if l.stage.Presenting() {
		st, gen := l.stage.State()
		sh := l.poll.Shared()
		l.mu.Lock()
		if gen > 0 && l.out.state == nil {
			l.out.state = &st
		}
		if sh.Seq > 0 && l.out.question == nil {
			l.out.question = &sh
		}
		l.mu.Unlock()
	} else {
		var st, q *redis.StringCmd
		err := l.op(ctx, func(ctx context.Context) error {
			_, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				st = p.Get(ctx, l.keys.state)
				q = p.Get(ctx, l.keys.question)
				return nil
			})
			return err
		})
		if err != nil && err != redis.Nil {
			return err
		}
		for _, c := range []*redis.StringCmd{q, st} {
			if b, err := c.Bytes(); err == nil {
				l.apply(b, true)
			}
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

// encode marshals e, refusing (and logging) one over maxMessage: the
// others would refuse it too.
func (l *Link) encode(e envelope) ([]byte, bool) {
	b, err := json.Marshal(e)
	if err == nil && len(b) <= maxMessage {
		return b, true
	}
	if err == nil {
		l.log.Error("stage message not sent: too big", "kind", e.Kind, "bytes", len(b), "max", maxMessage)
	} else {
		l.log.Error("stage message not sent", "kind", e.Kind, "err", err)
	}
	return nil, false
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
		if e.Proc == l.seen.proc && e.Rev <= l.seen.rev {
			l.mu.Unlock()
			return // the key, read after a newer message
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
