package tui

import (
	"strings"
	"testing"

	"inflight/stage"
)

// nopLink is a link that carries nothing anywhere.
type nopLink struct{}

func (nopLink) Publish(stage.State)               {}
func (nopLink) Question(stage.PollShared)         {}
func (nopLink) Answer(seq, session uint64, c int) {}

func TestOfflineStageSaysSo(t *testing.T) {
	s := NewStage()
	p := newTest(t, Options{Stage: s, Presenter: true}, 120, 40)
	p = press(p, "]")
	f := newTest(t, Options{Stage: s, Follow: true}, 100, 30)
	f, wait := sync1(t, f, f.Init())
	if contains(followerView(f), "link down") {
		t.Fatal("said lost while online")
	}
	s.SetOnline(false)
	f, wait = sync1(t, f, wait)
	if !contains(followerView(f), "stage link down: the stage stopped reaching this server at 19:52:00") {
		t.Fatalf("an offline stage does not say so:\n%s", followerView(f))
	}
	s.SetOnline(true) // a Redis back empty: nothing heard yet
	f, wait = sync1(t, f, wait)
	if !contains(words(followerView(f)), "stage link back, nothing heard from the presenter's server yet: the stage stays at 19:52:00 until it is") {
		t.Fatalf("back before the presenter's state, the follower is not told it waits:\n%s", followerView(f))
	}
	heard, _ := s.State()
	if err := s.Receive(heard); err != nil {
		t.Fatal(err)
	}
	f, wait = sync1(t, f, wait)
	if contains(followerView(f), "link down") || !contains(followerView(f), "stage link back: caught up from 19:52:00 to 19:52:00") {
		t.Fatalf("still says lost once back, or not that it is back:\n%s", followerView(f))
	}
	// a stage stopped while it played (its presenter gone) says paused
	p = press(p, "space")
	f, wait = sync1(t, f, wait)
	if !contains(followerView(f), "▶ playing") {
		t.Fatalf("the follower does not show the stage playing:\n%s", followerView(f))
	}
	s.Lost()
	f, _ = sync1(t, f, wait)
	if !contains(followerView(f), "presenter is away") || !contains(followerView(f), "⏸ paused") {
		t.Fatalf("a stopped stage is not shown paused:\n%s", followerView(f))
	}
	f.Release()
	p.Release()
}

// The presenter is told when the stage's link is down (followers on the
// other servers no longer see the stage, the tally is this server's),
// and no longer once it is back.
func TestPresenterToldTheLinkIsDown(t *testing.T) {
	pres, _, st := room(t, 0, 100, 30)
	st.Link(nopLink{})
	const lost = "stage link down: followers on other servers cannot see the stage (the room is split)"
	if v := pres.View(); strings.Contains(v, "link down") {
		t.Fatalf("online, the presenter is told it is lost:\n%s", v)
	}
	st.SetOnline(false)
	select {
	case <-st.Poll().TallyChanged(pres.exercises.room.gen):
	default:
		t.Fatal("the presenter's wait on the poll was not woken")
	}
	pres = synced(pres)
	if v := strings.Join(strings.Fields(pres.View()), " "); !strings.Contains(v, lost) || strings.Contains(v, "this server only") {
		t.Fatalf("offline, the presenter is not told (or told of a tally with no question up):\n%s", v)
	}
	pres = press(pres, "e", "5") // asks the room
	pres = synced(pres)
	if v := pres.View(); !strings.Contains(strings.Join(strings.Fields(v), " "), "the tally counts this server only") {
		t.Fatalf("with a question up, the presenter is not told whose tally it sees:\n%s", v)
	}
	st.SetOnline(true)
	pres = synced(pres)
	if v := pres.View(); strings.Contains(v, "link down") || strings.Contains(v, "this server only") ||
		!strings.Contains(strings.Join(strings.Fields(v), " "), "stage link back: followers on other servers see the stage again") {
		t.Fatalf("back online, the presenter is still told it is lost, or not that it is back:\n%s", v)
	}
	pres.Release()
}
