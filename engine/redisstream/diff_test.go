package redisstream

// Differential test: random scripts of stream commands run against the model
// and against a real redis-server; every reply and the final state (entries,
// pending lists, groups, consumers) must render identically.
//
// Wall clock: the server measures idle times with its own clock, the model
// with the simulated "now" the test passes. Idle times are therefore never
// compared as numbers but as a class: "fresh" (under one hour: every script
// runs in seconds of real time and under 30 s of simulated time) or "old"
// (an hour or more: only entries given XCLAIM IDLE 5000000 or TIME 1).
// Min-idle arguments are 0 or one hour, on either side of the gap, so they
// select the same entries on both sides. Delivery counts are exact.
//
//	INFLIGHT_REDIS_SCRIPTS=n   number of scripts (default 3000)
//	INFLIGHT_REDIS_SEED=n      first seed (default 1); script i uses seed+i

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	hourMs = 3_600_000
	farMs  = 9_000_000_000_000_000 // an id time ahead of any wall clock
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func TestDifferentialAgainstRedis(t *testing.T) {
	rc, version := startRedis(t)
	scripts := envInt("INFLIGHT_REDIS_SCRIPTS", 3000)
	seed := uint64(envInt("INFLIGHT_REDIS_SEED", 1))
	start := time.Now()
	kinds := map[string]int{}
	ops := 0
	for i := 0; i < scripts; i++ {
		ops += runScript(t, rc, seed+uint64(i), fmt.Sprintf("s:%d", i), kinds)
		if t.Failed() {
			return
		}
	}
	var ks []string
	for k, n := range kinds {
		ks = append(ks, fmt.Sprintf("%s=%d", k, n))
	}
	slices.Sort(ks)
	t.Logf("%s: %d scripts, %d commands compared in %v (seed %d)\n%s",
		version, scripts, ops, time.Since(start).Round(time.Millisecond), seed, strings.Join(ks, " "))
}

// step is one command: its arguments for the server and the same command
// on the model, replying in the server's RESP2 shape. norm, if set,
// normalises both replies (idle times to classes, XINFO to chosen fields).
type step struct {
	kind  string
	args  []string
	model func(m *Stream, now int64) any
	norm  func(any) any
}

type gen struct {
	r    *rand.Rand
	key  string
	m    *Stream
	seen []ID // every id the script added, deleted ones too

	ghosts []*Stream // forks of the model that must not affect it
}

func runScript(t *testing.T, rc *respConn, seed uint64, key string, kinds map[string]int) int {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), key: key, m: New(key)}
	now := int64(10_000_000_000)
	var log []string
	run := func(s step) bool {
		now += g.r.Int64N(300)
		want := s.model(g.m, now)
		got, err := rc.do(s.args...)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if s.norm != nil {
			want, got = s.norm(want), s.norm(got)
		}
		ws, gs := render(want), render(got)
		log = append(log, fmt.Sprintf("%s\n      model: %s\n      redis: %s", strings.Join(s.args, " "), ws, gs))
		kinds[s.kind]++
		if ws != gs {
			if len(log) > 60 {
				log = log[len(log)-60:]
			}
			t.Errorf("seed %d (INFLIGHT_REDIS_SEED=%d INFLIGHT_REDIS_SCRIPTS=1): model and redis differ at the last command:\n%s",
				seed, seed, strings.Join(log, "\n"))
			return false
		}
		g.scribble(now)
		if g.r.IntN(8) == 0 {
			g.fork()
		}
		for _, e := range g.m.entries {
			if !slices.Contains(g.seen, e.id) {
				g.seen = append(g.seen, e.id)
			}
		}
		return true
	}

	if !run(step{kind: "XGROUP CREATE", args: []string{"XGROUP", "CREATE", key, "g1", "0", "MKSTREAM"},
		model: func(m *Stream, now int64) any { return okOrErr(m.XGroupCreate("g1", "0")) }}) {
		return len(log)
	}
	n := 20 + g.r.IntN(60)
	for i := 0; i < n; i++ {
		if !run(g.next()) {
			return len(log)
		}
	}
	for _, s := range g.final() {
		if !run(s) {
			return len(log)
		}
	}
	if _, err := rc.do("DEL", key); err != nil {
		t.Fatal(err)
	}
	return len(log)
}

