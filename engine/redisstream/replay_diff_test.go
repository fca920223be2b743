package redisstream

import (
	"fmt"
	"strconv"
	"testing"
)

// TestReplayPendingAgainstRedis runs the cashback incident's
// replay_pending action, command by command, against the model and a
// real redis-server: a consumer reads a batch and acks one entry; the
// operator's XAUTOCLAIM with min-idle one hour claims nothing (the batch
// is fresh), with min-idle 0 it claims the rest, each count up by one;
// the consumer's XACK of an entry the operator now owns still takes it
// (an XACK is the group's), so the operator's own XACK of it returns 0;
// the consumer's re-read of its pending list finds none; a second replay
// claims what the first has not acked yet. Idle times are compared as
// classes (see the differential test's header).
func TestReplayPendingAgainstRedis(t *testing.T) {
	rc, version := startRedis(t)
	const grp = "cashback"
	g := &gen{key: "replay:1", m: New("replay:1")}
	now := int64(10_000_000_000)
	run := func(s step) {
		t.Helper()
		now += 7
		want := s.model(g.m, now)
		got, err := rc.do(s.args...)
		if err != nil {
			t.Fatal(err)
		}
		if s.norm != nil {
			want, got = s.norm(want), s.norm(got)
		}
		if ws, gs := render(want), render(got); ws != gs {
			t.Fatalf("%s: %v\n model: %s\n redis: %s", version, s.args, ws, gs)
		}
	}
	ack := func(id string) step {
		return step{args: []string{"XACK", g.key, grp, id}, model: func(m *Stream, now int64) any {
			x, _ := ParseID(id)
			return int64(m.XAck(grp, x))
		}}
	}
	claim := func(minIdle int64) step {
		return step{args: []string{"XAUTOCLAIM", g.key, grp, "operator", strconv.FormatInt(minIdle, 10), "0-0"}, model: func(m *Stream, now int64) any {
			r, err := m.XAutoClaim(grp, "operator", minIdle, ID{}, 0, now)
			if err != nil {
				return respErr(err.Error())
			}
			return []any{bulk(r.Next.String()), entriesTree(r.Claimed), idsTree(r.Deleted)}
		}}
	}
	read := func(id string) step {
		return step{args: []string{"XREADGROUP", "GROUP", grp, "consumer-1", "COUNT", "10", "STREAMS", g.key, id},
			model: func(m *Stream, now int64) any { return readTree(m, grp, "consumer-1", 10, id, now) }}
	}
	run(step{args: []string{"XGROUP", "CREATE", g.key, grp, "0", "MKSTREAM"},
		model: func(m *Stream, now int64) any { return okOrErr(m.XGroupCreate(grp, "0")) }})
	for k := 0; k < 12; k++ {
		id := fmt.Sprintf("1-%d", k+1)
		fields := []Field{{"event_id", strconv.Itoa(k)}, {"user", "u1"}, {"amount", "100"}}
		run(step{args: []string{"XADD", g.key, id, "event_id", strconv.Itoa(k), "user", "u1", "amount", "100"}, model: func(m *Stream, now int64) any {
			x, err := m.XAdd(id, fields, now)
			if err != nil {
				return respErr(err.Error())
			}
			return bulk(x.String())
		}})
	}
	run(read(">"))
	run(ack("1-1"))
	run(claim(hourMs)) // the batch is fresh: nothing idle an hour
	run(claim(0))      // 1-2 … 1-10 to the operator, counts 2
	run(g.xpendingRange(grp, true))
	run(ack("1-2")) // the consumer, still holding it: 1
	run(ack("1-2")) // the operator's: 0
	run(read("0"))  // the consumer's pending list: nothing left
	run(ack("1-3"))
	run(claim(0)) // a second replay: 1-4 … 1-10, counts 3
	run(g.xpendingRange(grp, true))
	run(g.xpendingSummary(grp))
	if _, err := rc.do("DEL", g.key); err != nil {
		t.Fatal(err)
	}
}
