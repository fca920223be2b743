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
	"strings"
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

// ---------------------------------------------------------------------------
// Groups and consumers: XGROUP.

func (s *Stream) group(name string) *group {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g group, n string) int { return strings.Compare(g.name, n) })
	if !ok {
		return nil
	}
	return &s.groups[i]
}

func (g *group) consumer(name string) *consumer {
	i, ok := slices.BinarySearchFunc(g.consumers, name, func(c consumer, n string) int { return strings.Compare(c.name, n) })
	if !ok {
		return nil
	}
	return &g.consumers[i]
}

// ensureConsumer looks a consumer up, creating it (seen now) if missing, as
// XREADGROUP, XCLAIM and XAUTOCLAIM do. It reports whether it created it.
func (g *group) ensureConsumer(name string, now int64) (*consumer, bool) {
	i, ok := slices.BinarySearchFunc(g.consumers, name, func(c consumer, n string) int { return strings.Compare(c.name, n) })
	if ok {
		return &g.consumers[i], false
	}
	g.consumers = slices.Insert(g.consumers, i, consumer{name: name, seenTime: now})
	return &g.consumers[i], true
}

func (g *group) pelIndex(id ID) (int, bool) {
	return slices.BinarySearchFunc(g.pel, id, func(n nack, t ID) int { return n.id.Compare(t) })
}

func (g *group) pendingOf(owner string) int {
	n := 0
	for _, p := range g.pel {
		if p.owner == owner {
			n++
		}
	}
	return n
}

func noGroupForKey(key, grp string) error {
	return &Error{Kind: "NOGROUP", Msg: "NOGROUP No such consumer group '" + grp + "' for key name '" + key + "'"}
}

func noKeyOrGroup(key, grp, suffix string) error {
	return &Error{Kind: "NOGROUP", Msg: "NOGROUP No such key '" + key + "' or consumer group '" + grp + "'" + suffix}
}

// XGroupCreate creates a group whose last-delivered-id is id: "$" for the
// stream's top id, or an explicit id ("0" to deliver the whole stream).
// https://redis.io/docs/latest/commands/xgroup-create/
func (s *Stream) XGroupCreate(name, id string) error {
	var last ID
	if id == "$" {
		last = s.lastID
	} else {
		var err error
		if last, err = ParseID(id); err != nil {
			return err
		}
	}
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g group, n string) int { return strings.Compare(g.name, n) })
	if ok {
		return &Error{Kind: "BUSYGROUP", Msg: "BUSYGROUP Consumer Group name already exists"}
	}
	s.groups = slices.Insert(s.groups, i, group{name: name, lastID: last})
	return nil
}

// XGroupSetID sets a group's last-delivered-id ("$" for the top id; "-" and
// "+" are accepted here). Pending entries are kept.
// https://redis.io/docs/latest/commands/xgroup-setid/
func (s *Stream) XGroupSetID(name, id string) error {
	g := s.group(name)
	if g == nil {
		return noGroupForKey(s.key, name)
	}
	if id == "$" {
		g.lastID = s.lastID
		return nil
	}
	last, err := parseID(id, 0, false, nil)
	if err != nil {
		return err
	}
	g.lastID = last
	return nil
}

// XGroupDestroy removes a group with its consumers and PEL; it returns 1,
// or 0 if there was no such group.
func (s *Stream) XGroupDestroy(name string) int {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g group, n string) int { return strings.Compare(g.name, n) })
	if !ok {
		return 0
	}
	s.groups = slices.Delete(s.groups, i, i+1)
	return 1
}

// XGroupCreateConsumer creates a consumer; it returns 1, or 0 if it existed.
// https://redis.io/docs/latest/commands/xgroup-createconsumer/
func (s *Stream) XGroupCreateConsumer(grp, name string, now int64) (int, error) {
	g := s.group(grp)
	if g == nil {
		return 0, noGroupForKey(s.key, grp)
	}
	if _, created := g.ensureConsumer(name, now); created {
		return 1, nil
	}
	return 0, nil
}

// XGroupDelConsumer deletes a consumer and its pending entries (they are
// lost, not handed to anyone) and returns how many it had.
// https://redis.io/docs/latest/commands/xgroup-delconsumer/
func (s *Stream) XGroupDelConsumer(grp, name string) (int, error) {
	g := s.group(grp)
	if g == nil {
		return 0, noGroupForKey(s.key, grp)
	}
	i, ok := slices.BinarySearchFunc(g.consumers, name, func(c consumer, n string) int { return strings.Compare(c.name, n) })
	if !ok {
		return 0, nil
	}
	n := 0
	g.pel = slices.DeleteFunc(g.pel, func(p nack) bool {
		if p.owner == name {
			n++
			return true
		}
		return false
	})
	g.consumers = slices.Delete(g.consumers, i, i+1)
	return n, nil
}