// fork goes on with either the model or a clone of it, and keeps the other
// as a ghost that gets scribbled on after every later command: if the two
// shared any state, the model's next replies would differ from the server's.
func (g *gen) fork() {
	ghost := g.m.Clone()
	if g.r.IntN(2) == 0 {
		g.m, ghost = ghost, g.m
	}
	g.ghosts = append(g.ghosts, ghost)
	if len(g.ghosts) > 2 {
		g.ghosts = g.ghosts[1:]
	}
}

func (g *gen) scribble(now int64) {
	for _, old := range g.ghosts {
		_, _ = old.XAdd("*", []Field{{"scribble", "1"}}, now)
		if len(g.seen) > 0 {
			old.XDel(g.seen[g.r.IntN(len(g.seen))])
		}
		_, _ = old.XReadGroup("g1", "c1", 0, ">", now)
		_, _ = old.XReadGroup("g1", "c2", 0, "0", now)
		_ = old.XGroupCreate("g3", "0")
	}
}

// ---------------------------------------------------------------------------
// Choosing arguments.

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) consumer() string { return g.pick("c1", "c1", "c2", "c2", "c3") }

func (g *gen) group() string {
	switch g.r.IntN(20) {
	case 0:
		return "gx" // never created
	case 1, 2, 3, 4:
		return "g2"
	}
	return "g1"
}

// id is an id the script used, sometimes one it never did.
func (g *gen) id() ID {
	if len(g.seen) == 0 || g.r.IntN(10) == 0 {
		return ID{uint64(g.r.IntN(12)), uint64(g.r.IntN(3))}
	}
	return g.seen[g.r.IntN(len(g.seen))]
}

// idArg writes an id, as "<ms>" alone when the sequence is 0, sometimes.
func (g *gen) idArg(id ID) string {
	if id.Seq == 0 && g.r.IntN(3) == 0 {
		return strconv.FormatUint(id.Ms, 10)
	}
	return id.String()
}

func (g *gen) ids(max int) ([]ID, []string) {
	n := 1 + g.r.IntN(max)
	var ids []ID
	var args []string
	for i := 0; i < n; i++ {
		id := g.id()
		ids = append(ids, id)
		args = append(args, g.idArg(id))
	}
	return ids, args
}

func (g *gen) rangeStart() string {
	switch g.r.IntN(4) {
	case 0:
		return "-"
	case 1:
		return "(" + g.id().String()
	}
	return g.idArg(g.id())
}

func (g *gen) rangeEnd() string {
	switch g.r.IntN(4) {
	case 0, 1:
		return "+"
	case 2:
		return "(" + g.id().String()
	}
	return g.idArg(g.id())
}

func (g *gen) next() step {
	switch w := g.r.IntN(100); {
	case w < 22:
		return g.xadd()
	case w < 38:
		return g.xreadgroup(">")
	case w < 48:
		return g.xreadgroup("history")
	case w < 53:
		return g.restart()
	case w < 63:
		return g.xack()
	case w < 67:
		return g.xpendingSummary(g.group())
	case w < 73:
		return g.xpendingRange(g.group(), false)
	case w < 80:
		return g.xclaim()
	case w < 87:
		return g.xautoclaim()
	case w < 92:
		return g.xdel()
	case w < 94:
		return g.xinfoGroups()
	case w < 96:
		return g.xinfoConsumers(g.group())
	}
	return g.xgroup()
}

