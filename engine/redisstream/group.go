package redisstream

import (
	"slices"
	"strings"
)

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