// ---------------------------------------------------------------------------
// Reading: XREADGROUP.

// XReadGroup is XREADGROUP GROUP grp consumer [COUNT count] STREAMS key id
// for this one stream; count <= 0 means no COUNT. The consumer is created
// if missing. https://redis.io/docs/latest/commands/xreadgroup/
//
// id ">" hands out entries never delivered to the group (ids above its
// last-delivered-id), adds a pending entry for each (owner consumer,
// delivered now, delivery count 1) and advances last-delivered-id. When
// there is nothing new Redis replies nil: the result is then a nil slice.
//
// Any other id reads the consumer's own history: its pending entries with
// ids greater than id, in id order, at most count. Each one's delivery count
// goes up by one and its delivery time becomes now. A pending entry whose
// stream entry was deleted comes back as {ID, Deleted: true} (Redis: [id,
// nil]) with count and time unchanged. The result is then never nil (Redis
// replies the stream with an empty array when there is no history).
func (s *Stream) XReadGroup(grp, consumerName string, count int, id string, now int64) ([]Entry, error) {
	// Redis looks the group up before it reads the id (xreadCommand).
	g := s.group(grp)
	if g == nil {
		return nil, noKeyOrGroup(s.key, grp, " in XREADGROUP with GROUP option")
	}
	var after ID
	history := id != ">"
	if history {
		if id == "$" { // ("+" is refused as an invalid id in 7.0.)
			return nil, &Error{Kind: "ERR", Msg: "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."}
		}
		var err error
		if after, err = ParseID(id); err != nil {
			return nil, err
		}
		// Redis encodes ">" as the largest id, so that explicit id is ">".
		history = after != MaxID
	}
	// The consumer is created (or refreshed) when the read is served: a
	// history read always is; a ">" read only when there is something new
	// (Redis 7.0 xreadCommand; 7.2 creates it in every case).
	if history || s.hasNewFor(g) {
		c, _ := g.ensureConsumer(consumerName, now)
		c.seenTime = now
	}

	if history {
		out := []Entry{}
		start, ok := after.Next()
		if !ok {
			start = ID{} // streamIncrID wraps; unreachable, MaxID is ">"
		}
		i, _ := g.pelIndex(start)
		for ; i < len(g.pel) && (count <= 0 || len(out) < count); i++ {
			p := &g.pel[i]
			if p.owner != consumerName {
				continue
			}
			if j, ok := s.find(p.id); ok {
				p.deliveryTime = now
				p.count++
				out = append(out, s.entries[j].entry())
			} else {
				out = append(out, Entry{ID: p.id, Deleted: true})
			}
		}
		return out, nil
	}

	// New entries: served only if the last existing entry is after the
	// group's last-delivered-id; otherwise the reply is nil.
	if !s.hasNewFor(g) {
		return nil, nil
	}
	var out []Entry
	for i := s.lowerBound(g.lastID); i < len(s.entries) && (count <= 0 || len(out) < count); i++ {
		e := s.entries[i]
		if e.id.Compare(g.lastID) <= 0 {
			continue
		}
		g.lastID = e.id
		// If the id is already pending (possible after XGROUP SETID moved
		// last-delivered-id back) Redis hands it to this consumer with a
		// fresh delivery count of 1 (streamReplyWithRange).
		if j, ok := g.pelIndex(e.id); ok {
			g.pel[j] = nack{id: e.id, owner: consumerName, deliveryTime: now, count: 1}
		} else {
			g.pel = slices.Insert(g.pel, j, nack{id: e.id, owner: consumerName, deliveryTime: now, count: 1})
		}
		out = append(out, e.entry())
	}
	return out, nil
}

// hasNewFor reports whether the last existing entry is after the group's
// last-delivered-id.
func (s *Stream) hasNewFor(g *group) bool {
	return len(s.entries) > 0 && s.entries[len(s.entries)-1].id.Compare(g.lastID) > 0
}

// ---------------------------------------------------------------------------
// Acknowledging and inspecting: XACK, XPENDING, XINFO.

// XAck removes ids from the group's PEL and returns how many were pending
// (https://redis.io/docs/latest/commands/xack/). A pending entry whose
// stream entry was deleted is acknowledged like any other. Like Redis, a
// missing group acknowledges nothing and is not an error.
func (s *Stream) XAck(grp string, ids ...ID) int {
	g := s.group(grp)
	if g == nil {
		return 0
	}
	n := 0
	for _, id := range ids {
		if i, ok := g.pelIndex(id); ok {
			g.pel = slices.Delete(g.pel, i, i+1)
			n++
		}
	}
	return n
}

