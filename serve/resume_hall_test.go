package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// TestReconnectAcrossHall: two `inflight serve --stage` processes and one
// redis-server (its user confined to the hall's keys, as docs/workshop.md
// suggests). An attendee forks on process 1, their client dies, and they
// reconnect to process 2 (where a load balancer may send them): the
// branch, the moment and the branch list come back, read from Redis.
// Then values forged in Redis for another key are each refused with a
// log line, the session starting fresh: another key's record, a value
// past the size cap, a record whose tree does not parse, a value that is
// not a string.
func TestReconnectAcrossHall(t *testing.T) {
	red, p1, p2, host := startHall(t)
	for _, p := range []*serveProc{p1, p2} {
		p.waitReady(t, func() bool { return strings.Contains(p.tail(50), "stage connected") })
	}
	title, start := thursday(t)

	alice := newKey(t)
	c := dialAs(t, p1.addr, "alice", alice, host)
	forkAndList(t, mustTerm(t, c, 120, 40))
	c.Close() // the client dies on process 1
	p1.waitReady(t, func() bool { return strings.Contains(p1.tail(50), "in=memory+redis") })

	tm := mustTerm(t, dialAs(t, p2.addr, "alice", alice, host), 120, 40)
	tm.mustSee(t, wait, "welcome back: your branch is restored", forkedHeader, "Branches", "you are here")
	if l := p2.tail(50); !strings.Contains(l, "from=redis") {
		t.Fatalf("process 2 did not restore from Redis:\n%s", l)
	}
	quit(t, tm) // alice's work goes back into Redis: a real record to forge from
	p2.waitReady(t, func() bool { return strings.Count(p2.tail(80), "in=memory+redis") == 1 })

	rdb := redis.NewClient(&redis.Options{Addr: loopback(red.port), Username: "inflight", Password: "hall-pass",
		Protocol: 2, DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
	t.Cleanup(func() { rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	record, err := rdb.Get(ctx, "hall:kept:"+keyID(alice.PublicKey(), "alice")).Result()
	if err != nil {
		t.Fatalf("alice's kept work is not in Redis: %v", err)
	}

	bob := newKey(t)
	bobID := keyID(bob.PublicKey(), "bob")
	key := "hall:kept:" + bobID
	rekeyed := strings.Replace(record, "key "+keyID(alice.PublicKey(), "alice"), "key "+bobID, 1)
	badTree := strings.Replace(rekeyed, "inflight branches 1\n", "inflight branches 1\nbranch 7 thursday@1\n", 1)
	for _, f := range []struct {
		name string
		set  func() error
		why  string
	}{
		{"another key's record", func() error { return rdb.Set(ctx, key, record, time.Minute).Err() }, "not this key's"},
		{"past the size cap", func() error {
			return rdb.Set(ctx, key, strings.Repeat(record, 1+(1<<20)/len(record)), time.Minute).Err()
		}, "a kept work has at most"},
		{"a tree that does not parse", func() error { return rdb.Set(ctx, key, badTree, time.Minute).Err() }, "the tree: line"},
		{"not a string", func() error { return rdb.RPush(ctx, key, rekeyed).Err() }, "WRONGTYPE"},
	} {
		if err := f.set(); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		before := strings.Count(p2.tail(400), "refused kept work")
		tm := mustTerm(t, dialAs(t, p2.addr, "bob", bob, host), 120, 40)
		settledFresh(t, tm, title, clock(start))
		quit(t, tm)
		l := p2.tail(400)
		if strings.Count(l, "refused kept work") != before+1 || !strings.Contains(l, f.why) {
			t.Fatalf("%s: not refused with a log line saying %q:\n%s", f.name, f.why, p2.tail(10))
		}
		if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 0 {
			t.Fatalf("%s: still in Redis after it was refused (%d, %v)", f.name, n, err)
		}
	}
	for _, l := range strings.Split(p2.tail(400), "\n") {
		if strings.Contains(l, "refused kept work") {
			t.Log(l)
		}
	}
	if !p1.running() || !p2.running() {
		t.Fatal("a process died of a forged value")
	}
}
