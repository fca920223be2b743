// Package fifo models an Amazon SQS FIFO queue: message groups that block
// while one of their messages is in flight, visibility timeouts and receive
// counts, and the MessageDeduplicationId memory whose five-minute window is
// the subject of the fifo-window incident.
//
// The model is a plain value: no goroutines, no clock (every operation takes
// the caller's time in int64 milliseconds), no randomness, and no decision
// taken by iterating a Go map. Clone gives an independent deep copy so the
// simulator can checkpoint and fork a world.
//
// Sources, cited again next to each rule:
//   - [DEDUP] https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/using-messagededuplicationid-property.html
//     and the SendMessage API reference (MessageDeduplicationId).
//   - [TERMS] https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-key-terms.html
//   - [GROUP] https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/using-messagegroupid-property.html
//     and https://repost.aws/knowledge-center/sqs-fifo-messages-not-returned
//   - [VIS] https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html
//   - [DLQ] https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
//   - [HT] https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/high-throughput-fifo.html
package fifo

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Defaults from the SQS documentation.
const (
	// DefaultVisibilityTimeout is SQS's queue default of 30 s [VIS].
	DefaultVisibilityTimeout int64 = 30_000
	// DefaultDedupInterval is the fixed 5-minute deduplication interval
	// [DEDUP]. Real SQS does not let you change it; the model does, so the
	// fifo-window incident can fork dedup_window=10m.
	DefaultDedupInterval int64 = 5 * 60_000
	// DefaultLookahead is how many messages at the front of the backlog a
	// receive inspects to find available groups: 20,000 in the AWS
	// knowledge-center article on FIFO messages not returned [GROUP].
	DefaultLookahead = 20_000
	// MaxVisibilityTimeout is the 12-hour ceiling [VIS].
	MaxVisibilityTimeout int64 = 12 * 3600_000
)

// DedupScope says which sends share a deduplication memory. It exists
// because high-throughput FIFO queues can scope deduplication to the
// message group instead of the whole queue [HT].
type DedupScope int

const (
	// ScopeQueue deduplicates across the whole queue (the default).
	ScopeQueue DedupScope = iota
	// ScopeMessageGroup deduplicates within each message group only.
	ScopeMessageGroup
)

// LateDelete says what DeleteMessage does with a receipt handle that is no
// longer the current lease. It is a knob because SQS documents it loosely:
// a stale handle "succeeds, but the message might not be deleted"
// (DeleteMessage API reference), and in practice it is sometimes refused.
// The simulator's standard queue has the same knob (late_ack).
type LateDelete int

const (
	// LateRefuse refuses a stale receipt handle with ErrReceiptHandleExpired
	// (the default).
	LateRefuse LateDelete = iota
	// LateAccept deletes the message anyway, even if another consumer holds
	// it now.
	LateAccept
)

// Config is a queue's attributes. Zero fields take the documented default.
type Config struct {
	// VisibilityTimeout in ms; 0 means DefaultVisibilityTimeout.
	VisibilityTimeout int64
	// DedupInterval in ms; 0 means DefaultDedupInterval.
	DedupInterval int64
	// ContentBasedDeduplication derives a missing deduplication id from
	// SHA-256 of the body [DEDUP].
	ContentBasedDeduplication bool
	// DedupScope is queue-wide by default [HT].
	DedupScope DedupScope
	// MaxReceiveCount > 0 enables a redrive policy: a message received that
	// many times whose lease then expires is moved to the DLQ [DLQ].
	MaxReceiveCount int
	// LateDelete decides stale receipt handles; LateRefuse by default.
	LateDelete LateDelete
	// Lookahead bounds how deep a receive looks for unblocked groups; 0
	// means DefaultLookahead.
	Lookahead int
}

func (c Config) withDefaults() Config {
	if c.VisibilityTimeout <= 0 {
		c.VisibilityTimeout = DefaultVisibilityTimeout
	}
	if c.DedupInterval <= 0 {
		c.DedupInterval = DefaultDedupInterval
	}
	if c.Lookahead <= 0 {
		c.Lookahead = DefaultLookahead
	}
	return c
}

