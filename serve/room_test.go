package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"inflight/stage"
)

// TestRoomSeesTheTeachingPoint: a presenter at 120×40, a follower at
// 80×24 and an attendee on their own explorer, over SSH. The presenter
// opens order 14's life story at 19:53:30: the follower's screen cuts it,
// and j scrolls the follower's own view down to its last line while it
// stays on the stage. The presenter asks question 5 and reveals it: the
// follower reads the room's tally, in attendees, and the lesson's
// explanation; the answers file and the log hold the reveal.
func TestRoomSeesTheTeachingPoint(t *testing.T) {
	pk := newKey(t)
	file := filepath.Join(t.TempDir(), "answers.jsonl")
	s := startServer(t, Config{PresenterKeys: writeKeys(t, pk), Answers: file}, nil)
	title, _ := thursday(t)
	pres := mustTerm(t, mustDial(t, s.addr, "pat", pk), 120, 40)
	pres.mustSee(t, wait, title)
	fol := mustTerm(t, mustDial(t, s.addr, "follow", newKey(t)), 80, 24)
	fol.mustSee(t, wait, "FOLLOWING", "following the presenter")
	own := mustTerm(t, mustDial(t, s.addr, "own", newKey(t)), 100, 30)
	own.mustSee(t, wait, title)

	pres.keys(t, "/", "1", "9", ":", "5", "3", ":", "3", "0", keyEnter)
	pres.mustSee(t, wait, "19:53:30")
	pres.keys(t, keyEnter)
	pres.mustSee(t, wait, "Life story of order 14", "19:53:35.724")
	g := fol.settled(t, 80, 24, "Life story of order 14", "FOLLOWING", "↑↓/jk scroll")
	if strings.Contains(g, "19:53:35.724") {
		t.Fatalf("the follower's screen holds the story's end before scrolling: the test shows nothing\n%s", g)
	}
	for range 30 {
		fol.send("j")
	}
	g = fol.settled(t, 80, 24, "FOLLOWING", "expired 5.724 s ago")
	lines := strings.Split(g, "\n")
	for i, l := range lines {
		if strings.Contains(l, "expired 5.724 s ago") {
			if i+1 >= len(lines) || !strings.Contains(lines[i+1], "◆ the broker and a late ack for order 14") {
				t.Fatalf("the story's last line is not on the follower's screen:\n%s", g)
			}
		}
	}
	if !strings.Contains(g, "Life story of order 14") {
		t.Fatalf("j took the follower off the stage:\n%s", g)
	}

	pres.keys(t, "\x1b", "e")
	pres.mustSee(t, wait, "a: ask the room")
	pres.send("5")
	pres.mustSee(t, wait, "Asking the room")
	fol.mustSee(t, wait, "The presenter asks")
	own.mustSee(t, wait, "The presenter asks")
	fol.send("b")
	fol.mustSee(t, wait, "your answer: b")
	own.send("c")
	own.mustSee(t, wait, "your answer: c")
	pres.mustSee(t, wait, "2 attendees answered · 0 not yet")
	pres.send(keyEnter)
	pres.mustSee(t, wait, "The answer is b. 1 of 2 attendees answered it.")
	fol.settled(t, 80, 24, "Right: the answer is b.", "1 of 2 attendees answered b.", "It refuses it: box B's lease ended at 19:52:30")
	own.settled(t, 100, 30, "You answered c; the answer is b.", "1 of 2 attendees answered b.", "It refuses it: box B's lease ended at 19:52:30")

	var rec stage.Revealed
	waitUntil(t, func() bool {
		b, err := os.ReadFile(file)
		return err == nil && json.Unmarshal(b, &rec) == nil
	})
	if rec.Incident != "thursday" || rec.Key != "5" || rec.Answer != 1 || len(rec.Counts) != 3 ||
		rec.Counts[1] != 1 || rec.Counts[2] != 1 || rec.Answered != 2 || rec.Attendees != 2 {
		t.Fatalf("the answers file holds %+v", rec)
	}
	if l := s.logs.String(); !strings.Contains(l, "reveal") || !strings.Contains(l, "counts=\"a=0 b=1 c=1\"") {
		t.Fatalf("no reveal in the log:\n%s", l)
	}
	for _, tm := range []*term{fol, own, pres} {
		tm.send("\x03")
		tm.ended(wait)
	}
}

// TestRoomViewOverSSH: the presenter's r shows the room by state — a
// follower, an attendee on their own copy — and counts the follower who
// leaves the stage as on their own copy; F calls both back to the stage,
// where they follow again.
func TestRoomViewOverSSH(t *testing.T) {
	pk := newKey(t)
	s := startServer(t, Config{PresenterKeys: writeKeys(t, pk)}, nil)
	title, _ := thursday(t)
	pres := mustTerm(t, mustDial(t, s.addr, "pat", pk), 120, 40)
	pres.mustSee(t, wait, title)
	fol := mustTerm(t, mustDial(t, s.addr, "follow", newKey(t)), 80, 24)
	fol.mustSee(t, wait, "FOLLOWING")
	own := mustTerm(t, mustDial(t, s.addr, "own", newKey(t)), 100, 30)
	own.mustSee(t, wait, title)

	pres.send("r")
	pres.settled(t, 120, 40, "The room", "2 attendees connected", "1  following", "1  own copy", "0  idle", "0  answered")
	fol.send("l") // a move key: the follower leaves the stage
	fol.settledWithout(t, 80, 24, []string{"FOLLOWING"}, title)
	pres.settled(t, 120, 40, "0  following", "2  own copy")
	pres.send("F")
	pres.settled(t, 120, 40, "2  following", "0  own copy", "called every attendee back to the stage")
	fol.settled(t, 80, 24, "FOLLOWING", "following the presenter")
	own.settled(t, 100, 30, "FOLLOWING", "following the presenter")
	own.send("b") // its own branches are still its own
	own.settled(t, 100, 30, "Branches", "enter switches")
	for _, tm := range []*term{fol, own, pres} {
		tm.send("\x03")
		tm.ended(wait)
	}
}
