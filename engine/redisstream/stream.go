// Package redisstream is a deterministic, pure-data model of one Redis
// stream key with its consumer groups, following Redis 7.0 semantics
// (checked against redis-server 7.0.15 by the differential test in this
// package, see docs/redis.md).
//
// A Stream is a plain value: slices only, no maps, no pointers into shared
// state, no goroutines and no wall clock. Every command that depends on time
// takes "now", a simulated time in milliseconds chosen by the caller; idle
// times are now minus the last delivery time. Clone deep-copies a Stream so
// that a simulator can checkpoint and fork worlds.
//
// Command semantics are those of the Redis documentation
// (https://redis.io/docs/latest/commands/) and, where the documentation is
// silent, of the server source (src/t_stream.c); comments name the rule.
package redisstream

import (
	"math"
	"slices"
)

// Field is one field-value pair of an entry, in the order given to XADD.
type Field struct {
	Name, Value string
}

// Entry is an entry as replied by XRANGE, XREADGROUP and XCLAIM.
//
// Deleted marks a pending entry whose stream entry was removed (XDEL):
// XREADGROUP with an explicit id replies it as [id, nil]; Fields is nil.
type Entry struct {
	ID      ID
	Fields  []Field
	Deleted bool
}

// PendingEntry is one row of the extended XPENDING form.
type PendingEntry struct {
	ID            ID
	Consumer      string
	Idle          int64 // ms since the last delivery, never negative
	DeliveryCount int64
}

// ConsumerPending is one consumer's line of the XPENDING summary.
type ConsumerPending struct {
	Name  string
	Count int64
}

// PendingSummary is the XPENDING summary form. With Count 0, Smallest and
// Largest are zero and Consumers is nil (Redis replies nil for all three).
type PendingSummary struct {
	Count             int64
	Smallest, Largest ID
	Consumers         []ConsumerPending // with at least one pending entry, by name
}

// PendingQuery holds the arguments of the extended XPENDING form:
// XPENDING key group [IDLE MinIdle] Start End Count [Consumer].
type PendingQuery struct {
	Start, End ID // inclusive; see RangeStart and RangeEnd for "-", "+", "("
	Count      int
	Consumer   string // "" for every consumer
	MinIdle    int64  // 0: no IDLE filter
}

// ClaimOptions are the optional arguments of XCLAIM.
type ClaimOptions struct {
	Idle       *int64 // IDLE ms: set the idle time instead of resetting it
	Time       *int64 // TIME ms: set the last delivery time (wins over Idle)
	RetryCount *int64 // RETRYCOUNT n: set the delivery count
	Force      bool   // FORCE: create missing pending entries for existing stream entries
	LastID     *ID    // LASTID id: raise the group's last-delivered-id
}

// AutoClaim is the reply of XAUTOCLAIM: [next-cursor, claimed, deleted-ids].
type AutoClaim struct {
	Next    ID      // where the next call should start; 0-0 when the scan reached the end
	Claimed []Entry // claimed entries (XAutoClaim)
	IDs     []ID    // claimed ids (XAutoClaimJustID)
	Deleted []ID    // pending ids whose entries no longer exist; purged from the PEL
}

// GroupInfo is part of an XINFO GROUPS row.
type GroupInfo struct {
	Name            string
	Consumers       int
	Pending         int
	LastDeliveredID ID
}

// ConsumerInfo is an XINFO CONSUMERS row (Redis 7.0 fields).
type ConsumerInfo struct {
	Name    string
	Pending int
	Idle    int64 // ms since the consumer was last seen (read or claim)
}

// Stream is one stream key: its entries, last generated id and consumer
// groups. The zero value is not usable; call New. The stream stands for a
// key that exists (as after XGROUP CREATE ... MKSTREAM or a first XADD):
// Redis keeps an emptied stream key, so it never disappears.
type Stream struct {
	key     string
	entries []stored // sorted by id
	lastID  ID       // top id ever added; XDEL does not lower it
	groups  []group  // sorted by name (byte order, like Redis's radix tree)
}

type stored struct {
	id     ID
	fields []Field // never mutated after XADD and never handed out
}

type group struct {
	name      string
	lastID    ID         // last-delivered-id
	consumers []consumer // sorted by name
	pel       []nack     // the group's pending entries list, sorted by id
}

type consumer struct {
	name     string
	seenTime int64
}

// nack is a pending entry: a delivered, not yet acknowledged id. Redis
// keeps it in the group PEL and in its owner's PEL; here the owner's PEL is
// the group PEL filtered by owner.
type nack struct {
	id           ID
	owner        string
	deliveryTime int64
	count        int64
}

// New returns an empty stream named key (the name appears in error replies).
func New(key string) *Stream { return &Stream{key: key} }

// Key is the stream's key name.
func (s *Stream) Key() string { return s.key }