// final reads back everything the script left behind.
func (g *gen) final() []step {
	steps := []step{{kind: "XRANGE", args: []string{"XRANGE", g.key, "-", "+"},
		model: func(m *Stream, now int64) any { return entriesTree(m.XRange(MinID, MaxID, 0)) }},
		g.xinfoGroups()}
	for _, grp := range []string{"g1", "g2"} {
		steps = append(steps, g.xpendingSummary(grp), g.xpendingRange(grp, true), g.xinfoConsumers(grp))
	}
	return steps
}

// ---------------------------------------------------------------------------
// Commands.

func (g *gen) xadd() step {
	last := g.m.LastID()
	var id string
	switch g.r.IntN(14) {
	case 12: // far in the future, so that "*" can be compared (below)
		id = fmt.Sprintf("%d-%d", max(last.Ms, farMs), last.Seq+1)
	case 13:
		// "*" takes the wall clock on the server and "now" in the model:
		// comparable only when both are behind the top id, where both
		// reuse its ms and increment the sequence.
		id = "*"
		if last.Ms < farMs {
			id = fmt.Sprintf("%d-*", last.Ms)
		}
	case 0: // not above the top id, or 0-0: an error
		if last.IsZero() {
			id = "0-0"
		} else {
			id = fmt.Sprintf("%d-%d", last.Ms, last.Seq-min(last.Seq, uint64(g.r.IntN(2))))
		}
	case 1, 2:
		id = fmt.Sprintf("%d-*", last.Ms+uint64(g.r.IntN(2)))
	case 3:
		id = strconv.FormatUint(last.Ms+1+uint64(g.r.IntN(3)), 10)
	default:
		if g.r.IntN(2) == 0 {
			id = fmt.Sprintf("%d-%d", last.Ms, last.Seq+1+uint64(g.r.IntN(2)))
		} else {
			id = fmt.Sprintf("%d-%d", last.Ms+1+uint64(g.r.IntN(3)), g.r.IntN(3))
		}
	}
	fields := []Field{{"user", "u" + strconv.Itoa(1+g.r.IntN(3))}}
	if g.r.IntN(2) == 0 {
		fields = append(fields, Field{"amount", strconv.Itoa(100 * (1 + g.r.IntN(5)))})
	}
	args := []string{"XADD", g.key, id}
	for _, f := range fields {
		args = append(args, f.Name, f.Value)
	}
	return step{kind: "XADD", args: args, model: func(m *Stream, now int64) any {
		got, err := m.XAdd(id, fields, now)
		if err != nil {
			return respErr(err.Error())
		}
		return bulk(got.String())
	}}
}

func (g *gen) xreadgroup(mode string) step {
	grp, c := g.group(), g.consumer()
	args := []string{"XREADGROUP", "GROUP", grp, c}
	count := 0
	if g.r.IntN(3) > 0 {
		count = g.r.IntN(6)
		args = append(args, "COUNT", strconv.Itoa(count))
	}
	id := ">"
	if mode != ">" {
		id = "0"
		switch g.r.IntN(40) {
		case 0:
			id = g.pick("$", "+", "x-1", "-")
		case 1:
			id = MaxID.String() // the same as ">" to Redis
		default:
			if g.r.IntN(2) == 0 {
				id = g.idArg(g.id())
			}
		}
	}
	args = append(args, "STREAMS", g.key, id)
	return step{kind: "XREADGROUP " + mode, args: args, model: func(m *Stream, now int64) any {
		return readTree(m, grp, c, count, id, now)
	}}
}

// restart is the cashback consumer coming back: XREADGROUP ... 0 on its
// own pending entries first.
func (g *gen) restart() step {
	grp, c := "g1", g.consumer()
	return step{kind: "restart", args: []string{"XREADGROUP", "GROUP", grp, c, "STREAMS", g.key, "0"},
		model: func(m *Stream, now int64) any { return readTree(m, grp, c, 0, "0", now) }}
}

