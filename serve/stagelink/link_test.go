//go:build unix

package stagelink

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/redis/go-redis/v9"

	"inflight/stage"
)

// proc is one serve process as far as the stage goes: a stage and its
// link.
type proc struct {
	stage *stage.Stage
	link  *Link
	log   *syncBuf
}

type syncBuf struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{} // closed when more is written (grown)
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grew != nil {
		close(s.grew)
		s.grew = nil
	}
	return s.b.Write(p)
}

// grown is closed when more is written after the call.
func (s *syncBuf) grown() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grew == nil {
		s.grew = make(chan struct{})
	}
	return s.grew
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// twoProcs is a private Redis and two processes linked through it, both
// online.
func twoProcs(t testing.TB) (*redisProc, *proc, *proc) {
	t.Helper()
	r := startRedis(t, nil, "")
	a, b := openProc(t, redisURL(r), Options{}), openProc(t, redisURL(r), Options{})
	waitFor(t, "both online", func() bool { return a.online() && b.online() })
	return r, a, b
}

func openProc(t testing.TB, raw string, opt Options) *proc {
	t.Helper()
	u, err := ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{stage: stage.New(), log: &syncBuf{}}
	opt.Logger = log.New(p.log)
	watchStage(t, p.stage)
	watch(t, p.log.grown)
	p.link = Open(u, p.stage, opt)
	t.Cleanup(func() { p.link.Close() })
	return p
}

func (p *proc) online() bool {
	st, _ := p.stage.State()
	return !st.Offline
}

func (p *proc) code() string {
	st, _ := p.stage.State()
	return st.Code
}

// hung is how long waitFor waits before it calls the test hung: far
// longer than anything takes on a loaded machine, so that it fails a
// test that waits for what never comes and no other.
const hung = 2 * time.Minute

// watched holds, per test, what its waitFor wakes on: whatever moves
// when the stage, its poll or a log does.
var watched sync.Map // testing.TB → *wakers

type wakers struct {
	mu sync.Mutex
	fs []func() <-chan struct{}
}

// watch adds to what t's waitFor wakes on: each f returns a channel
// closed at the next change after the call.
func watch(t testing.TB, fs ...func() <-chan struct{}) {
	w, loaded := watched.LoadOrStore(t, &wakers{})
	if !loaded {
		t.Cleanup(func() { watched.Delete(t) })
	}
	ws := w.(*wakers)
	ws.mu.Lock()
	ws.fs = append(ws.fs, fs...)
	ws.mu.Unlock()
}

// watchStage has t's waitFor wake when s's state, question or tally
// moves (the link sets online before it logs "stage connected", and a
// stage once published moves when it goes on or offline).
func watchStage(t testing.TB, s *stage.Stage) {
	watch(t,
		func() <-chan struct{} { _, g := s.State(); return s.Changed(g) },
		func() <-chan struct{} { return s.Poll().Changed(s.Poll().State().Gen) },
		func() <-chan struct{} { return s.Poll().TallyChanged(s.Poll().State().TallyGen) })
}

// waitFor waits until cond holds, trying it again each time something
// watch names moves; hung only bounds a hang. How long a link takes is
// no test's to say: the benchmarks measure it.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	hang := time.NewTimer(hung)
	defer hang.Stop()
	var fs []func() <-chan struct{}
	if w, ok := watched.Load(t); ok {
		ws := w.(*wakers)
		ws.mu.Lock()
		fs = slices.Clone(ws.fs)
		ws.mu.Unlock()
	}
	cases := make([]reflect.SelectCase, len(fs)+1)
	cases[0] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(hang.C)}
	for {
		for i, f := range fs { // before cond, so a change between the two wakes us
			cases[i+1] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(f())}
		}
		if cond() {
			return
		}
		if i, _, _ := reflect.Select(cases); i == 0 {
			if cond() {
				return
			}
			t.Fatalf("%s: not after %s", what, hung)
		}
	}
}