// Clone returns a copy sharing no mutable state with s: later commands on
// either never show in the other.
//
// The entry list costs nothing to clone: stored entries are never changed
// in place (their field slices are never mutated nor handed out), XADD only
// appends, and XDEL builds a new list. The clone's view is capped at its
// length, so an append on either side never writes where the other reads.
// Groups, consumers and PELs are copied.
func (s *Stream) Clone() *Stream {
	c := &Stream{key: s.key, lastID: s.lastID}
	c.entries = s.entries[:len(s.entries):len(s.entries)]
	c.groups = make([]group, len(s.groups))
	for i, g := range s.groups {
		c.groups[i] = group{
			name:      g.name,
			lastID:    g.lastID,
			consumers: slices.Clone(g.consumers),
			pel:       slices.Clone(g.pel),
		}
	}
	return c
}

// ---------------------------------------------------------------------------
// Entries: XADD, XDEL, XLEN, XRANGE.

// XAdd appends an entry. id is "*" (generated from now, a time in ms),
// "<ms>-*" (sequence generated) or an explicit "<ms>-<seq>" / "<ms>".
//
// https://redis.io/docs/latest/commands/xadd/: a generated id takes the
// current time in ms, unless it is not greater than the top id's time, in
// which case it reuses that time and increments the sequence, so ids
// always increase. An explicit id must be greater than the top id (also
// when that entry was deleted) and greater than 0-0.
func (s *Stream) XAdd(id string, fields []Field, now int64) (ID, error) {
	if len(fields) == 0 {
		return ID{}, &Error{Kind: "ERR", Msg: "ERR wrong number of arguments for 'xadd' command"}
	}
	var newID ID
	if id == "*" {
		if s.lastID == MaxID {
			return ID{}, errExhausted
		}
		// streamNextID: max(now, last.ms), sequence 0 on a new ms.
		if now >= 0 && uint64(now) > s.lastID.Ms {
			newID = ID{uint64(now), 0}
		} else {
			newID, _ = s.lastID.Next()
		}
	} else {
		var seqGiven bool
		parsed, err := parseID(id, 0, true, &seqGiven)
		if err != nil {
			return ID{}, err
		}
		if seqGiven && parsed.IsZero() {
			return ID{}, &Error{Kind: "ERR", Msg: "ERR The ID specified in XADD must be greater than 0-0"}
		}
		if s.lastID == MaxID {
			return ID{}, errExhausted
		}
		newID = parsed
		if !seqGiven && parsed.Ms == s.lastID.Ms {
			// "<ms>-*" on the top id's ms: next sequence (streamAppendItem).
			if s.lastID.Seq == math.MaxUint64 {
				return ID{}, errTooSmall
			}
			newID = ID{parsed.Ms, s.lastID.Seq + 1}
		}
		if newID.Compare(s.lastID) <= 0 {
			return ID{}, errTooSmall
		}
	}
	s.entries = append(s.entries, stored{id: newID, fields: slices.Clone(fields)})
	s.lastID = newID
	return newID, nil
}

var (
	errTooSmall  = &Error{Kind: "ERR", Msg: "ERR The ID specified in XADD is equal or smaller than the target stream top item"}
	errExhausted = &Error{Kind: "ERR", Msg: "ERR The stream has exhausted the last possible ID, unable to add more items"}
)

// XDel removes entries and returns how many existed. Pending entries that
// refer to them stay in the PELs (https://redis.io/docs/latest/commands/xdel/).
func (s *Stream) XDel(ids ...ID) int {
	n := 0
	for _, id := range ids {
		if i, ok := s.find(id); ok {
			// A new list, never an in-place shift: clones share the old one.
			s.entries = slices.Concat(s.entries[:i], s.entries[i+1:])
			n++
		}
	}
	return n
}

// XLen is the number of entries.
func (s *Stream) XLen() int { return len(s.entries) }

// LastID is the stream's top id (last-generated-id), kept after XDEL.
func (s *Stream) LastID() ID { return s.lastID }

// XRange returns the entries with start <= id <= end, at most count of them
// when count > 0.
func (s *Stream) XRange(start, end ID, count int) []Entry {
	out := []Entry{}
	for i := s.lowerBound(start); i < len(s.entries) && s.entries[i].id.Compare(end) <= 0; i++ {
		if count > 0 && len(out) == count {
			break
		}
		out = append(out, s.entries[i].entry())
	}
	return out
}

func (e stored) entry() Entry { return Entry{ID: e.id, Fields: slices.Clone(e.fields)} }

// lowerBound is the index of the first entry with id >= id.
func (s *Stream) lowerBound(id ID) int {
	i, _ := slices.BinarySearchFunc(s.entries, id, func(e stored, t ID) int { return e.id.Compare(t) })
	return i
}

func (s *Stream) find(id ID) (int, bool) {
	return slices.BinarySearchFunc(s.entries, id, func(e stored, t ID) int { return e.id.Compare(t) })
}