func readTree(m *Stream, grp, c string, count int, id string, now int64) any {
	es, err := m.XReadGroup(grp, c, count, id, now)
	if err != nil {
		return respErr(err.Error())
	}
	if es == nil {
		return nilArr{}
	}
	return []any{[]any{bulk(m.Key()), entriesTree(es)}}
}

func (g *gen) xack() step {
	grp := g.group()
	ids, idArgs := g.ids(3)
	return step{kind: "XACK", args: append([]string{"XACK", g.key, grp}, idArgs...),
		model: func(m *Stream, now int64) any { return int64(m.XAck(grp, ids...)) }}
}

func (g *gen) xdel() step {
	ids, idArgs := g.ids(2)
	return step{kind: "XDEL", args: append([]string{"XDEL", g.key}, idArgs...),
		model: func(m *Stream, now int64) any { return int64(m.XDel(ids...)) }}
}

func (g *gen) xpendingSummary(grp string) step {
	return step{kind: "XPENDING summary", args: []string{"XPENDING", g.key, grp}, model: func(m *Stream, now int64) any {
		sum, err := m.XPending(grp)
		if err != nil {
			return respErr(err.Error())
		}
		if sum.Count == 0 {
			return []any{int64(0), nilBulk{}, nilBulk{}, nilArr{}}
		}
		cs := []any{}
		for _, c := range sum.Consumers {
			cs = append(cs, []any{bulk(c.Name), bulk(strconv.FormatInt(c.Count, 10))})
		}
		return []any{sum.Count, bulk(sum.Smallest.String()), bulk(sum.Largest.String()), cs}
	}}
}

func (g *gen) xpendingRange(grp string, all bool) step {
	args := []string{"XPENDING", g.key, grp}
	var q PendingQuery
	start, end, count, consumer := "-", "+", 100000, ""
	if !all {
		if g.r.IntN(3) == 0 {
			q.MinIdle = []int64{0, hourMs, hourMs}[g.r.IntN(3)]
			args = append(args, "IDLE", strconv.FormatInt(q.MinIdle, 10))
		}
		start, end, count = g.rangeStart(), g.rangeEnd(), g.r.IntN(6)
		if g.r.IntN(5) == 0 {
			count = -1
		}
		if g.r.IntN(3) == 0 {
			consumer = g.pick("c1", "c2", "c3", "c9")
		}
	}
	q.Count, q.Consumer = count, consumer
	args = append(args, start, end, strconv.Itoa(count))
	if consumer != "" {
		args = append(args, consumer)
	}
	return step{kind: "XPENDING range", args: args, norm: idleAt(2), model: func(m *Stream, now int64) any {
		var err error
		if q.Start, err = RangeStart(start); err != nil {
			return respErr(err.Error())
		}
		if q.End, err = RangeEnd(end); err != nil {
			return respErr(err.Error())
		}
		rows, err := m.XPendingRange(grp, q, now)
		if err != nil {
			return respErr(err.Error())
		}
		out := []any{}
		for _, r := range rows {
			out = append(out, []any{bulk(r.ID.String()), bulk(r.Consumer), r.Idle, r.DeliveryCount})
		}
		return out
	}}
}