// keyUntil waits until cond, about the test's keys in r, holds, trying it
// again each time one of them changes or expires (Redis's keyspace
// notifications, which startRedis turns on); hung only bounds a hang.
func keyUntil(t testing.TB, r *redisProc, what string, cond func() bool) {
	t.Helper()
	rc := openRaw(t, r)
	defer rc.Close()
	sub := rc.PSubscribe(t.Context(), "__keyspace@0__:test:*")
	defer sub.Close()
	if _, err := sub.Receive(t.Context()); err != nil { // subscribed: what changes from here wakes us
		t.Fatalf("%s: %v", what, err)
	}
	changed := sub.Channel()
	hang := time.NewTimer(hung)
	defer hang.Stop()
	for !cond() {
		select {
		case <-changed:
		case <-hang.C:
			if cond() {
				return
			}
			t.Fatalf("%s: not after %s", what, hung)
		}
	}
}

// retry is waitFor for what nothing signals: a connection Redis has seen
// close (its client list). Each try is a round trip to Redis, which paces
// it; the count of tries only bounds a hang.
func retry(t testing.TB, what string, cond func() bool) {
	t.Helper()
	const tries = 100000
	for range tries {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not after %d tries", what, tries)
}

// sc is a share code a presenter could have on stage, told apart by
// label (its fork's name): the link refuses a state whose code does not
// parse.
func sc(label string) string { return "thursday@1/p1@19:40:00#1.00000000~2;n1=" + label }

func redisURL(r *redisProc) string { return "redis://" + r.addr() + "/0?key=test" }

func TestPublishReachesTheOtherProcess(t *testing.T) {
	t.Parallel()
	_, a, b := twoProcs(t)

	a.stage.Arrive()
	for i := range 5 {
		code := sc("code-" + string(rune('a'+i)))
		a.stage.Publish(stage.State{Code: code, Speed: 1})
		waitFor(t, "B shows A's publish", func() bool { return b.code() == code })
	}
	st, _ := b.stage.State()
	if st.Away || st.Speed != 1 {
		t.Errorf("B's state %+v: want A's, presenter here", st)
	}
	// A's own state never comes back to it as another's (it would wake
	// its followers for nothing). B sends a question after it heard A's
	// last state: once A hears the question it has heard all it sent
	// before, its own states' echoes included.
	_, gen := a.stage.State()
	q := b.stage.Poll().Ask(stage.PollQuestion{Incident: "thursday", Key: "5", Text: "which?", Choices: []string{"x", "y"}, Answer: 1})
	waitFor(t, "A hears B's question", func() bool { return a.stage.Poll().Shared().Seq == q })
	if _, g := a.stage.State(); g != gen {
		t.Errorf("A's generation moved %d → %d with nothing published", gen, g)
	}
}

func TestLateProcessCatchesUp(t *testing.T) {
	t.Parallel()
	r := startRedis(t, nil, "")
	a := openProc(t, redisURL(r), Options{})
	waitFor(t, "A online", a.online)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("late"), Branches: []string{sc("late")}})
	q := a.stage.Poll().Ask(stage.PollQuestion{Key: "q", Text: "why?", Choices: []string{"x", "y"}, Answer: 1})
	keyUntil(t, r, "A's state in Redis", func() bool {
		b := openRaw(t, r)
		defer b.Close()
		n, _ := b.Exists(t.Context(), "test:state", "test:question").Result()
		return n == 2
	})

	b := openProc(t, redisURL(r), Options{})
	waitFor(t, "B catches up from test:state", func() bool { return b.code() == sc("late") })
	if sh := b.stage.Poll().Shared(); sh.Seq != q || !sh.Open || sh.Question.Text != "why?" {
		t.Errorf("B's question %+v: want A's, seq %d", sh, q)
	}

	// A process whose presenter arrived before it connected, and has
	// published nothing, is no authority yet: it catches up too.
	u, _ := ParseURL(redisURL(r))
	c := stage.New()
	c.Arrive()
	watchStage(t, c)
	cl := Open(u, c, Options{Logger: log.New(&syncBuf{})})
	defer cl.Close()
	waitFor(t, "C catches up with its presenter here", func() bool {
		st, _ := c.State()
		return st.Code == sc("late")
	})
}

