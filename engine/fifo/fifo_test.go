package fifo

import (
	"errors"
	"testing"
)

const minute = 60_000

// fifoWindow runs the fifo-window incident: the producer's first send is
// accepted but its answer lost; it retries after 1, 2 and 4 minutes
// (attempts at minutes 0, 1, 3, 7) unless an attempt would fall after the
// retry deadline. A consumer receives and deletes everything at once.
// It returns deliveries and the duplicate effects (deliveries beyond the
// first for the one order).
func fifoWindow(t *testing.T, window, deadline int64) (deliveries, dupEffects int, dropped []int64) {
	t.Helper()
	q := New(Config{DedupInterval: window})
	for _, at := range []int64{0, 1 * minute, 3 * minute, 7 * minute} {
		if deadline > 0 && at > deadline {
			break
		}
		r, err := q.Send(at, SendInput{Group: "order-42", DedupID: "order-42", Body: "confirm"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Duplicate {
			dropped = append(dropped, at/minute)
		}
		for _, d := range q.Receive(at, 10) {
			deliveries++
			if err := q.Delete(at+100, d.Handle); err != nil {
				t.Fatal(err)
			}
		}
	}
	return deliveries, deliveries - 1, dropped
}

func TestFifoWindowPublishedFigures(t *testing.T) {
	d, dup, dropped := fifoWindow(t, 0, 0)
	if d != 2 || dup != 1 {
		t.Fatalf("deliveries %d duplicate effects %d, want 2 and 1", d, dup)
	}
	if len(dropped) != 2 || dropped[0] != 1 || dropped[1] != 3 {
		t.Fatalf("dropped attempts at minutes %v, want [1 3]", dropped)
	}
}

func TestFifoWindowForks(t *testing.T) {
	if d, dup, _ := fifoWindow(t, 10*minute, 0); d != 1 || dup != 0 {
		t.Errorf("dedup_window=10m: deliveries %d duplicates %d, want 1 and 0", d, dup)
	}
	if d, dup, _ := fifoWindow(t, 0, 4*minute); d != 1 || dup != 0 {
		t.Errorf("retry_deadline=4m: deliveries %d duplicates %d, want 1 and 0", d, dup)
	}
}

// A FIFO deduplication id accepted again one moment after its interval:
// the window is [t, t+5m), so 1 ms before the end is a duplicate and the
// end itself is a new message.
func TestDedupIntervalBoundary(t *testing.T) {
	for _, tc := range []struct {
		at  int64
		dup bool
	}{
		{DefaultDedupInterval - 1, true},
		{DefaultDedupInterval, false},
		{DefaultDedupInterval + 1, false},
	} {
		q := New(Config{})
		first, _ := q.Send(0, SendInput{Group: "g", DedupID: "x", Body: "a"})
		r, err := q.Send(tc.at, SendInput{Group: "g", DedupID: "x", Body: "a"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Duplicate != tc.dup {
			t.Errorf("send at %d ms: duplicate %v, want %v", tc.at, r.Duplicate, tc.dup)
		}
		if tc.dup && r.MessageID != first.MessageID {
			t.Errorf("duplicate answered %s, want the original %s", r.MessageID, first.MessageID)
		}
		if got := len(q.Receive(tc.at, 10)); (got == 1) != tc.dup {
			t.Errorf("send at %d ms: %d visible messages", tc.at, got)
		}
	}
}

// The window runs from the first acceptance: duplicates inside it do not
// extend it, and deleting the original does not end it.
func TestWindowFromFirstAcceptanceEvenAfterDelete(t *testing.T) {
	q := New(Config{})
	q.Send(0, SendInput{Group: "g", DedupID: "x"})
	d := q.Receive(1000, 1)
	if err := q.Delete(2000, d[0].Handle); err != nil {
		t.Fatal(err)
	}
	if r, _ := q.Send(4*minute, SendInput{Group: "g", DedupID: "x"}); !r.Duplicate {
		t.Fatal("send after delete, inside the window, was not a duplicate")
	}
	if r, _ := q.Send(5*minute, SendInput{Group: "g", DedupID: "x"}); r.Duplicate {
		t.Fatal("the duplicate at minute 4 extended the window")
	}
	// The new acceptance opens a new window.
	if r, _ := q.Send(9*minute, SendInput{Group: "g", DedupID: "x"}); !r.Duplicate {
		t.Fatal("the re-accepted id did not open a new window")
	}
	if s := q.Stats(9 * minute); s.Accepted != 2 || s.Duplicates != 2 {
		t.Fatalf("stats %+v", s)
	}
}

func TestContentBasedAndScope(t *testing.T) {
	q := New(Config{})
	if _, err := q.Send(0, SendInput{Group: "g", Body: "b"}); !errors.Is(err, ErrMissingDedupID) {
		t.Fatalf("missing id: %v", err)
	}
	if _, err := q.Send(0, SendInput{DedupID: "x"}); !errors.Is(err, ErrMissingGroupID) {
		t.Fatalf("missing group: %v", err)
	}
	q = New(Config{ContentBasedDeduplication: true})
	q.Send(0, SendInput{Group: "g", Body: "same"})
	if r, _ := q.Send(1, SendInput{Group: "h", Body: "same"}); !r.Duplicate {
		t.Fatal("same body, queue scope: want duplicate")
	}
	if r, _ := q.Send(2, SendInput{Group: "g", Body: "same", DedupID: "explicit"}); r.Duplicate {
		t.Fatal("an explicit id overrides the content hash")
	}
	q = New(Config{DedupScope: ScopeMessageGroup})
	q.Send(0, SendInput{Group: "g", DedupID: "x"})
	if r, _ := q.Send(1, SendInput{Group: "h", DedupID: "x"}); r.Duplicate {
		t.Fatal("group scope: the same id in another group is not a duplicate")
	}
	if r, _ := q.Send(2, SendInput{Group: "g", DedupID: "x"}); !r.Duplicate {
		t.Fatal("group scope: same id, same group is a duplicate")
	}
}

func send(t *testing.T, q *Queue, now int64, group, id string) {
	t.Helper()
	if _, err := q.Send(now, SendInput{Group: group, DedupID: id, Body: id}); err != nil {
		t.Fatal(err)
	}
}

func ids(ds []Delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.DedupID)
	}
	return out
}

func eq(a []string, b ...string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGroupBlocking(t *testing.T) {
	q := New(Config{VisibilityTimeout: 30_000})
	send(t, q, 0, "A", "a1")
	send(t, q, 0, "A", "a2")
	send(t, q, 0, "B", "b1")
	send(t, q, 0, "A", "a3")

	first := q.Receive(1000, 1)
	if !eq(ids(first), "a1") {
		t.Fatalf("first receive %v", ids(first))
	}
	// A is blocked by a1 in flight; B is served.
	b := q.Receive(1000, 10)
	if got := ids(b); !eq(got, "b1") {
		t.Fatalf("while a1 in flight got %v, want [b1]", got)
	}
	if got := q.Receive(2000, 10); len(got) != 0 {
		t.Fatalf("both groups blocked, got %v", ids(got))
	}
	if err := q.Delete(2000, b[0].Handle); err != nil {
		t.Fatal(err)
	}
	// a1's lease expires at 31 s: A is served again from a1, as many of
	// A's messages as possible, in order.
	if got := q.Receive(30_999, 10); len(got) != 0 {
		t.Fatalf("lease not yet expired, got %v", ids(got))
	}
	again := q.Receive(31_000, 10)
	if !eq(ids(again), "a1", "a2", "a3") || again[0].ReceiveCount != 2 {
		t.Fatalf("after expiry got %v (count %d)", ids(again), again[0].ReceiveCount)
	}
	// The first lease's handle is stale now.
	if err := q.Delete(31_500, first[0].Handle); !errors.Is(err, ErrReceiptHandleExpired) {
		t.Fatalf("stale delete: %v", err)
	}
	for _, d := range again {
		if err := q.Delete(31_500, d.Handle); err != nil {
			t.Fatal(err)
		}
	}
	send(t, q, 32_000, "A", "a4")
	if got := ids(q.Receive(32_000, 10)); !eq(got, "a4") {
		t.Fatalf("after deletes got %v, want [a4]", got)
	}
}

// Deleting one message of a batch leaves the group blocked by the rest;
// ChangeVisibility(0) releases it.
func TestBatchInFlightAndChangeVisibility(t *testing.T) {
	q := New(Config{})
	send(t, q, 0, "A", "a1")
	send(t, q, 0, "A", "a2")
	ds := q.Receive(0, 2)
	if err := q.Delete(10, ds[0].Handle); err != nil {
		t.Fatal(err)
	}
	send(t, q, 20, "A", "a3")
	if got := q.Receive(20, 10); len(got) != 0 {
		t.Fatalf("a2 still in flight, got %v", ids(got))
	}
	if err := q.ChangeVisibility(30, ds[1].Handle, 0); err != nil {
		t.Fatal(err)
	}
	if got := ids(q.Receive(30, 10)); !eq(got, "a2", "a3") {
		t.Fatalf("after visibility 0 got %v", got)
	}
	if err := q.ChangeVisibility(40, ds[1].Handle, 1000); !errors.Is(err, ErrMessageNotInflight) {
		t.Fatalf("stale handle visibility change: %v", err)
	}
}

func TestLateAccept(t *testing.T) {
	q := New(Config{LateDelete: LateAccept})
	send(t, q, 0, "A", "a1")
	d1 := q.Receive(0, 1)
	d2 := q.Receive(30_000, 1) // redelivered; another consumer holds it
	if len(d2) != 1 {
		t.Fatal("no redelivery")
	}
	if err := q.Delete(34_000, d1[0].Handle); err != nil {
		t.Fatal(err)
	}
	if s := q.Stats(34_000); s.Deleted != 1 || s.Inflight != 0 {
		t.Fatalf("late accept did not delete: %+v", s)
	}
}

func TestRedriveBreaksGroupOrder(t *testing.T) {
	q := New(Config{MaxReceiveCount: 3, VisibilityTimeout: 30_000})
	send(t, q, 0, "A", "poison")
	send(t, q, 0, "A", "next")
	for i, at := range []int64{0, 30_000, 60_000} {
		got := q.Receive(at, 1)
		if !eq(ids(got), "poison") || got[0].ReceiveCount != i+1 {
			t.Fatalf("receive %d: %v", i+1, ids(got))
		}
	}
	// The third lease expires at 90 s; the next receive dead-letters the
	// head and serves the rest of the group.
	got := q.Receive(90_000, 10)
	if !eq(ids(got), "next") {
		t.Fatalf("after redrive got %v", ids(got))
	}
	dlq := q.DLQ()
	if len(dlq) != 1 || dlq[0].DedupID != "poison" || dlq[0].EndedAt != 90_000 || dlq[0].ReceiveCount != 3 {
		t.Fatalf("dlq %+v", dlq)
	}
	// Explicit redrive at lease expiry, without a receive.
	q = New(Config{MaxReceiveCount: 1})
	send(t, q, 0, "A", "p")
	q.Receive(0, 1)
	if moved := q.Redrive(29_999); len(moved) != 0 {
		t.Fatal("redrive before the lease ended")
	}
	if moved := q.Redrive(30_000); len(moved) != 1 {
		t.Fatal("no redrive at the lease end")
	}
}

func TestLookaheadHidesLaterGroups(t *testing.T) {
	q := New(Config{Lookahead: 3})
	for _, id := range []string{"a1", "a2", "a3"} {
		send(t, q, 0, "A", id)
	}
	send(t, q, 0, "B", "b1")
	q.Receive(0, 1) // a1 in flight blocks A
	if got := q.Receive(0, 10); len(got) != 0 {
		t.Fatalf("B lies beyond the lookahead, got %v", ids(got))
	}
}

func TestCloneIsIndependent(t *testing.T) {
	q := New(Config{})
	send(t, q, 0, "A", "a1")
	c := q.Clone()
	d := q.Receive(0, 1)
	q.Delete(1, d[0].Handle)
	send(t, q, 2, "A", "a2")
	if got := ids(c.Receive(0, 10)); !eq(got, "a1") {
		t.Fatalf("clone saw the original's changes: %v", got)
	}
	if r, _ := c.Send(3, SendInput{Group: "A", DedupID: "a2"}); r.Duplicate {
		t.Fatal("clone shares the dedup memory")
	}
	if q.Stats(3).Deleted != 1 || c.Stats(3).Deleted != 0 {
		t.Fatal("stats leaked between clones")
	}
	if at, ok := c.NextVisible(0); !ok || at != 30_000 {
		t.Fatalf("clone next visible %d %v", at, ok)
	}
}

func TestDedupMemoryCompacts(t *testing.T) {
	q := New(Config{DedupInterval: 10})
	for i := int64(0); i < 5000; i++ {
		q.Send(i, SendInput{Group: "g", DedupID: "same"})
	}
	// One acceptance every 10 ms: 500 messages.
	if s := q.Stats(5000); s.Accepted != 500 || s.Duplicates != 4500 {
		t.Fatalf("stats %+v", s)
	}
	if len(q.dedup) != 1 {
		t.Fatalf("dedup memory holds %d ids", len(q.dedup))
	}
}

// A changed interval applies to ids admitted from then on: an id already
// remembered keeps its expiry (a longer window does not stretch it, a
// shorter one does not cut it), and a forgotten id is not brought back.
func TestSetDedupIntervalKeepsAdmittedExpiry(t *testing.T) {
	dup := func(q *Queue, at int64, id string) bool {
		t.Helper()
		r, err := q.Send(at, SendInput{Group: "g", DedupID: id})
		if err != nil {
			t.Fatal(err)
		}
		return r.Duplicate
	}
	q := New(Config{DedupInterval: 5 * minute})
	dup(q, 0, "a")        // remembered until minute 5
	dup(q, 2*minute, "b") // until minute 7
	q.SetDedupInterval(minute)
	dup(q, 3*minute, "c") // until minute 4, under the new interval
	cases := []struct {
		at   int64
		id   string
		want bool
	}{
		{4*minute - 1, "c", true},
		{4 * minute, "c", false}, // the new interval: forgotten at minute 4, re-admitted until 5
		{5*minute - 1, "a", true},
		{5 * minute, "a", false}, // the old expiry held through the shrink
	}
	for _, c := range cases {
		if got := dup(q, c.at, c.id); got != c.want {
			t.Errorf("%s at %d ms: duplicate %v, want %v", c.id, c.at, got, c.want)
		}
	}
	q.SetDedupInterval(10 * minute)
	if !dup(q, 7*minute-1, "b") {
		t.Error("b at 7m-1ms: not a duplicate; a longer interval must not cut its expiry")
	}
	if dup(q, 7*minute, "b") {
		t.Error("b at 7m: a duplicate; a longer interval brought back an id forgotten at 7m")
	}
	// b was re-admitted at minute 7 under 10 minutes: remembered until 17
	if !dup(q, 17*minute-1, "b") || dup(q, 17*minute, "b") {
		t.Error("b re-admitted at 7m under a 10-minute interval should be remembered until exactly 17m")
	}
}
