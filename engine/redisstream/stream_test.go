package redisstream

import (
	"reflect"
	"testing"
)

func f(kv ...string) []Field {
	var out []Field
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, Field{kv[i], kv[i+1]})
	}
	return out
}

func ids(es []Entry) []string {
	out := []string{}
	for _, e := range es {
		s := e.ID.String()
		if e.Deleted {
			s += "(nil)"
		}
		out = append(out, s)
	}
	return out
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func pendingByID(t *testing.T, s *Stream, grp string, now int64) map[string]PendingEntry {
	t.Helper()
	rows := must[[]PendingEntry](t)(s.XPendingRange(grp, PendingQuery{Start: MinID, End: MaxID, Count: 1000}, now))
	m := map[string]PendingEntry{}
	for _, r := range rows {
		m[r.ID.String()] = r
	}
	return m
}

// newCashback is a stream of n events and a group "g" reading from 0.
func newCashback(t *testing.T, n int) *Stream {
	s := New("cashback")
	if err := s.XGroupCreate("g", "0"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := s.XAdd("*", f("user", "u1", "amount", "100"), 1000); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestXAddIDs(t *testing.T) {
	s := New("k")
	for _, c := range []struct {
		id   string
		now  int64
		want string
	}{
		{"*", 1000, "1000-0"},
		{"*", 1000, "1000-1"}, // same ms: sequence + 1
		{"*", 999, "1000-2"},  // clock behind the top id: never go backwards
		{"*", 1001, "1001-0"},
		{"1001-*", 0, "1001-1"},
		{"2000-*", 0, "2000-0"},
		{"2000-5", 0, "2000-5"},
		{"2001", 0, "2001-0"},
	} {
		got, err := s.XAdd(c.id, f("a", "1"), c.now)
		if err != nil || got.String() != c.want {
			t.Fatalf("XADD %s at %d = %v, %v; want %s", c.id, c.now, got, err, c.want)
		}
	}
	if _, err := s.XAdd("2001-0", f("a", "1"), 0); err == nil || err.Error() != "ERR The ID specified in XADD is equal or smaller than the target stream top item" {
		t.Fatalf("equal id: %v", err)
	}
	if _, err := s.XAdd("0-0", f("a", "1"), 0); err == nil || err.Error() != "ERR The ID specified in XADD must be greater than 0-0" {
		t.Fatalf("0-0: %v", err)
	}
	if _, err := s.XAdd("1-x", f("a", "1"), 0); err == nil || err.Error() != "ERR Invalid stream ID specified as stream command argument" {
		t.Fatalf("bad id: %v", err)
	}
	// Deleting the top entry does not lower the top id.
	s.XDel(MustID("2001-0"))
	if _, err := s.XAdd("2001-0", f("a", "1"), 0); err == nil {
		t.Fatal("re-adding a deleted top id must fail")
	}
	if got := must[ID](t)(s.XAdd("*", f("a", "1"), 5)); got.String() != "2001-1" {
		t.Fatalf("after XDEL of the top: %v", got)
	}
}

// The cashback incident: a consumer reads, credits, crashes before XACK,
// restarts and first re-reads its own pending entries with XREADGROUP ... 0.
func TestRestartRereadsOwnPendingWithSameIDAndOneMoreDelivery(t *testing.T) {
	s := newCashback(t, 3)
	got := must[[]Entry](t)(s.XReadGroup("g", "c1", 2, ">", 2000))
	if !reflect.DeepEqual(ids(got), []string{"1000-0", "1000-1"}) {
		t.Fatalf("first read: %v", ids(got))
	}
	if !reflect.DeepEqual(got[0].Fields, f("user", "u1", "amount", "100")) {
		t.Fatalf("fields: %v", got[0].Fields)
	}
	s.XAck("g", got[0].ID) // 1000-0 credited and acked; 1000-1 credited, then crash
	// Restart: history first.
	re := must[[]Entry](t)(s.XReadGroup("g", "c1", 10, "0", 7000))
	if !reflect.DeepEqual(ids(re), []string{"1000-1"}) {
		t.Fatalf("re-read: %v", ids(re))
	}
	p := pendingByID(t, s, "g", 7500)["1000-1"]
	if p.DeliveryCount != 2 || p.Idle != 500 || p.Consumer != "c1" {
		t.Fatalf("pending after re-read: %+v", p)
	}
	// Re-reading again counts again; ">" then continues with 1000-2.
	must[[]Entry](t)(s.XReadGroup("g", "c1", 0, "0", 8000))
	if p := pendingByID(t, s, "g", 8000)["1000-1"]; p.DeliveryCount != 3 || p.Idle != 0 {
		t.Fatalf("second re-read: %+v", p)
	}
	next := must[[]Entry](t)(s.XReadGroup("g", "c1", 10, ">", 8000))
	if !reflect.DeepEqual(ids(next), []string{"1000-2"}) {
		t.Fatalf("new after restart: %v", ids(next))
	}
	// Nothing new: Redis replies nil.
	if none := must[[]Entry](t)(s.XReadGroup("g", "c1", 10, ">", 8000)); none != nil {
		t.Fatalf("nothing new should be nil, got %v", none)
	}
}

func TestHistoryIsOwnAfterIDAndRespectsCount(t *testing.T) {
	s := newCashback(t, 6)
	must[[]Entry](t)(s.XReadGroup("g", "a", 2, ">", 1))  // 1000-0, 1000-1
	must[[]Entry](t)(s.XReadGroup("g", "b", 2, ">", 1))  // 1000-2, 1000-3
	must[[]Entry](t)(s.XReadGroup("g", "a", 10, ">", 1)) // 1000-4, 1000-5
	if got := ids(must[[]Entry](t)(s.XReadGroup("g", "a", 2, "0", 2))); !reflect.DeepEqual(got, []string{"1000-0", "1000-1"}) {
		t.Fatalf("COUNT 2: %v", got)
	}
	if got := ids(must[[]Entry](t)(s.XReadGroup("g", "a", 0, "1000-1", 3))); !reflect.DeepEqual(got, []string{"1000-4", "1000-5"}) {
		t.Fatalf("after 1000-1: %v", got)
	}
	if got := must[[]Entry](t)(s.XReadGroup("g", "b", 0, "1000-3", 3)); got == nil || len(got) != 0 {
		t.Fatalf("no history must be an empty, non-nil reply: %#v", got)
	}
	// A consumer that never read has an empty history, and now exists.
	if got := must[[]Entry](t)(s.XReadGroup("g", "new", 0, "0", 3)); len(got) != 0 {
		t.Fatalf("new consumer history: %v", got)
	}
	if n := must[int](t)(s.XGroupCreateConsumer("g", "new", 4)); n != 0 {
		t.Fatal("XREADGROUP must create the consumer")
	}
	pend := pendingByID(t, s, "g", 3)
	for id, want := range map[string]int64{"1000-0": 2, "1000-1": 2, "1000-2": 1, "1000-3": 1, "1000-4": 2, "1000-5": 2} {
		if pend[id].DeliveryCount != want {
			t.Errorf("%s delivered %d times, want %d", id, pend[id].DeliveryCount, want)
		}
	}
}

func TestDeletedPendingEntry(t *testing.T) {
	s := newCashback(t, 3)
	must[[]Entry](t)(s.XReadGroup("g", "c", 0, ">", 10))
	if n := s.XDel(MustID("1000-1"), MustID("9-9")); n != 1 {
		t.Fatalf("XDEL = %d", n)
	}
	got := must[[]Entry](t)(s.XReadGroup("g", "c", 0, "0", 50))
	if !reflect.DeepEqual(ids(got), []string{"1000-0", "1000-1(nil)", "1000-2"}) || got[1].Fields != nil {
		t.Fatalf("history with a deleted entry: %#v", got)
	}
	pend := pendingByID(t, s, "g", 60)
	if d := pend["1000-1"]; d.DeliveryCount != 1 || d.Idle != 50 {
		t.Fatalf("deleted entry's count and time must not change: %+v", d)
	}
	if pend["1000-0"].DeliveryCount != 2 {
		t.Fatalf("existing entry: %+v", pend["1000-0"])
	}
	if sum := must[PendingSummary](t)(s.XPending("g")); sum.Count != 3 {
		t.Fatalf("XPENDING still lists it: %+v", sum)
	}
	if n := s.XAck("g", MustID("1000-1")); n != 1 {
		t.Fatalf("XACK of a deleted pending entry = %d, want 1", n)
	}
	if n := s.XAck("g", MustID("1000-1")); n != 0 {
		t.Fatalf("second XACK = %d, want 0", n)
	}
	if n := s.XAck("nogroup", MustID("1000-0")); n != 0 {
		t.Fatalf("XACK on a missing group = %d, want 0", n)
	}
}

func TestXClaimMinIdleJustIDAndOptions(t *testing.T) {
	s := newCashback(t, 4)
	must[[]Entry](t)(s.XReadGroup("g", "a", 0, ">", 0))
	all := []ID{MustID("1000-0"), MustID("1000-1")}
	if got := must[[]Entry](t)(s.XClaim("g", "b", 100, all, ClaimOptions{}, 50)); len(got) != 0 {
		t.Fatalf("idle 50 < 100 must not be claimed: %v", ids(got))
	}
	got := must[[]Entry](t)(s.XClaim("g", "b", 100, all, ClaimOptions{}, 100))
	if !reflect.DeepEqual(ids(got), []string{"1000-0", "1000-1"}) {
		t.Fatalf("claim: %v", ids(got))
	}
	p := pendingByID(t, s, "g", 130)
	if p["1000-0"].Consumer != "b" || p["1000-0"].DeliveryCount != 2 || p["1000-0"].Idle != 30 {
		t.Fatalf("after XCLAIM: %+v", p["1000-0"])
	}
	// JUSTID: claimed, idle reset, count unchanged.
	jid := must[[]ID](t)(s.XClaimJustID("g", "c", 0, all[:1], ClaimOptions{}, 200))
	if len(jid) != 1 || jid[0] != all[0] {
		t.Fatalf("JUSTID: %v", jid)
	}
	if p := pendingByID(t, s, "g", 200)["1000-0"]; p.Consumer != "c" || p.DeliveryCount != 2 || p.Idle != 0 {
		t.Fatalf("after JUSTID: %+v", p)
	}
	// IDLE, RETRYCOUNT, TIME.
	idle, retry, tm := int64(70), int64(9), int64(150)
	must[[]Entry](t)(s.XClaim("g", "c", 0, all[1:], ClaimOptions{Idle: &idle, RetryCount: &retry}, 300))
	if p := pendingByID(t, s, "g", 300)["1000-1"]; p.Idle != 70 || p.DeliveryCount != 9 {
		t.Fatalf("IDLE/RETRYCOUNT: %+v", p)
	}
	must[[]ID](t)(s.XClaimJustID("g", "c", 0, all[1:], ClaimOptions{Time: &tm}, 300))
	if p := pendingByID(t, s, "g", 300)["1000-1"]; p.Idle != 150 || p.DeliveryCount != 9 {
		t.Fatalf("TIME: %+v", p)
	}
	// Not pending: ignored, unless FORCE (count 1, then +1 for the claim).
	s.XAck("g", MustID("1000-2"))
	if got := must[[]Entry](t)(s.XClaim("g", "c", 0, []ID{MustID("1000-2")}, ClaimOptions{}, 300)); len(got) != 0 {
		t.Fatalf("acked id claimed: %v", ids(got))
	}
	must[[]Entry](t)(s.XClaim("g", "c", 1e9, []ID{MustID("1000-2")}, ClaimOptions{Force: true}, 300))
	if p := pendingByID(t, s, "g", 300)["1000-2"]; p.DeliveryCount != 2 || p.Consumer != "c" {
		t.Fatalf("FORCE: %+v", p)
	}
	// A deleted pending entry is dropped from the PEL, even when not idle enough.
	s.XDel(MustID("1000-3"))
	if got := must[[]Entry](t)(s.XClaim("g", "c", 1e9, []ID{MustID("1000-3")}, ClaimOptions{}, 300)); len(got) != 0 {
		t.Fatalf("deleted claimed: %v", ids(got))
	}
	if _, ok := pendingByID(t, s, "g", 300)["1000-3"]; ok {
		t.Fatal("XCLAIM must purge a deleted pending entry")
	}
	if _, err := s.XClaim("nope", "c", 0, all, ClaimOptions{}, 0); err == nil || err.Error() != "NOGROUP No such key 'cashback' or consumer group 'nope'" {
		t.Fatalf("NOGROUP: %v", err)
	}
}

func TestXAutoClaimCursorScanLimitAndDeleted(t *testing.T) {
	s := newCashback(t, 30)
	must[[]Entry](t)(s.XReadGroup("g", "a", 0, ">", 0))
	// Not idle enough: examines 10*COUNT = 20 entries, claims none.
	r := must[AutoClaim](t)(s.XAutoClaim("g", "b", 1000, MinID, 2, 10))
	if len(r.Claimed) != 0 || r.Next.String() != "1000-20" || len(r.Deleted) != 0 {
		t.Fatalf("scan limit: %+v", r)
	}
	// Deleted ids count toward COUNT, are reported and purged.
	s.XDel(MustID("1000-20"), MustID("1000-22"))
	r = must[AutoClaim](t)(s.XAutoClaim("g", "b", 0, r.Next, 3, 20))
	if !reflect.DeepEqual(ids(r.Claimed), []string{"1000-21"}) || r.Next.String() != "1000-23" ||
		len(r.Deleted) != 2 || r.Deleted[0].String() != "1000-20" || r.Deleted[1].String() != "1000-22" {
		t.Fatalf("deleted: %+v", r)
	}
	if sum := must[PendingSummary](t)(s.XPending("g")); sum.Count != 28 {
		t.Fatalf("PEL after purge: %+v", sum)
	}
	p := pendingByID(t, s, "g", 25)["1000-21"]
	if p.Consumer != "b" || p.DeliveryCount != 2 || p.Idle != 5 {
		t.Fatalf("claimed entry: %+v", p)
	}
	// Default COUNT 100 reaches the end: cursor 0-0. JUSTID keeps counts.
	r = must[AutoClaim](t)(s.XAutoClaimJustID("g", "c", 0, MinID, 0, 30))
	if len(r.IDs) != 28 || !r.Next.IsZero() {
		t.Fatalf("to the end: %+v", r)
	}
	if p := pendingByID(t, s, "g", 30)["1000-21"]; p.Consumer != "c" || p.DeliveryCount != 2 {
		t.Fatalf("JUSTID: %+v", p)
	}
	// Exclusive start via RangeStart.
	st, _ := RangeStart("(1000-28")
	r = must[AutoClaim](t)(s.XAutoClaim("g", "d", 0, st, 0, 30))
	if !reflect.DeepEqual(ids(r.Claimed), []string{"1000-29"}) {
		t.Fatalf("exclusive start: %+v", r)
	}
}

func TestXPendingForms(t *testing.T) {
	s := newCashback(t, 5)
	must[[]Entry](t)(s.XReadGroup("g", "zed", 2, ">", 0))
	must[[]Entry](t)(s.XReadGroup("g", "amy", 2, ">", 100))
	must[[]Entry](t)(s.XReadGroup("g", "idle", 0, "0", 100)) // consumer without pending
	sum := must[PendingSummary](t)(s.XPending("g"))
	want := PendingSummary{Count: 4, Smallest: MustID("1000-0"), Largest: MustID("1000-3"),
		Consumers: []ConsumerPending{{"amy", 2}, {"zed", 2}}}
	if !reflect.DeepEqual(sum, want) {
		t.Fatalf("summary: %+v", sum)
	}
	rows := must[[]PendingEntry](t)(s.XPendingRange("g", PendingQuery{Start: MinID, End: MaxID, Count: 10, MinIdle: 150}, 200))
	if len(rows) != 2 || rows[0].Consumer != "zed" || rows[0].Idle != 200 {
		t.Fatalf("IDLE filter: %+v", rows)
	}
	rows = must[[]PendingEntry](t)(s.XPendingRange("g", PendingQuery{Start: MustID("1000-1"), End: MaxID, Count: 2, Consumer: "amy"}, 200))
	if len(rows) != 2 || rows[0].ID.String() != "1000-2" || rows[1].ID.String() != "1000-3" {
		t.Fatalf("consumer filter: %+v", rows)
	}
	if rows := must[[]PendingEntry](t)(s.XPendingRange("g", PendingQuery{Start: MinID, End: MaxID, Count: 10, Consumer: "ghost"}, 0)); len(rows) != 0 {
		t.Fatal("unknown consumer")
	}
	empty := New("e")
	_ = empty.XGroupCreate("g", "$")
	if sum := must[PendingSummary](t)(empty.XPending("g")); !reflect.DeepEqual(sum, PendingSummary{}) {
		t.Fatalf("empty summary: %+v", sum)
	}
	if _, err := s.XPending("x"); !IsNoGroup(err) {
		t.Fatalf("NOGROUP: %v", err)
	}
}

func TestGroupsAndErrors(t *testing.T) {
	s := newCashback(t, 3)
	if err := s.XGroupCreate("g", "$"); err == nil || err.Error() != "BUSYGROUP Consumer Group name already exists" {
		t.Fatalf("BUSYGROUP: %v", err)
	}
	if _, err := s.XReadGroup("x", "c", 0, ">", 0); err == nil || err.Error() != "NOGROUP No such key 'cashback' or consumer group 'x' in XREADGROUP with GROUP option" {
		t.Fatalf("XREADGROUP NOGROUP: %v", err)
	}
	if _, err := s.XGroupCreateConsumer("x", "c", 0); err == nil || err.Error() != "NOGROUP No such consumer group 'x' for key name 'cashback'" {
		t.Fatalf("CREATECONSUMER NOGROUP: %v", err)
	}
	_ = s.XGroupCreate("late", "$")
	if got := must[[]Entry](t)(s.XReadGroup("late", "c", 0, ">", 0)); got != nil {
		t.Fatalf("group created at $ sees nothing: %v", ids(got))
	}
	// SETID back: ">" hands pending entries out again with count 1.
	must[[]Entry](t)(s.XReadGroup("g", "a", 0, ">", 0))
	must[[]Entry](t)(s.XReadGroup("g", "a", 0, "0", 0))
	if err := s.XGroupSetID("g", "0"); err != nil {
		t.Fatal(err)
	}
	must[[]Entry](t)(s.XReadGroup("g", "b", 1, ">", 5))
	p := pendingByID(t, s, "g", 5)
	if p["1000-0"].Consumer != "b" || p["1000-0"].DeliveryCount != 1 || p["1000-1"].DeliveryCount != 2 {
		t.Fatalf("after SETID: %+v", p)
	}
	if n := must[int](t)(s.XGroupDelConsumer("g", "a")); n != 2 {
		t.Fatalf("DELCONSUMER = %d", n)
	}
	if got := s.XInfoGroups(); len(got) != 2 || got[0].Name != "g" || got[0].Pending != 1 || got[0].Consumers != 1 || got[0].LastDeliveredID.String() != "1000-0" {
		t.Fatalf("XINFO GROUPS: %+v", got)
	}
	if s.XGroupDestroy("late") != 1 || s.XGroupDestroy("late") != 0 {
		t.Fatal("DESTROY")
	}
}

func TestCloneIsDeep(t *testing.T) {
	s := newCashback(t, 3)
	must[[]Entry](t)(s.XReadGroup("g", "a", 1, ">", 0))
	c := s.Clone()
	must[[]Entry](t)(c.XReadGroup("g", "a", 0, "0", 10)) // changes a pending entry in place
	c.XDel(MustID("1000-2"))                             // before any append
	must[[]Entry](t)(c.XReadGroup("g", "a", 0, ">", 10))
	must[[]Entry](t)(c.XReadGroup("g", "a", 0, "0", 10))
	c.XDel(MustID("1000-0"))
	_, _ = c.XAdd("*", f("x", "y"), 5000)
	_ = c.XGroupCreate("h", "0")
	if s.XLen() != 3 || len(s.XInfoGroups()) != 1 {
		t.Fatal("clone shares entries or groups")
	}
	p := pendingByID(t, s, "g", 0)
	if len(p) != 1 || p["1000-0"].DeliveryCount != 1 {
		t.Fatalf("clone shares the PEL: %+v", p)
	}
	// Appends and deletes on both sides after a clone stay on their side.
	s2 := s.Clone()
	a1 := must[ID](t)(s.XAdd("*", f("side", "s"), 9000))
	a2 := must[ID](t)(s2.XAdd("*", f("side", "s2"), 9000))
	s3 := s.Clone()
	must[ID](t)(s3.XAdd("*", f("side", "s3"), 9001))
	s2.XDel(MustID("1000-1"))
	if a1 != a2 || s.XLen() != 4 || s2.XLen() != 3 || s3.XLen() != 5 ||
		s.XRange(a1, a1, 0)[0].Fields[0].Value != "s" || s2.XRange(a2, a2, 0)[0].Fields[0].Value != "s2" ||
		len(s.XRange(MustID("1000-1"), MustID("1000-1"), 0)) != 1 {
		t.Fatalf("entries leak between clones: %d %d %d", s.XLen(), s2.XLen(), s3.XLen())
	}
	// Callers cannot reach stored fields through replies.
	got := s.XRange(MinID, MaxID, 1)
	got[0].Fields[0].Value = "mutated"
	if s.XRange(MinID, MaxID, 1)[0].Fields[0].Value != "u1" {
		t.Fatal("reply aliases stored fields")
	}
	// Deterministic: the same commands give equal values.
	a, b := newCashback(t, 3), newCashback(t, 3)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, a.Clone()) {
		t.Fatal("not deterministic")
	}
}