func TestAnswersCountedOverProcesses(t *testing.T) {
	t.Parallel()
	_, a, b := twoProcs(t)
	pa, pb := a.stage.Poll(), b.stage.Poll()

	a.stage.Arrive()
	seq := pa.Ask(stage.PollQuestion{Key: "q", Text: "which?", Choices: []string{"x", "y", "z"}, Answer: 2})
	waitFor(t, "B hears the question", func() bool { return pb.Shared().Seq == seq })

	sa := pa.Session()
	pa.Here(sa)
	sb1, sb2, sb3 := pb.Session(), pb.Session(), pb.Session()
	for _, s := range []uint64{sb1, sb2, sb3} {
		pb.Here(s)
	}
	if !pa.Answer(seq, sa, 0) || !pb.Answer(seq, sb1, 2) || !pb.Answer(seq, sb2, 2) {
		t.Fatal("an answer was refused")
	}
	pb.Answer(seq, sb2, 1) // changes its mind: counted once, as y
	waitFor(t, "A's tally counts B's answers and B's not-yet", func() bool {
		st := pa.State()
		return slices.Equal(st.Tally, []int{1, 1, 1}) && st.Answered == 3 && st.Waiting == 1
	})
	waitFor(t, "B's tally is the room's too", func() bool {
		return slices.Equal(pb.State().Tally, []int{1, 1, 1})
	})

	// An answer the script refuses (the poll never sends one) is logged
	// and dropped; the connection stays.
	a.link.Answer(seq, 99, 7)
	waitFor(t, "the refusal logged", func() bool { return strings.Contains(a.log.String(), "refused") })
	if !a.online() || strings.Count(a.log.String(), "stage connected") != 1 {
		t.Errorf("a refused answer cost the connection:\n%s", a.log.String())
	}
}

func TestRedisDownAndBack(t *testing.T) {
	t.Parallel()
	r, a, b := twoProcs(t)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("before")})
	pa, pb := a.stage.Poll(), b.stage.Poll()
	seq := pa.Ask(stage.PollQuestion{Key: "q", Text: "which?", Choices: []string{"x", "y"}, Answer: 0})
	waitFor(t, "B follows", func() bool { return b.code() == sc("before") && pb.Shared().Seq == seq })

	r.kill()
	waitFor(t, "both offline", func() bool { return !a.online() && !b.online() })

	// Each process keeps its stage: A's presenter moves on, B answers.
	a.stage.Publish(stage.State{Code: sc("during")})
	if a.code() != sc("during") {
		t.Fatalf("A's stage did not take its presenter's publish while offline")
	}
	sb := pb.Session()
	pb.Here(sb)
	if !pb.Answer(seq, sb, 1) {
		t.Fatal("B's answer refused while offline")
	}

	r.restart()
	waitFor(t, "both online again", func() bool { return a.online() && b.online() })
	waitFor(t, "B shows what A published during the outage", func() bool { return b.code() == sc("during") })
	waitFor(t, "B's answer from the outage counted on A", func() bool {
		return slices.Equal(pa.State().Tally, []int{0, 1})
	})
	for _, p := range []*proc{a, b} {
		logs := p.log.String()
		if strings.Count(logs, "stage connection lost") != 1 || strings.Count(logs, "stage connected") != 2 {
			t.Errorf("want one loss and two connections logged, got:\n%s", logs)
		}
	}
}

func TestKilledPresenterProcessLeavesTheStageAway(t *testing.T) {
	t.Parallel()
	_, a, b := twoProcs(t)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("c"), Playing: true, Speed: 2, Clock: &stage.Anchor{Wall: time.Now().UnixMilli()}})
	waitFor(t, "B follows", func() bool { return b.code() == sc("c") })

	a.link.Close() // no Leave: the process died
	waitFor(t, "B's stage away", func() bool {
		st, _ := b.stage.State()
		return st.Away
	})
	// away for the silence (TestPresenterSilence times it), not anything else
	if !strings.Contains(b.log.String(), "the presenter's process went silent") {
		t.Errorf("B's stage went away, but not for A's silence:\n%s", b.log.String())
	}
	if st, _ := b.stage.State(); st.Clock == nil || st.Clock.Until == 0 {
		t.Errorf("B's clocked stage did not stop where it was: %+v", st.Clock)
	}
}

