package stagelink

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"inflight/internal/termtext"
	"inflight/stage"
)

// keys are the Redis names under the URL's key NAME.
type keys struct{ name, state, question, presenter, events string }

func newKeys(name string, db int) keys {
	k := keys{name: name, state: name + ":state", question: name + ":question", presenter: name + ":presenter", events: name + ":events"}
	if db != 0 {
		k.events += ":" + strconv.Itoa(db)
	}
	return k
}

func (k keys) answers(seq uint64) string { return k.name + ":answers:" + strconv.FormatUint(seq, 10) }
func (k keys) tally(seq uint64) string   { return k.name + ":tally:" + strconv.FormatUint(seq, 10) }

// envelope is every message on the channel and in the keys.
type envelope struct {
	V        int               `json:"v"`
	Proc     string            `json:"proc"`
	Kind     string            `json:"kind"` // state, question, tally, beat
	Rev      uint64            `json:"rev,omitempty"`
	State    *stage.State      `json:"state,omitempty"`
	Question *stage.PollShared `json:"question,omitempty"`
	Tally    *tallyMsg         `json:"tally,omitempty"`
	Beat     *beatMsg          `json:"beat,omitempty"`
}

type tallyMsg struct {
	Seq    uint64 `json:"seq"`
	Counts []int  `json:"counts"`
}

type beatMsg struct {
	Waiting    int               `json:"waiting"`
	Presenting bool              `json:"presenting,omitempty"`
	Room       *stage.RoomCounts `json:"room,omitempty"` // its sessions by state
}

// answerScript records one session's answer and publishes the new tally.
// It is the only writer of the two hashes, so the tally always matches
// the answers, and sending an answer twice changes nothing.
//
//go:embed answer.lua
var answerSrc string

var answerScript = redis.NewScript(answerSrc)

// releaseSrc deletes NAME:presenter if this process (ARGV[1]) holds it:
// the presenter may already have arrived on another. It runs rarely (a
// presenter leaving), so it is sent whole rather than loaded.
const releaseSrc = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

// decode reads a message, refusing (and logging) what no process of
// this version could have sent.
func (l *Link) decode(b []byte) (envelope, bool) {
	var e envelope
	if len(b) > maxMessage {
		l.warn("stage message refused: too big", "bytes", len(b), "max", maxMessage)
		return e, false
	}
	if err := json.Unmarshal(b, &e); err != nil {
		l.warn("stage message refused", "err", err)
		return e, false
	}
	if e.V != version {
		l.warn("stage message refused: another version", "version", e.V, "want", version)
		return e, false
	}
	if err := e.check(); err != nil {
		l.warn("stage message refused", "kind", e.Kind, "err", err)
		return e, false
	}
	return e, true
}

// Bounds on the counts a tally or a beat carries: far above any room.
const maxCount = 1 << 20

// check refuses a message no process of this version sends, before any of
// it reaches the stage: an unknown kind, a state or question the stage
// refuses (stage.State.Check, stage.PollShared.Check: codes that parse,
// numbers in range, a question's 2–5 choices of plain text), a tally
// that is no question's, a beat's count out of range.
func (e envelope) check() error {
	switch {
	case len(e.Proc) == 0 || len(e.Proc) > 64:
		return fmt.Errorf("sender %d bytes long", len(e.Proc))
	case e.Kind == "state" && e.State != nil:
		return e.State.Check()
	case e.Kind == "question" && e.Question != nil:
		return e.Question.Check()
	case e.Kind == "tally" && e.Tally != nil:
		return checkTally(e.Tally.Counts)
	case e.Kind == "beat" && e.Beat != nil:
		if e.Beat.Waiting < 0 || e.Beat.Waiting > maxCount {
			return fmt.Errorf("%d waiting", e.Beat.Waiting)
		}
		if r := e.Beat.Room; r != nil && (min(r.Following, r.Own, r.Idle) < 0 || max(r.Following, r.Own, r.Idle) > maxCount) {
			return fmt.Errorf("a room of %d following, %d own, %d idle", r.Following, r.Own, r.Idle)
		}
		return nil
	}
	return fmt.Errorf("kind %q without its body", termtext.Clean(e.Kind, termtext.Quote))
}

// checkTally refuses counts that are not a question's: 2 to 5 choices
// (the stage's bound), none negative or past maxCount.
func checkTally(counts []int) error {
	if n := len(counts); n < 2 || n > 5 {
		return fmt.Errorf("a tally of %d choices", n)
	}
	for _, c := range counts {
		if c < 0 || c > maxCount {
			return fmt.Errorf("a count of %d", c)
		}
	}
	return nil
}

// encode marshals e, refusing (and logging) one over maxMessage: the
// others would refuse it too.
func (l *Link) encode(e envelope) ([]byte, bool) {
	b, err := json.Marshal(e)
	if err == nil && len(b) <= maxMessage {
		return b, true
	}
	if err == nil {
		l.log.Error("stage message not sent: too big", "kind", e.Kind, "bytes", len(b), "max", maxMessage)
	} else {
		l.log.Error("stage message not sent", "kind", e.Kind, "err", err)
	}
	return nil, false
}