func (g *gen) xclaim() step {
	grp, c := g.group(), g.consumer()
	minIdle := int64(0)
	if g.r.IntN(3) == 0 {
		minIdle = hourMs
	}
	ids, idArgs := g.ids(3)
	args := append([]string{"XCLAIM", g.key, grp, c, strconv.FormatInt(minIdle, 10)}, idArgs...)
	var opt ClaimOptions
	if g.r.IntN(4) == 0 {
		v := []int64{0, 5_000_000, -5}[g.r.IntN(3)]
		opt.Idle = &v
		args = append(args, "IDLE", strconv.FormatInt(v, 10))
	}
	if g.r.IntN(6) == 0 {
		v := []int64{1, 9_000_000_000_000_000}[g.r.IntN(2)]
		opt.Time = &v
		args = append(args, "TIME", strconv.FormatInt(v, 10))
	}
	if g.r.IntN(5) == 0 {
		v := int64(g.r.IntN(6) - 1)
		opt.RetryCount = &v
		args = append(args, "RETRYCOUNT", strconv.FormatInt(v, 10))
	}
	if g.r.IntN(5) == 0 {
		opt.Force = true
		args = append(args, "FORCE")
	}
	justID := g.r.IntN(3) == 0
	if justID {
		args = append(args, "JUSTID")
	}
	if g.r.IntN(8) == 0 {
		v := g.id()
		opt.LastID = &v
		args = append(args, "LASTID", v.String())
	}
	return step{kind: "XCLAIM", args: args, model: func(m *Stream, now int64) any {
		if justID {
			got, err := m.XClaimJustID(grp, c, minIdle, ids, opt, now)
			if err != nil {
				return respErr(err.Error())
			}
			return idsTree(got)
		}
		got, err := m.XClaim(grp, c, minIdle, ids, opt, now)
		if err != nil {
			return respErr(err.Error())
		}
		return entriesTree(got)
	}}
}

func (g *gen) xautoclaim() step {
	grp, c := g.group(), g.consumer()
	minIdle := int64(0)
	if g.r.IntN(3) == 0 {
		minIdle = hourMs
	}
	start := g.pick("0-0", "-", "0")
	if g.r.IntN(2) == 0 {
		start = g.rangeStart()
	}
	args := []string{"XAUTOCLAIM", g.key, grp, c, strconv.FormatInt(minIdle, 10), start}
	count := 0
	if g.r.IntN(4) > 0 {
		count = 1 + g.r.IntN(4)
		args = append(args, "COUNT", strconv.Itoa(count))
	}
	justID := g.r.IntN(3) == 0
	if justID {
		args = append(args, "JUSTID")
	}
	return step{kind: "XAUTOCLAIM", args: args, model: func(m *Stream, now int64) any {
		from, err := RangeStart(start)
		if err != nil {
			return respErr(err.Error())
		}
		var r AutoClaim
		if justID {
			r, err = m.XAutoClaimJustID(grp, c, minIdle, from, count, now)
		} else {
			r, err = m.XAutoClaim(grp, c, minIdle, from, count, now)
		}
		if err != nil {
			return respErr(err.Error())
		}
		claimed := entriesTree(r.Claimed)
		if justID {
			claimed = idsTree(r.IDs)
		}
		return []any{bulk(r.Next.String()), claimed, idsTree(r.Deleted)}
	}}
}

func (g *gen) xgroup() step {
	switch w := g.r.IntN(10); {
	case w < 4:
		grp, c := g.group(), g.pick("c1", "c2", "c3", "c4")
		return step{kind: "XGROUP CREATECONSUMER", args: []string{"XGROUP", "CREATECONSUMER", g.key, grp, c},
			model: func(m *Stream, now int64) any { return intOrErr(m.XGroupCreateConsumer(grp, c, now)) }}
	case w < 6:
		grp, c := g.group(), g.pick("c1", "c2", "c3", "c4")
		return step{kind: "XGROUP DELCONSUMER", args: []string{"XGROUP", "DELCONSUMER", g.key, grp, c},
			model: func(m *Stream, now int64) any { return intOrErr(m.XGroupDelConsumer(grp, c)) }}
	case w < 8:
		id := g.pick("$", "0")
		return step{kind: "XGROUP CREATE", args: []string{"XGROUP", "CREATE", g.key, "g2", id},
			model: func(m *Stream, now int64) any { return okOrErr(m.XGroupCreate("g2", id)) }}
	case w < 9:
		grp := g.group()
		id := g.pick("$", "0", "-", g.id().String())
		return step{kind: "XGROUP SETID", args: []string{"XGROUP", "SETID", g.key, grp, id},
			model: func(m *Stream, now int64) any { return okOrErr(m.XGroupSetID(grp, id)) }}
	}
	return step{kind: "XGROUP DESTROY", args: []string{"XGROUP", "DESTROY", g.key, "g2"},
		model: func(m *Stream, now int64) any { return int64(m.XGroupDestroy("g2")) }}
}