func TestTLSWithPassword(t *testing.T) {
	t.Parallel()
	cert, key, pool := selfSigned(t, t.TempDir())
	const pass = "s3cret/pass"
	r := startRedis(t, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}, pass, cert, key)
	good := "rediss://:" + "s3cret%2Fpass" + "@" + r.addr() + "/0?key=test"
	a, b := openProc(t, good, Options{RootCAs: pool}), openProc(t, good, Options{RootCAs: pool})
	waitFor(t, "both online over TLS", func() bool { return a.online() && b.online() })
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("tls")})
	waitFor(t, "B follows over TLS", func() bool { return b.code() == sc("tls") })

	// The password from the environment (serve --stage without one in
	// the URL) connects as well.
	u, err := ParseURLEnv("rediss://"+r.addr()+"/0?key=test", func(k string) string {
		if k == PasswordEnv {
			return pass
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	c := openProc(t, u.Secret(), Options{RootCAs: pool})
	waitFor(t, "the password from the environment connects", c.online)
	waitFor(t, "C follows", func() bool { return c.code() == sc("tls") })

	// An untrusted certificate and a wrong password both stay offline,
	// and say so without the password.
	untrusted := openProc(t, good, Options{})
	wrong := openProc(t, "rediss://:nope@"+r.addr()+"/0?key=test", Options{RootCAs: pool})
	waitFor(t, "both say why they are not connected", func() bool {
		return strings.Contains(untrusted.log.String(), "stage connection lost") &&
			strings.Contains(wrong.log.String(), "stage connection lost")
	})
	if untrusted.online() || wrong.online() {
		t.Error("a link without the CA or with a wrong password is online")
	}
	for _, p := range []*proc{a, b, c, untrusted, wrong} {
		if l := p.log.String(); strings.Contains(l, "s3cret") || strings.Contains(l, "nope") {
			t.Errorf("the log shows a password:\n%s", l)
		}
	}
	if !strings.Contains(untrusted.log.String(), "certificate") {
		t.Errorf("the untrusted link's log does not say why:\n%s", untrusted.log.String())
	}
}

func TestRedisDownAtStart(t *testing.T) {
	t.Parallel()
	r := startRedis(t, nil, "")
	r.kill()
	a := openProc(t, redisURL(r), Options{})
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("alone")})
	watch(t, func() <-chan struct{} { return a.link.tried })
	waitFor(t, "several attempts, with backoff", func() bool { return a.link.tries.Load() >= 4 })
	if a.online() || a.code() != sc("alone") {
		t.Fatalf("with no Redis: online %v, code %q; want offline, serving its own stage", a.online(), a.code())
	}
	if n := strings.Count(a.log.String(), "stage connection lost"); n != 1 {
		t.Errorf("%d losses logged over several attempts, want 1:\n%s", n, a.log.String())
	}
	r.restart()
	waitFor(t, "online once Redis is up", a.online)
	b := openProc(t, redisURL(r), Options{})
	waitFor(t, "B catches up with what A published before Redis was up", func() bool { return b.code() == sc("alone") })
}

// Messages are bounded and versioned: a state too big is not sent (and
// says so), and what another process cannot read is dropped with a line
// in the log, leaving the stage as it was.
func TestMessagesBoundedAndVersioned(t *testing.T) {
	t.Parallel()
	r, a, b := twoProcs(t)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("small")})
	waitFor(t, "B follows", func() bool { return b.code() == sc("small") })

	a.stage.Publish(stage.State{Code: strings.Repeat("x", maxMessage)})
	waitFor(t, "A says the state is too big", func() bool { return strings.Contains(a.log.String(), "too big") })

	raw := openRaw(t, r)
	defer raw.Close()
	for _, m := range []string{
		strings.Repeat(" ", maxMessage+1),
		`{"v":2,"proc":"ff","kind":"state","rev":9,"state":{"code":"future","speed":0,"screen":{}}}`,
		`{"v":1,"proc":"ff","kind":"state","rev":9,"state":`,
	} {
		if err := raw.Publish(t.Context(), "test:events", m).Err(); err != nil {
			t.Fatal(err)
		}
	}
	a.stage.Publish(stage.State{Code: sc("after")})
	waitFor(t, "B follows what comes after", func() bool { return b.code() == sc("after") })
	if !strings.Contains(b.log.String(), "stage message refused") {
		t.Errorf("B did not log the refused messages:\n%s", b.log.String())
	}
}