// XPending is the summary form XPENDING key group: the number of pending
// entries, the smallest and largest pending id and, for every consumer with
// pending entries, how many it has. https://redis.io/docs/latest/commands/xpending/
func (s *Stream) XPending(grp string) (PendingSummary, error) {
	g := s.group(grp)
	if g == nil {
		return PendingSummary{}, noKeyOrGroup(s.key, grp, "")
	}
	sum := PendingSummary{Count: int64(len(g.pel))}
	if len(g.pel) == 0 {
		return sum, nil
	}
	sum.Smallest, sum.Largest = g.pel[0].id, g.pel[len(g.pel)-1].id
	sum.Consumers = []ConsumerPending{}
	for _, c := range g.consumers {
		if n := g.pendingOf(c.name); n > 0 {
			sum.Consumers = append(sum.Consumers, ConsumerPending{Name: c.name, Count: int64(n)})
		}
	}
	return sum, nil
}

// XPendingRange is the extended form XPENDING key group [IDLE min-idle]
// start end count [consumer]: pending entries with start <= id <= end, at
// most count (count <= 0 gives none), of one consumer if named (an unknown
// consumer gives none), idle at least MinIdle if MinIdle != 0.
func (s *Stream) XPendingRange(grp string, q PendingQuery, now int64) ([]PendingEntry, error) {
	g := s.group(grp)
	if g == nil {
		return nil, noKeyOrGroup(s.key, grp, "")
	}
	out := []PendingEntry{}
	if q.Consumer != "" && g.consumer(q.Consumer) == nil {
		return out, nil
	}
	i, _ := g.pelIndex(q.Start)
	for ; i < len(g.pel) && len(out) < q.Count && g.pel[i].id.Compare(q.End) <= 0; i++ {
		p := g.pel[i]
		if q.Consumer != "" && p.owner != q.Consumer {
			continue
		}
		idle := now - p.deliveryTime
		if q.MinIdle != 0 && idle < q.MinIdle {
			continue
		}
		out = append(out, PendingEntry{ID: p.id, Consumer: p.owner, Idle: max(idle, 0), DeliveryCount: p.count})
	}
	return out, nil
}

// XInfoGroups lists the groups by name (part of XINFO GROUPS: the 7.0
// entries-read and lag fields are not modelled).
func (s *Stream) XInfoGroups() []GroupInfo {
	out := make([]GroupInfo, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, GroupInfo{Name: g.name, Consumers: len(g.consumers), Pending: len(g.pel), LastDeliveredID: g.lastID})
	}
	return out
}

