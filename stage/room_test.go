package stage

import (
	"testing"
	"time"
)

// TestRoomSeats: the room by state counts sessions present, following or
// on their own copy, idle once their last key is IdleAfter old; a seat
// change wakes the presenter's wait, a key does not; the other processes'
// counts add in while linked; Recall moves the question for everyone and
// travels with it.
func TestRoomSeats(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newPoll(func() time.Time { return now })
	a, b, c := p.Session(), p.Session(), p.Session()
	for _, s := range []uint64{a, b, c} {
		p.Here(s)
	}
	p.Seat(a, false, false)
	p.Seat(b, true, true)
	p.Seat(c, true, true)
	if got := p.State().Room; got != (RoomCounts{Following: 1, Own: 2}) {
		t.Fatalf("room %+v", got)
	}
	tg := p.State().TallyGen
	p.Seat(b, true, true) // a key: no change of place
	if p.State().TallyGen != tg {
		t.Error("a key woke the presenter")
	}
	now = now.Add(IdleAfter + time.Second)
	for _, s := range []uint64{a, b, c} {
		p.Here(s)
	}
	p.Seat(c, true, true)
	if got := p.State().Room; got != (RoomCounts{Following: 1, Own: 1, Idle: 1}) {
		t.Fatalf("after %s: room %+v", IdleAfter, got)
	}
	p.Gone(a)
	if got := p.State().Room; got.Following != 0 {
		t.Fatalf("a session gone still counts: %+v", got)
	}
	p.SetOthers(RoomCounts{Following: 10})
	if got := p.State().Room; got.Following != 0 {
		t.Fatalf("unlinked, the others' counts add in: %+v", got)
	}
	gen := p.State().Gen
	p.Recall()
	if st := p.State(); st.Recall != 1 || st.Gen == gen || p.Shared().Recall != 1 {
		t.Fatalf("recall: %+v", st)
	}
	q := newPoll(func() time.Time { return now })
	if err := q.Receive(p.Shared()); err != nil || q.State().Recall != 1 {
		t.Fatalf("the recall did not travel: %v %+v", err, q.State())
	}
}
