package stagelink

import (
	_ "embed"
	"encoding/json"
	"strconv"

	"github.com/redis/go-redis/v9"

	"inflight/tui"
)

// keys are the Redis names under the URL's key NAME.
type keys struct{ name, state, question, events string }

func newKeys(name string, db int) keys {
	k := keys{name: name, state: name + ":state", question: name + ":question", events: name + ":events"}
	if db != 0 {
		k.events += ":" + strconv.Itoa(db)
	}
	return k
}

func (k keys) answers(seq uint64) string { return k.name + ":answers:" + strconv.FormatUint(seq, 10) }
func (k keys) tally(seq uint64) string   { return k.name + ":tally:" + strconv.FormatUint(seq, 10) }

// envelope is every message on the channel and in the keys.
type envelope struct {
	V        int             `json:"v"`
	Proc     string          `json:"proc"`
	Kind     string          `json:"kind"` // state, question, tally, beat
	Rev      uint64          `json:"rev,omitempty"`
	State    *tui.StageState `json:"state,omitempty"`
	Question *tui.PollShared `json:"question,omitempty"`
	Tally    *tallyMsg       `json:"tally,omitempty"`
	Beat     *beatMsg        `json:"beat,omitempty"`
}

type tallyMsg struct {
	Seq    uint64 `json:"seq"`
	Counts []int  `json:"counts"`
}

type beatMsg struct {
	Waiting    int  `json:"waiting"`
	Presenting bool `json:"presenting,omitempty"`
}

// answerScript records one session's answer and publishes the new tally.
// It is the only writer of the two hashes, so the tally always matches
// the answers, and sending an answer twice changes nothing.
//
//go:embed answer.lua
var answerSrc string

var answerScript = redis.NewScript(answerSrc)

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
