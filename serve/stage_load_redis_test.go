//go:build linux

package serve

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// TestStageLoadRedis measures the README's capacity of a room spread over
// processes: two child servers sharing one stage through a private
// redis-server, the room split between them, the presenter on the first.
// Over 10 s each it measures each server's CPU and Redis's load (commands,
// network bytes and CPU, from INFO deltas): one process linked and no one
// connected, the idle room, the room following the presenter at 60×, and a
// tenth of it exploring alone; then the presenter asks a question that
// every follower answers, and it measures Redis's load per answer. It
// fails when the followers on the second process do not see the
// presenter's play or question, or the tally misses an answer. It runs
// only when asked, with the room's size:
//
//	INFLIGHT_STAGE_LOAD=200 go test ./serve -run TestStageLoadRedis -v -timeout 20m
func TestStageLoadRedis(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("INFLIGHT_STAGE_LOAD"))
	if n <= 0 {
		t.Skip("set INFLIGHT_STAGE_LOAD=N to measure a room of N")
	}
	n -= n % 2 // half on each process
	const measure = 10 * time.Second
	addr := loopback(startRedis(t, 0).port)
	rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
	t.Cleanup(func() { rdb.Close() })
	const name = "load"
	stage := "redis://" + addr + "/0?key=" + name
	linked := func(procs int64) {
		t.Helper()
		waitUntil(t, func() bool {
			m, err := rdb.PubSubNumSub(context.Background(), name+":events").Result()
			return err == nil && m[name+":events"] == procs
		})
	}

	pk := newKey(t)
	keys := writeKeys(t, pk)
	c1 := startChild(t, keys, stage)
	linked(1)
	// Kept, here and below: a measurement's lead-in (the tail of the
	// setup out of the idle figures), not a wait for something to
	// happen; this opt-in test asserts no wall time.
	time.Sleep(2 * time.Second)
	one := sample(t, rdb, measure)
	t.Logf("1 process linked, no one connected: Redis %s", one.redis())

	c2 := startChild(t, keys, stage)
	linked(2)
	cs := []*child{c1, c2}
	title, _ := thursday(t)
	key := newKey(t)

	idle := append(room(t, c1.addr, "load", key, n/2, title), room(t, c2.addr, "load", key, n/2, title)...)
	time.Sleep(2 * time.Second)
	sIdle := sample(t, rdb, measure, cs...)
	t.Logf("%d idle attendees, %d on each process: %s", n, n/2, sIdle)
	leave(idle)

	pres := room(t, c1.addr, "pat", pk, 1, title)[0]
	fol1 := room(t, c1.addr, "follow", key, n/2, "FOLLOWING")
	fol2 := room(t, c2.addr, "follow", key, n/2, "FOLLOWING")
	fol := append(fol1, fol2...)
	pres.keys(t, "+", "+", " ")
	pres.mustSee(t, wait, "playing 60×")
	for _, tm := range fol { // on the second process too: the play came through Redis
		tm.mustSee(t, wait, "playing 60×")
	}
	sFollow := sample(t, rdb, measure, cs...)
	pres.mustSee(t, wait, "playing 60×") // still playing: the branch did not end while measured
	t.Logf("%d followers, %d on each process, the presenter on the first playing at 60×: %s", n, n/2, sFollow)
	state, err := rdb.StrLen(context.Background(), name+":state").Result()
	if err != nil {
		t.Fatal(err)
	}

	// The question: every follower, on either process, sees it and answers.
	pres.send("e")
	pres.mustSee(t, wait, "a: ask the room")
	pres.send("5")
	pres.mustSee(t, wait, "Asking the room")
	for _, tm := range fol {
		tm.mustSee(t, wait, "The presenter asks", "B2's call returns")
	}
	// the question's own messages are out of the way once the presenter
	// counts every follower as not yet answered
	pres.mustSee(t, wait, fmt.Sprintf("0 attendees answered · %d not yet", n))
	before, cost := redisStart(t, rdb)
	at := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, tm := range fol {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tm.send(string(rune('a' + i%3)))
			if err := tm.waitFor(wait, fmt.Sprintf("your answer: %c", 'a'+i%3)); err != nil {
				errs <- fmt.Errorf("follower %d answering: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	pres.mustSee(t, wait, fmt.Sprintf("%d attendees answered · 0 not yet", n))
	after, took := redisInfo(t, rdb), time.Since(at)
	after = after.minus(cost)
	if got := after.calls["evalsha"] - before.calls["evalsha"]; got != float64(n) {
		t.Errorf("%d answers ran the counting script %.0f times", n, got)
	}
	tally, err := rdb.Keys(context.Background(), name+":tally:*").Result()
	if err != nil || len(tally) != 1 {
		t.Fatalf("tally keys %q (%v), want one", tally, err)
	}
	counts, err := rdb.HGetAll(context.Background(), tally[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, v := range counts {
		k, _ := strconv.Atoi(v)
		sum += k
	}
	if sum != n {
		t.Errorf("Redis's tally %v counts %d answers, want %d", counts, sum, n)
	}
	// per answer, less what the beats and the clock sent meanwhile
	beats := sIdle.delta.scale(took.Seconds() / sIdle.wall.Seconds())
	per := after.minus(before).minus(beats).scale(1 / float64(n))
	// The presenter drops the question (else it stays open for whoever
	// comes next), and everyone leaves with ctrl+c: the question's
	// overlay and the exercises screen keep q.
	pres.mark()
	pres.send("\x1b")
	pres.mustSee(t, wait, "space play/pause") // the question and the exercises screen gone
	all := append(fol, pres)
	for _, tm := range all {
		tm.send("\x03")
	}
	for i, tm := range all {
		if _, ok := tm.ended(wait); !ok {
			t.Fatalf("session %d of %d did not end on ctrl+c", i, len(all))
		}
	}

	k := max(2, n/10)
	k -= k % 2
	alone := append(room(t, c1.addr, "load", key, k/2, title), room(t, c2.addr, "load", key, k/2, title)...)
	for _, tm := range alone {
		tm.keys(t, "+", "+", " ")
	}
	for _, tm := range alone {
		tm.mustSee(t, wait, "playing 60×")
	}
	sAlone := sample(t, rdb, measure, cs...)
	t.Logf("%d attendees each playing alone at 60×, %d on each process: %s", k, k/2, sAlone)
	leave(alone)

	t.Logf("summary, room of %d over 2 processes sharing the stage through Redis:", n)
	t.Logf("  1 process linked, nobody on it: Redis %s", one.redis())
	t.Logf("  idle:      %s", sIdle)
	t.Logf("  following: %s", sFollow)
	t.Logf("  alone (%d): %s", k, sAlone)
	t.Logf("  attendees per core: idle %.0f, following %.0f, exploring alone %.0f",
		float64(n)/max(sIdle.cores(), 0.001), float64(n)/max(sFollow.cores(), 0.001), float64(k)/max(sAlone.cores(), 0.001))
	t.Logf("  the stage's state in Redis: %d bytes", state)
	t.Logf("  per answer (%d answered in %s): %.1f commands (%.2f scripts), %.0f bytes in, %.0f bytes out, %.0f µs of Redis CPU",
		n, took.Round(time.Millisecond), per.commands, per.calls["evalsha"], per.in, per.out, per.cpu*1e6)
	// Following costs Redis what the idle room does: the play runs on the
	// stage's clock, so nothing is sent per frame.
	if f, i := sFollow.delta.commands/sFollow.wall.Seconds(), sIdle.delta.commands/sIdle.wall.Seconds(); f > i+5 {
		t.Errorf("following took %.1f Redis commands/s, the idle room %.1f: is the presenter sending frames?", f, i)
	}
}

// redisStats is what Redis's INFO counts, as totals or a difference.
type redisStats struct {
	commands, in, out, cpu float64 // commands processed, network bytes, CPU seconds
	calls                  map[string]float64
}

func (a redisStats) minus(b redisStats) redisStats {
	d := redisStats{a.commands - b.commands, a.in - b.in, a.out - b.out, a.cpu - b.cpu, map[string]float64{}}
	for k, v := range a.calls {
		d.calls[k] = v - b.calls[k]
	}
	return d
}

func (a redisStats) scale(f float64) redisStats {
	d := redisStats{a.commands * f, a.in * f, a.out * f, a.cpu * f, map[string]float64{}}
	for k, v := range a.calls {
		d.calls[k] = v * f
	}
	return d
}

func redisInfo(t *testing.T, rdb *redis.Client) redisStats {
	t.Helper()
	s, err := rdb.Info(context.Background(), "stats", "cpu", "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	r := redisStats{calls: map[string]float64{}}
	for _, line := range strings.Split(s, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f, _ := strconv.ParseFloat(v, 64)
		switch k {
		case "total_commands_processed":
			r.commands = f
		case "total_net_input_bytes":
			r.in = f
		case "total_net_output_bytes":
			r.out = f
		case "used_cpu_user", "used_cpu_sys":
			r.cpu += f
		}
		if cmd, ok := strings.CutPrefix(k, "cmdstat_"); ok {
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			r.calls[cmd], _ = strconv.ParseFloat(calls, 64)
		}
	}
	return r
}

// redisStart reads INFO twice: the second reading, and what one reading
// costs Redis (a command, its bytes in and its reply out), to take off a
// difference of two readings: the first one's reply is counted in it.
func redisStart(t *testing.T, rdb *redis.Client) (start, cost redisStats) {
	t.Helper()
	a := redisInfo(t, rdb)
	start = redisInfo(t, rdb)
	cost = start.minus(a)
	cost.calls = map[string]float64{} // the call counts hold no INFO of ours
	return start, cost
}

// loadSample is one window of measure: each child's CPU and Redis's.
type loadSample struct {
	wall    time.Duration
	childs  []float64 // cores
	delta   redisStats
	loadavg string
}

// sample measures the children's CPU and Redis's load over d.
func sample(t *testing.T, rdb *redis.Client, d time.Duration, cs ...*child) loadSample {
	t.Helper()
	c0 := make([]time.Duration, len(cs))
	for i, c := range cs {
		c0[i] = c.cpu(t)
	}
	r0, cost := redisStart(t, rdb)
	t0 := time.Now()
	time.Sleep(d) // the measurement's window, the point: no wait for anything
	s := loadSample{childs: make([]float64, len(cs))}
	r1 := redisInfo(t, rdb).minus(cost)
	for i, c := range cs {
		s.childs[i] = float64(c.cpu(t) - c0[i])
	}
	s.wall = time.Since(t0)
	for i := range s.childs {
		s.childs[i] /= float64(s.wall)
	}
	s.delta = r1.minus(r0)
	b, _ := os.ReadFile("/proc/loadavg")
	s.loadavg = strings.Join(strings.Fields(string(b))[:3], " ")
	return s
}

func (s loadSample) cores() float64 {
	sum := 0.0
	for _, c := range s.childs {
		sum += c
	}
	return sum
}

// redis is Redis's load per second over the sample.
func (s loadSample) redis() string {
	sec := s.wall.Seconds()
	return fmt.Sprintf("%.1f commands/s, %.0f B/s in, %.0f B/s out, %.4f cores (load average %s)",
		s.delta.commands/sec, s.delta.in/sec, s.delta.out/sec, s.delta.cpu/sec, s.loadavg)
}

func (s loadSample) String() string {
	var each []string
	for _, c := range s.childs {
		each = append(each, fmt.Sprintf("%.3f", c))
	}
	return fmt.Sprintf("servers %s cores; Redis %s", strings.Join(each, " + "), s.redis())
}