func (g *gen) xinfoGroups() step {
	return step{kind: "XINFO GROUPS", args: []string{"XINFO", "GROUPS", g.key},
		norm: pickFields("name", "consumers", "pending", "last-delivered-id"),
		model: func(m *Stream, now int64) any {
			out := []any{}
			for _, gi := range m.XInfoGroups() {
				out = append(out, []any{bulk("name"), bulk(gi.Name), bulk("consumers"), int64(gi.Consumers),
					bulk("pending"), int64(gi.Pending), bulk("last-delivered-id"), bulk(gi.LastDeliveredID.String())})
			}
			return out
		}}
}

func (g *gen) xinfoConsumers(grp string) step {
	return step{kind: "XINFO CONSUMERS", args: []string{"XINFO", "CONSUMERS", g.key, grp},
		norm: pickFields("name", "pending", "idle"),
		model: func(m *Stream, now int64) any {
			cs, err := m.XInfoConsumers(grp, now)
			if err != nil {
				return respErr(err.Error())
			}
			out := []any{}
			for _, c := range cs {
				out = append(out, []any{bulk("name"), bulk(c.Name), bulk("pending"), int64(c.Pending), bulk("idle"), c.Idle})
			}
			return out
		}}
}

// ---------------------------------------------------------------------------
// Model replies in RESP2 shape, and normalisers.

func entriesTree(es []Entry) any {
	out := []any{}
	for _, e := range es {
		if e.Deleted {
			out = append(out, []any{bulk(e.ID.String()), nilArr{}})
			continue
		}
		fv := []any{}
		for _, f := range e.Fields {
			fv = append(fv, bulk(f.Name), bulk(f.Value))
		}
		out = append(out, []any{bulk(e.ID.String()), fv})
	}
	return out
}

func idsTree(ids []ID) any {
	out := []any{}
	for _, id := range ids {
		out = append(out, bulk(id.String()))
	}
	return out
}

func okOrErr(err error) any {
	if err != nil {
		return respErr(err.Error())
	}
	return simple("OK")
}

func intOrErr(n int, err error) any {
	if err != nil {
		return respErr(err.Error())
	}
	return int64(n)
}

func idleClass(v any) any {
	n, ok := v.(int64)
	switch {
	case !ok:
		return v
	case n < 0:
		return bulk("idle<0")
	case n < hourMs:
		return bulk("fresh")
	}
	return bulk("old")
}

// idleAt replaces the idle time at index i of every row by its class.
func idleAt(i int) func(any) any {
	return func(v any) any {
		rows, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(rows))
		for j, r := range rows {
			row, ok := r.([]any)
			if ok && len(row) > i {
				row = slices.Clone(row)
				row[i] = idleClass(row[i])
			}
			out[j] = row
		}
		return out
	}
}

// pickFields turns XINFO's rows of name/value pairs into the chosen values
// ("idle" as a class); other fields (entries-read, lag) are not modelled.
func pickFields(names ...string) func(any) any {
	return func(v any) any {
		rows, ok := v.([]any)
		if !ok {
			return v
		}
		out := []any{}
		for _, r := range rows {
			pairs, _ := r.([]any)
			row := []any{}
			for _, name := range names {
				var val any = bulk("(missing)")
				for k := 0; k+1 < len(pairs); k += 2 {
					if pairs[k] == bulk(name) {
						val = pairs[k+1]
					}
				}
				if name == "idle" {
					val = idleClass(val)
				}
				row = append(row, val)
			}
			out = append(out, row)
		}
		return out
	}
}
