//go:build unix

package stagelink

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"inflight/stage"
)

// forgedMessages are what anyone who reaches the hall's Redis could
// publish: the question (a clipboard write, a screen clear,
// 50,000 right-to-left overrides, 20,000 choices), its smaller cousins,
// states whose codes or numbers no presenter sends, tallies and beats out
// of range.
func forgedMessages(t *testing.T) []string {
	t.Helper()
	hostile := "\x1b]52;c;ZXZpbA==\x07\x1b[2J" + strings.Repeat("\u202e", 50_000)
	many := make([]string, 20_000)
	for i := range many {
		many[i] = "\x1b[2J"
	}
	q := func(text string, choices []string) stage.PollShared {
		return stage.PollShared{Seq: 7, Open: true, Question: stage.PollQuestion{Incident: "thursday", Key: "5", Text: text, Choices: choices}}
	}
	var out []string
	add := func(e envelope) {
		e.V, e.Proc = version, "ff"
		b, err := json.Marshal(e)
		if err != nil || len(b) > maxMessage {
			t.Fatalf("forged message of %d bytes: %v", len(b), err)
		}
		out = append(out, string(b))
	}
	for _, pq := range []stage.PollShared{
		q(hostile, many),
		q(hostile, []string{"a", "b"}),
		q("which?", []string{"\x1b]0;pwned\x07", "b"}),
		q("which?", []string{"only one"}),
		q("which?", many[:6]),
	} {
		add(envelope{Kind: "question", Question: &pq})
	}
	for _, st := range []stage.State{
		{Code: "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;n1=%1b%5d52%3bc%3bZXZpbA%3d%3d%07"},
		{Code: "\x1b[2J"},
		{Code: sc("speed"), Speed: 7},
		{Code: sc("screen"), Screen: stage.Screen{Kind: "shell"}},
		{Code: sc("row"), Screen: stage.Screen{Kind: "branches", Row: -4}},
	} {
		add(envelope{Kind: "state", Rev: 99, State: &st})
	}
	add(envelope{Kind: "tally", Tally: &tallyMsg{Seq: 7, Counts: make([]int, 20_000)}})
	add(envelope{Kind: "tally", Tally: &tallyMsg{Seq: 7, Counts: []int{-5, 3}}})
	add(envelope{Kind: "beat", Beat: &beatMsg{Waiting: -1}})
	add(envelope{Kind: "beat", Beat: &beatMsg{Room: &stage.RoomCounts{Following: -3}}})
	add(envelope{Kind: "rm -rf"})
	return out
}

// TestForgedMessagesRefused publishes a flood of forged messages on the
// hall's channel and puts one in the keys a late process reads: none
// reaches the stage or the poll (no question opens, the stage keeps the
// presenter's state), the refusals are logged once for the flood, not
// once a message, and the presenter's next state and question still
// arrive. The channel delivers in order, so once B shows what A sent
// after the flood, B has refused the flood.
func TestForgedMessagesRefused(t *testing.T) {
	t.Parallel()
	r, a, b := twoProcs(t)
	a.stage.Arrive()
	a.stage.Publish(stage.State{Code: sc("before")})
	waitFor(t, "B follows", func() bool { return b.code() == sc("before") })

	raw := openRaw(t, r)
	defer raw.Close()
	forged := forgedMessages(t)
	start := time.Now()
	for range 20 {
		for _, m := range forged {
			if err := raw.Publish(t.Context(), "test:events", m).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.stage.Publish(stage.State{Code: sc("after")})
	waitFor(t, "B follows what comes after the flood", func() bool { return b.code() == sc("after") })
	elapsed := time.Since(start)
	if sh := b.stage.Poll().Shared(); sh.Seq != 0 || sh.Open {
		t.Fatalf("a forged question is up on B: %+v", sh)
	}
	logged := strings.Count(b.log.String(), "stage message refused")
	if most := 1 + int(elapsed/warnEvery); logged == 0 || logged > most {
		t.Errorf("%d refusals logged for %d forged messages in %s, want 1 to %d:\n%s", logged, 20*len(forged), elapsed, most, b.log.String())
	}
	if !b.online() {
		t.Error("the flood cost B its connection")
	}

	// a late process reads a forged question and state from the keys
	if err := raw.Set(t.Context(), "test:question", forged[0], 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.Set(t.Context(), "test:state", forged[5], 0).Err(); err != nil {
		t.Fatal(err)
	}
	c := openProc(t, redisURL(r), Options{})
	waitFor(t, "C online", c.online)
	waitFor(t, "C logs the refusal", func() bool { return strings.Contains(c.log.String(), "stage message refused") })
	if sh := c.stage.Poll().Shared(); sh.Seq != 0 || sh.Open {
		t.Fatalf("a forged question from the keys is up on C: %+v", sh)
	}
	if _, gen := c.stage.State(); gen != 0 {
		st, _ := c.stage.State()
		t.Fatalf("a forged state from the keys is on C's stage: %+v", st)
	}

	// the presenter's real question still reaches both
	seq := a.stage.Poll().Ask(stage.PollQuestion{Incident: "thursday", Key: "5", Text: "which?", Choices: []string{"x", "y"}, Answer: 1})
	waitFor(t, "B and C hear the real question", func() bool {
		return b.stage.Poll().Shared().Seq == seq && c.stage.Poll().Shared().Seq == seq
	})
}