// A Redis that hangs (stopped, not dead: no error, no answer) is noticed
// by the beat's deadline.
func TestRedisHangs(t *testing.T) {
	t.Parallel()
	r := startRedis(t, nil, "")
	a := openProc(t, redisURL(r), Options{})
	waitFor(t, "online", a.online)
	syscall.Kill(r.cmd.Process.Pid, syscall.SIGSTOP)
	defer syscall.Kill(r.cmd.Process.Pid, syscall.SIGCONT)
	waitFor(t, "offline with Redis stopped", func() bool { return !a.online() })
	syscall.Kill(r.cmd.Process.Pid, syscall.SIGCONT)
	waitFor(t, "online once Redis goes on", a.online)
}

// Two workshops on one Redis in different databases do not hear each
// other: Redis's channels are not per database.
func TestDatabasesApart(t *testing.T) {
	t.Parallel()
	r := startRedis(t, nil, "")
	a := openProc(t, "redis://"+r.addr()+"/1", Options{})
	b := openProc(t, "redis://"+r.addr()+"/2", Options{})
	c := openProc(t, "redis://"+r.addr()+"/1", Options{})
	d := openProc(t, "redis://"+r.addr()+"/2", Options{})
	waitFor(t, "online", func() bool { return a.online() && b.online() && c.online() && d.online() })
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("hall-1")})
	waitFor(t, "the same database follows", func() bool { return c.code() == sc("hall-1") })
	// database 2's own state, sent after: on a channel shared with
	// database 1 it would reach B after A's
	d.stage.Arrive()
	d.stage.Publish(stage.State{Code: sc("hall-2")})
	waitFor(t, "database 2 follows its own", func() bool { return b.code() == sc("hall-2") })
	if _, gen := b.stage.State(); gen != 1 {
		t.Errorf("database 2 heard database 1: %d states on B's stage, want its own only", gen)
	}
}

// A process that alone loses Redis for a moment (its connections killed)
// puts the stage's latest state on again when it is back, though it heard
// it before: the stage stopped its clock while offline, and must play on.
func TestReconnectPutsTheLatestStateOnAgain(t *testing.T) {
	t.Parallel()
	r, a, b := twoProcs(t)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("c"), Playing: true, Speed: 2, Clock: &stage.Anchor{Wall: time.Now().UnixMilli()}})
	waitFor(t, "B follows", func() bool { return b.code() == sc("c") })

	raw := openRaw(t, r)
	defer raw.Close()
	b.cut(t, raw)
	waitFor(t, "B offline", func() bool { return !b.online() })
	waitFor(t, "B online again", b.online)
	waitFor(t, "B's stage plays on", func() bool {
		st, _ := b.stage.State()
		return st.Clock != nil && st.Clock.Until == 0 && !st.Offline
	})
	if !a.online() || strings.Count(a.log.String(), "stage connected") != 1 {
		t.Errorf("A was disturbed:\n%s", a.log.String())
	}
}