// Errors returned by the queue. Their text follows the SQS error codes.
var (
	// ErrMissingDedupID is SQS's InvalidParameterValue when a send has no
	// deduplication id and content-based deduplication is off [DEDUP].
	ErrMissingDedupID = errors.New("InvalidParameterValue: the queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided")
	// ErrMissingGroupID is the error for a send without MessageGroupId,
	// which FIFO queues require [GROUP].
	ErrMissingGroupID = errors.New("MissingParameter: the request must contain the parameter MessageGroupId")
	// ErrReceiptHandleInvalid is ReceiptHandleIsInvalid: a handle this queue
	// never issued, or one whose message is already gone.
	ErrReceiptHandleInvalid = errors.New("ReceiptHandleIsInvalid")
	// ErrReceiptHandleExpired refuses a handle whose lease expired or was
	// superseded by a later receive (LateRefuse).
	ErrReceiptHandleExpired = errors.New("InvalidParameterValue: the receipt handle has expired")
	// ErrMessageNotInflight is ChangeMessageVisibility on a message that is
	// not in flight (API reference, ChangeMessageVisibility errors).
	ErrMessageNotInflight = errors.New("MessageNotInflight")
	// ErrInvalidVisibility is a visibility timeout outside 0..12 h [VIS].
	ErrInvalidVisibility = errors.New("InvalidParameterValue: visibility timeout out of range")
)

// State is where a message is in its life. It exists so the simulator can
// tell the ground truth apart from what a consumer can observe.
type State int

const (
	// Queued messages are waiting or in flight.
	Queued State = iota
	// Deleted messages were acknowledged by DeleteMessage.
	Deleted
	// DeadLettered messages were moved to the DLQ by the redrive policy.
	DeadLettered
)

// Message is one stored message and its delivery history. Seq is its
// position in the queue (SQS's SequenceNumber, increasing per queue).
type Message struct {
	Seq          int64
	ID           string // the MessageId SQS returns
	Group        string
	DedupID      string
	Body         string
	SentAt       int64
	ReceiveCount int
	// VisibleAt is the time the current lease ends; meaningful only once
	// ReceiveCount > 0. The message is in flight while now < VisibleAt.
	VisibleAt int64
	// ReceivedAt is the time of the latest receive.
	ReceivedAt int64
	// Handle is the receipt handle of the latest receive.
	Handle string
	State  State
	// EndedAt is when it was deleted or dead-lettered.
	EndedAt int64
}

func (m *Message) inflight(now int64) bool {
	return m.State == Queued && m.ReceiveCount > 0 && now < m.VisibleAt
}

// SendInput is one SendMessage request.
type SendInput struct {
	Group   string // MessageGroupId, required
	DedupID string // MessageDeduplicationId; may be empty with content-based dedup
	Body    string
}

// SendResult is what SendMessage answers. A duplicate gets the original's
// MessageId and SequenceNumber, as SQS does: the real response cannot tell a
// duplicate from a fresh send, so Duplicate is ground truth for the
// simulator, not something a producer could observe.
type SendResult struct {
	MessageID string
	Seq       int64
	Duplicate bool
}

// Delivery is one message handed out by ReceiveMessage.
type Delivery struct {
	MessageID    string
	Seq          int64
	Group        string
	DedupID      string
	Body         string
	Handle       string // ReceiptHandle, new for every receive
	ReceiveCount int    // ApproximateReceiveCount, including this receive
	SentAt       int64
}

type dedupEntry struct {
	key      string
	msg      int   // index into msgs of the message first accepted
	accepted int64 // first acceptance: the window runs from here
	until    int64 // accepted plus the interval in force then: forgotten from here
}

// Queue is one SQS FIFO queue. Create it with New.
type Queue struct {
	cfg  Config
	msgs []Message // every message ever accepted, by Seq-1
	head int       // msgs[:head] are all Deleted or DeadLettered
	// groups lists each group's queued messages (indices into msgs) in
	// send order; a group with none left is removed.
	groups map[string][]int
	// dedup is the deduplication memory. order holds the same entries in
	// acceptance order, so expiry never depends on map iteration.
	dedup      map[string]int // key -> index into order
	order      []dedupEntry
	orderStart int
	handles    map[string]int // receipt handle -> index into msgs
	dlq        []int
	duplicates int
}

// New returns an empty queue with cfg's attributes (zero fields defaulted).
func New(cfg Config) *Queue {
	return &Queue{
		cfg:     cfg.withDefaults(),
		groups:  map[string][]int{},
		dedup:   map[string]int{},
		handles: map[string]int{},
	}
}

// Config returns the queue's attributes with defaults filled in.
func (q *Queue) Config() Config { return q.cfg }