// XInfoConsumers lists a group's consumers by name (XINFO CONSUMERS).
func (s *Stream) XInfoConsumers(grp string, now int64) ([]ConsumerInfo, error) {
	g := s.group(grp)
	if g == nil {
		return nil, noGroupForKey(s.key, grp)
	}
	out := make([]ConsumerInfo, 0, len(g.consumers))
	for _, c := range g.consumers {
		out = append(out, ConsumerInfo{Name: c.name, Pending: g.pendingOf(c.name), Idle: max(now-c.seenTime, 0)})
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Claiming: XCLAIM, XAUTOCLAIM.

// XClaim is XCLAIM key grp consumer min-idle id... [options]: each id that
// is pending and idle at least minIdle (any, when minIdle <= 0) passes to
// consumer (created if missing) with its idle time reset (or set by
// IDLE/TIME) and its delivery count up by one (or set by RETRYCOUNT).
// A pending id whose stream entry was deleted is removed from the PEL and
// not returned. Ids neither pending nor forced are ignored.
// https://redis.io/docs/latest/commands/xclaim/
func (s *Stream) XClaim(grp, consumerName string, minIdle int64, ids []ID, opt ClaimOptions, now int64) ([]Entry, error) {
	var out []Entry
	err := s.claim(grp, consumerName, minIdle, ids, opt, false, now, func(e stored) { out = append(out, e.entry()) })
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []Entry{}
	}
	return out, nil
}

// XClaimJustID is XCLAIM ... JUSTID: like XClaim but replies ids only and
// does not increment delivery counts.
func (s *Stream) XClaimJustID(grp, consumerName string, minIdle int64, ids []ID, opt ClaimOptions, now int64) ([]ID, error) {
	out := []ID{}
	err := s.claim(grp, consumerName, minIdle, ids, opt, true, now, func(e stored) { out = append(out, e.id) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Stream) claim(grp, consumerName string, minIdle int64, ids []ID, opt ClaimOptions, justID bool, now int64, emit func(stored)) error {
	g := s.group(grp)
	if g == nil {
		return noKeyOrGroup(s.key, grp, "")
	}
	if opt.LastID != nil && opt.LastID.Compare(g.lastID) > 0 {
		g.lastID = *opt.LastID
	}
	// IDLE/TIME: a bogus delivery time (negative or in the future) becomes
	// now (xclaimCommand).
	deliveryTime := now
	if opt.Time != nil {
		deliveryTime = *opt.Time
	} else if opt.Idle != nil {
		deliveryTime = now - *opt.Idle
	}
	if deliveryTime < 0 || deliveryTime > now {
		deliveryTime = now
	}
	// Redis 7.0 creates (or refreshes) the consumer only when it claims an
	// entry; 7.2 does it up front.
	claimant := func() {
		c, _ := g.ensureConsumer(consumerName, now)
		c.seenTime = now
	}
	for _, id := range ids {
		pi, pending := g.pelIndex(id)
		ei, exists := s.find(id)
		if !exists {
			// Since Redis 7.0 a pending id whose entry is gone is dropped.
			if pending {
				g.pel = slices.Delete(g.pel, pi, pi+1)
			}
			continue
		}
		forced := false
		if !pending {
			if !opt.Force {
				continue
			}
			// FORCE creates the pending entry (delivery count 1, no
			// owner, so min-idle does not apply) before claiming it.
			g.pel = slices.Insert(g.pel, pi, nack{id: id, deliveryTime: now, count: 1})
			forced = true
		}
		if !forced && minIdle > 0 && now-g.pel[pi].deliveryTime < minIdle {
			continue
		}
		claimant()
		p := &g.pel[pi]
		p.deliveryTime = deliveryTime
		switch {
		case opt.RetryCount != nil && *opt.RetryCount >= 0:
			p.count = *opt.RetryCount
		case !justID:
			p.count++
		}
		p.owner = consumerName
		emit(s.entries[ei])
	}
	return nil
}

// DefaultAutoClaimCount is XAUTOCLAIM's COUNT when none is given.
const DefaultAutoClaimCount = 100

// XAutoClaim is XAUTOCLAIM key grp consumer min-idle start [COUNT count]:
// it scans the group's PEL from start (count 0 means the default, 100) and
// claims, like XCLAIM, entries idle at least minIdle, until it has claimed
// count entries or examined 10*count pending entries. Pending ids whose
// stream entries were deleted are purged from the PEL, reported in Deleted
// and count toward count. Next is the id where the scan stopped, 0-0 if it
// reached the end of the PEL. https://redis.io/docs/latest/commands/xautoclaim/
func (s *Stream) XAutoClaim(grp, consumerName string, minIdle int64, start ID, count int, now int64) (AutoClaim, error) {
	r := AutoClaim{Claimed: []Entry{}}
	err := s.autoClaim(grp, consumerName, minIdle, start, count, false, now, &r, func(e stored) { r.Claimed = append(r.Claimed, e.entry()) })
	return r, err
}

// XAutoClaimJustID is XAUTOCLAIM ... JUSTID: claimed ids go to IDs and
// delivery counts are not incremented.
func (s *Stream) XAutoClaimJustID(grp, consumerName string, minIdle int64, start ID, count int, now int64) (AutoClaim, error) {
	r := AutoClaim{IDs: []ID{}}
	err := s.autoClaim(grp, consumerName, minIdle, start, count, true, now, &r, func(e stored) { r.IDs = append(r.IDs, e.id) })
	return r, err
}

func (s *Stream) autoClaim(grp, consumerName string, minIdle int64, start ID, count int, justID bool, now int64, r *AutoClaim, emit func(stored)) error {
	if count == 0 {
		count = DefaultAutoClaimCount
	}
	if count < 0 {
		return &Error{Kind: "ERR", Msg: "ERR COUNT must be > 0"}
	}
	g := s.group(grp)
	if g == nil {
		return noKeyOrGroup(s.key, grp, "")
	}
	r.Deleted = []ID{}
	attempts := 10 * count // "scans at most 10*COUNT entries" (xautoclaimCommand)
	i, _ := g.pelIndex(start)
	for ; attempts > 0 && count > 0 && i < len(g.pel); attempts-- {
		p := &g.pel[i]
		ei, exists := s.find(p.id)
		if !exists {
			r.Deleted = append(r.Deleted, p.id)
			g.pel = slices.Delete(g.pel, i, i+1)
			count--
			continue
		}
		if minIdle > 0 && now-p.deliveryTime < minIdle {
			i++
			continue
		}
		c, _ := g.ensureConsumer(consumerName, now) // 7.0: only when claiming
		c.seenTime = now
		p = &g.pel[i]
		p.deliveryTime = now
		if !justID {
			p.count++
		}
		p.owner = consumerName
		emit(s.entries[ei])
		i++
		count--
	}
	if i < len(g.pel) {
		r.Next = g.pel[i].id
	}
	return nil
}