// cut kills p's connections to Redis, as a network blip would: p
// reconnects.
func (p *proc) cut(t *testing.T, raw *redis.Client) {
	t.Helper()
	list, err := raw.ClientList(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, line := range strings.Split(list, "\n") {
		if !strings.Contains(line, " name=inflight-stage-"+p.link.proc+" ") {
			continue
		}
		id := strings.TrimPrefix(strings.Fields(line)[0], "id=")
		if err := raw.Do(t.Context(), "CLIENT", "KILL", "ID", id).Err(); err == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatalf("no connection of %s's in CLIENT LIST:\n%s", p.link.proc, list)
	}
}

// die ends p's link as a killed process would: nothing more reaches
// Redis, not even a farewell.
func (p *proc) die() {
	p.link.rdb.Close()
	p.link.Close()
}

// A presenter's process that dies without a word leaves its state in
// Redis saying the presenter is there. A process that starts late, and
// one that reconnects once the presenter is lost, must not put the
// presenter on as present, not even until the silence shows.
func TestNoPresenterFlickerAfterItsProcessDied(t *testing.T) {
	t.Parallel()
	r := startRedis(t, nil, "")
	raw := openRaw(t, r)
	defer raw.Close()
	a, b := openProc(t, redisURL(r), Options{}), openProc(t, redisURL(r), Options{})
	waitFor(t, "both online", func() bool { return a.online() && b.online() })
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("c"), Playing: true, Speed: 2, Clock: &stage.Anchor{Wall: time.Now().UnixMilli()}})
	waitFor(t, "B follows", func() bool { return b.code() == sc("c") })
	keyUntil(t, r, "A's presence in Redis", func() bool {
		return raw.Get(t.Context(), "test:presenter").Val() == a.link.proc
	})

	a.die()
	waitFor(t, "B's stage away", func() bool {
		st, _ := b.stage.State()
		return st.Away
	})
	keyUntil(t, r, "A's presence expired", func() bool {
		return raw.Exists(t.Context(), "test:presenter").Val() == 0
	})

	b.cut(t, raw)
	c := openProc(t, redisURL(r), Options{})
	// until B is back and C has caught up, each time either is looked at:
	// catching up is when the presenter would show present
	waitFor(t, "B back and C caught up", func() bool {
		for name, p := range map[string]*proc{"B": b, "C": c} {
			if st, gen := p.stage.State(); gen > 0 && !st.Away {
				t.Fatalf("%s shows the dead process's presenter present: %+v", name, st)
			}
		}
		return b.online() && strings.Count(b.log.String(), "stage connected") == 2 && c.online() && c.code() == sc("c")
	})
	st, _ := c.stage.State()
	if !c.online() || st.Code != sc("c") || st.Clock == nil || st.Clock.Until == 0 {
		t.Fatalf("C did not catch up with the stage, stopped: %+v %+v", st, st.Clock)
	}
}

// NAME:presenter follows the presenter: set while one is connected,
// gone as soon as it leaves; a process that catches up while the key is
// missing (Redis lost it, say) shows the presenter present again at its
// process's next beat.
func TestPresenceKeyFollowsThePresenter(t *testing.T) {
	t.Parallel()
	r := startRedis(t, nil, "")
	raw := openRaw(t, r)
	defer raw.Close()
	a := openProc(t, redisURL(r), Options{})
	waitFor(t, "A online", a.online)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("p")})
	present := func() bool { return raw.Get(t.Context(), "test:presenter").Val() == a.link.proc }
	keyUntil(t, r, "A's presence set with its state", present)
	if ttl := raw.PTTL(t.Context(), "test:presenter").Val(); ttl <= 0 || ttl > presentFor {
		t.Errorf("the presence key lives %s, want at most %s", ttl, presentFor)
	}
	a.stage.Leave()
	keyUntil(t, r, "A's presence gone on leaving", func() bool {
		return raw.Exists(t.Context(), "test:presenter").Val() == 0
	})
	a.stage.Arrive()
	keyUntil(t, r, "A's presence back", present)

	raw.Del(t.Context(), "test:presenter")
	b := openProc(t, redisURL(r), Options{})
	waitFor(t, "B shows the presenter present", func() bool {
		st, _ := b.stage.State()
		return st.Code == sc("p") && !st.Away
	})
}

// How long a state published on one process takes to be on the other's
// stage: the latency TestPublishReachesTheOtherProcess logs.
func BenchmarkPublishReachesTheOtherProcess(b *testing.B) {
	_, p, q := twoProcs(b)
	p.stage.Arrive()
	b.ResetTimer()
	for i := range b.N {
		code := sc(fmt.Sprintf("bench-%d", i))
		_, gen := q.stage.State()
		p.stage.Publish(stage.State{Code: code})
		for q.code() != code {
			<-q.stage.Changed(gen)
			_, gen = q.stage.State()
		}
	}
}