// Clone returns a deep copy sharing nothing mutable with q.
func (q *Queue) Clone() *Queue {
	c := *q
	c.msgs = append([]Message(nil), q.msgs...)
	c.groups = make(map[string][]int, len(q.groups))
	for g, ids := range q.groups {
		c.groups[g] = append([]int(nil), ids...)
	}
	c.dedup = make(map[string]int, len(q.dedup))
	for k, v := range q.dedup {
		c.dedup[k] = v
	}
	c.order = append([]dedupEntry(nil), q.order...)
	c.handles = make(map[string]int, len(q.handles))
	for k, v := range q.handles {
		c.handles[k] = v
	}
	c.dlq = append([]int(nil), q.dlq...)
	return &c
}

// dedupKey returns the key the memory is indexed by: the id, prefixed by
// the group when deduplication is scoped to message groups [HT].
func (q *Queue) dedupKey(in SendInput) string {
	if q.cfg.DedupScope == ScopeMessageGroup {
		return in.Group + "\x00" + in.DedupID
	}
	return in.DedupID
}

// expire forgets deduplication ids whose window has closed by now. The
// window is [accepted, until): at exactly until the id is no longer
// remembered. SQS documents "within the 5-minute interval" without saying
// which end is open; the model takes the half-open interval, so a window of
// 5 minutes is exactly 300,000 ms long. An entry keeps the expiry it was
// given at admission (SetDedupInterval), so after a change the entries are
// not in expiry order: the scan stops at the first one still remembered,
// and Send checks an entry's own expiry before calling a send a duplicate.
func (q *Queue) expire(now int64) {
	for q.orderStart < len(q.order) {
		e := q.order[q.orderStart]
		if now < e.until {
			break
		}
		if q.dedup[e.key] == q.orderStart {
			delete(q.dedup, e.key)
		}
		q.orderStart++
	}
	if q.orderStart > 1024 && q.orderStart*2 > len(q.order) {
		n := copy(q.order, q.order[q.orderStart:])
		q.order = q.order[:n]
		for i, e := range q.order {
			q.dedup[e.key] = i
		}
		q.orderStart = 0
	}
}

// SetDedupInterval changes the deduplication interval (ms, at least 1) for
// ids admitted from now on. Real SQS fixes the interval; the model lets a
// fork change it, and reads "a window is an admission" literally: an id
// already remembered keeps the expiry it was given when it was admitted,
// and an id already forgotten stays forgotten.
func (q *Queue) SetDedupInterval(ms int64) {
	q.cfg.DedupInterval = max(ms, 1)
}

// Send is SendMessage. A send whose deduplication id was first accepted
// less than DedupInterval ago (the interval in force at that acceptance)
// is accepted but not delivered, whatever has
// become of the original since (received, deleted) [DEDUP][TERMS]. A
// duplicate does not extend the window: it runs from the first acceptance.
// Calls must come in nondecreasing time.
func (q *Queue) Send(now int64, in SendInput) (SendResult, error) {
	if in.Group == "" {
		return SendResult{}, ErrMissingGroupID
	}
	if in.DedupID == "" {
		if !q.cfg.ContentBasedDeduplication {
			return SendResult{}, ErrMissingDedupID
		}
		// SHA-256 of the body, not the attributes [DEDUP].
		sum := sha256.Sum256([]byte(in.Body))
		in.DedupID = hex.EncodeToString(sum[:])
	}
	q.expire(now)
	key := q.dedupKey(in)
	if i, ok := q.dedup[key]; ok && now < q.order[i].until {
		orig := &q.msgs[q.order[i].msg]
		q.duplicates++
		return SendResult{MessageID: orig.ID, Seq: orig.Seq, Duplicate: true}, nil
	}
	seq := int64(len(q.msgs)) + 1
	m := Message{
		Seq:     seq,
		ID:      fmt.Sprintf("m-%d", seq),
		Group:   in.Group,
		DedupID: in.DedupID,
		Body:    in.Body,
		SentAt:  now,
	}
	idx := len(q.msgs)
	q.msgs = append(q.msgs, m)
	q.groups[in.Group] = append(q.groups[in.Group], idx)
	q.dedup[key] = len(q.order)
	q.order = append(q.order, dedupEntry{key: key, msg: idx, accepted: now, until: now + q.cfg.DedupInterval})
	return SendResult{MessageID: m.ID, Seq: seq}, nil
}
