// Package stagelink carries a workshop's stage between `inflight serve`
// processes through Redis (serve --stage URL): the presenter's state and
// question go out on a channel and into keys that a late or reconnecting
// process reads, and the answers of every process are counted in Redis.
//
// A Redis that wants a password gets it in the URL
// (redis://:PASSWORD@HOST…) or, kept off the command line that `ps`
// shows, from the environment variable INFLIGHT_STAGE_PASSWORD when the
// URL has none (ParseURLEnv); both at once is refused.
//
// Layout for key NAME: NAME:state and NAME:question hold the latest state
// and question; NAME:presenter names the process a presenter is
// connected to, set with each of its beats to expire when they stop and
// deleted when the presenter leaves, so that a process catching up knows
// whether the state it reads has a presenter behind it; NAME:events
// carries state, question, tally and beat messages; NAME:answers:SEQ
// (PROC:SESSION → choice) and NAME:tally:SEQ (choice → count) are kept by
// one script, with a day's TTL. Redis's channels are not per database,
// so in a database other than 0 the channel is NAME:events:DB: two halls
// on /1 and /2 stay apart.
package stagelink

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"inflight/stage"
)

const (
	version    = 1       // the envelope's; a message of another is ignored
	maxMessage = 1 << 20 // bytes; a state this big is a bug, not a stage

	beatEvery  = time.Second
	silentFor  = 3 * time.Second // no beat for this long: that process is gone
	presentFor = silentFor       // NAME:presenter's life, renewed with each beat
	watchEvery = 250 * time.Millisecond
	clockEvery = 10 * time.Second
	opTimeout  = 2 * time.Second
	answersTTL = 24 * time.Hour
	warnEvery  = 10 * time.Second

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
// implements stage.Link: Publish, Question and Answer only leave the
// latest in a mailbox, and one goroutine talks to Redis, connecting again
// with backoff whenever Redis goes away.
type Link struct {
	url   URL
	stage *stage.Stage
	poll  *stage.Poll
	rdb   *redis.Client
	log   *log.Logger
	proc  string // this process, random: its own messages come back to it
	keys  keys

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{} // the mailbox has something; capacity 1
	close  sync.Once
	tries  atomic.Int64  // connections tried
	tried  chan struct{} // a connection was tried; capacity 1: what waits on tries wakes

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
	last      *stage.State    // and that state, as its sender sent it
	holding   bool            // NAME:presenter may be this process's
	tallySeq  uint64
	tally     []int
	warnedAt  time.Time // bad messages are logged at most every warnEvery
	unwarned  int       // and those refused since, unlogged

	// now is the clock silences and beats' ages are read off (the
	// process's; a test's own). Connecting, its backoff and the beat's
	// tickers keep real time.
	now func() time.Time
}

// outbox is what waits to be sent: the latest state and question, and
// every answer given here to the current question (all of them are sent
// again after an outage: the script counts each session once).
type outbox struct {
	state    *stage.State
	question *stage.PollShared
	seq      uint64
	answers  map[uint64]int // session → choice
	unsent   map[uint64]bool
}

// beat is what another process said of itself in its last beat.
type beat struct {
	at         time.Time
	waiting    int
	presenting bool
	room       stage.RoomCounts // its sessions by state, for the presenter's room view
}

// seenState is the last state applied, by its sender and number: the
// key read on connecting may hold one already heard.
type seenState struct {
	proc string
	rev  uint64
}

// Open links stage s through the Redis at u and returns at once: it
// connects in the background, and the process serves whether or not
// Redis is there. Close stops it.
func Open(u URL, s *stage.Stage, opt Options) *Link {
	logger := opt.Logger
	if logger == nil {
		logger = log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "stage"})
	}
	var id [8]byte
	rand.Read(id[:])
	proc := hex.EncodeToString(id[:])
	// RESP2, no CLIENT SETINFO, no maintenance handshake: any Redis 5+
	// answers without a warning in its log.
	ro := &redis.Options{
		Addr: u.Addr(), Username: u.Username, Password: u.Password, DB: u.DB,
		Protocol: 2, DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		DialTimeout:              opTimeout, ReadTimeout: opTimeout, WriteTimeout: opTimeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1, // the link retries, with its own backoff
		DialerRetries:         1,
		PoolSize:              4,
		ClientName:            "inflight-stage-" + proc, // CLIENT LIST tells the processes apart
	}
	if u.TLS {
		ro.TLSConfig = &tls.Config{ServerName: u.Host, MinVersion: tls.VersionTLS12, RootCAs: opt.RootCAs}
	}
	l := &Link{
		url: u, stage: s, poll: s.Poll(), rdb: redis.NewClient(ro), log: logger,
		proc: proc,
		keys: newKeys(u.Key, u.DB),
		done: make(chan struct{}), wake: make(chan struct{}, 1), tried: make(chan struct{}, 1),
		out:   outbox{answers: map[uint64]int{}, unsent: map[uint64]bool{}},
		beats: map[string]beat{},
		now:   time.Now,
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	s.SetOnline(false) // until connected
	s.Link(l)
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

// Publish implements stage.Link.
func (l *Link) Publish(st stage.State) {
	l.mu.Lock()
	l.out.state = &st
	l.mu.Unlock()
	l.poke()
}

// Question implements stage.Link.
func (l *Link) Question(q stage.PollShared) {
	l.mu.Lock()
	l.out.question = &q
	l.mu.Unlock()
	l.poke()
}

// Answer implements stage.Link.
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
		l.tries.Add(1)
		select {
		case l.tried <- struct{}{}:
		default:
		}
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
			if err := l.send(fctx); err != nil {
				return true, err
			}
			return true, l.release(fctx)
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
