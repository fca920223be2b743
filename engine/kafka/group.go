package kafka

import "sort"

// member is the coordinator's view of one consumer in a group.
type member struct {
	ID              string
	Topics          []string
	LastPoll        int64
	MaxPollInterval int64
	Assigned        []TP
	// Silent is a member whose process died: no heartbeat, no JoinGroup.
	// The coordinator cannot tell it from a slow one until its session
	// times out (LeaveGroup), and a rebalance waits for it until then.
	Silent bool
}

// group is the coordinator's state for one consumer group.
type group struct {
	Members    []member // sorted by ID
	Joining    []member // JoinGroups held while a rebalance waits for a silent member, in arrival order
	Generation int
	Committed  map[TP]int64 // looked up, never iterated for decisions
}

func (g *group) clone() *group {
	n := &group{Generation: g.Generation, Committed: make(map[TP]int64, len(g.Committed))}
	for k, v := range g.Committed {
		n.Committed[k] = v
	}
	for _, m := range g.Members {
		m.Topics = append([]string(nil), m.Topics...)
		m.Assigned = append([]TP(nil), m.Assigned...)
		n.Members = append(n.Members, m)
	}
	for _, m := range g.Joining {
		m.Topics = append([]string(nil), m.Topics...)
		n.Joining = append(n.Joining, m)
	}
	return n
}

// waiting reports whether a rebalance is held: some member is silent, and
// the coordinator waits for every known member to rejoin.
func (g *group) waiting() bool {
	for _, m := range g.Members {
		if m.Silent {
			return true
		}
	}
	return false
}

func (g *group) joining(id string) bool {
	for _, m := range g.Joining {
		if m.ID == id {
			return true
		}
	}
	return false
}

func (g *group) member(id string) *member {
	for i := range g.Members {
		if g.Members[i].ID == id {
			return &g.Members[i]
		}
	}
	return nil
}

func (c *Cluster) groupFor(id string) *group {
	g, ok := c.groups[id]
	if !ok {
		g = &group{Committed: map[TP]int64{}}
		c.groups[id] = g
	}
	return g
}

// rebalance starts a new generation and assigns partitions with the range
// assignor, Kafka's default partition.assignment.strategy: per topic,
// members subscribed to it sorted by member id take consecutive ranges,
// the first n%m members one partition more [GROUP]. The model's rebalance
// is instantaneous and eager: every member drops its fetch positions and
// resumes from the committed offsets (see Consumer.Poll).
func (c *Cluster) rebalance(g *group) {
	g.Generation++
	for i := range g.Members {
		g.Members[i].Assigned = nil
	}
	var topics []string
	seen := map[string]bool{}
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if !seen[t] {
				seen[t] = true
				topics = append(topics, t)
			}
		}
	}
	sort.Strings(topics)
	for _, t := range topics {
		var subs []int
		for i, m := range g.Members {
			for _, mt := range m.Topics {
				if mt == t {
					subs = append(subs, i)
					break
				}
			}
		}
		n := c.Partitions(t)
		per, extra := n/len(subs), n%len(subs)
		next := 0
		for k, i := range subs {
			count := per
			if k < extra {
				count++
			}
			for j := 0; j < count; j++ {
				g.Members[i].Assigned = append(g.Members[i].Assigned, TP{t, next})
				next++
			}
		}
	}
}

// join is JoinGroup. With every member alive the rebalance it starts is
// instantaneous (they all rejoin at once). While a member is silent it
// cannot complete: with dynamic membership (no group.instance.id) the
// coordinator waits for each known member to rejoin until that member's
// session times out, and a dead process never rejoins (restarted, it is a
// new member id). So the newcomer is held, with no partitions, until the
// silent member leaves [GROUP].
func (c *Cluster) join(groupID string, m member) {
	g := c.groupFor(groupID)
	if g.waiting() {
		g.Joining = append(g.Joining, m)
		return
	}
	g.Members = append(g.Members, m)
	c.settle(g)
}

// settle completes a rebalance once no member is silent: the held joins
// enter, and one new generation is assigned.
func (c *Cluster) settle(g *group) {
	if g.waiting() {
		return
	}
	g.Members = append(g.Members, g.Joining...)
	g.Joining = nil
	sort.Slice(g.Members, func(i, j int) bool { return g.Members[i].ID < g.Members[j].ID })
	c.rebalance(g)
}

// Silence marks a member whose process died without leaving: it keeps its
// partitions, and every rebalance waits, until LeaveGroup at its session
// timeout. It reports whether the member was there.
func (c *Cluster) Silence(groupID, memberID string) bool {
	if g, ok := c.groups[groupID]; ok {
		if m := g.member(memberID); m != nil {
			m.Silent = true
			return true
		}
	}
	return false
}

// LeaveGroup removes a member and rebalances: a consumer's close(), or the
// coordinator expiring a crashed consumer after session.timeout.ms (the
// simulator calls it at crash time + DefaultSessionTimeout). A rebalance
// that waited for that member completes now. It reports whether the
// member was there.
func (c *Cluster) LeaveGroup(groupID, memberID string) bool {
	g, ok := c.groups[groupID]
	if !ok {
		return false
	}
	for i := range g.Joining {
		if g.Joining[i].ID == memberID {
			g.Joining = append(g.Joining[:i:i], g.Joining[i+1:]...)
			return true
		}
	}
	for i := range g.Members {
		if g.Members[i].ID == memberID {
			g.Members = append(g.Members[:i:i], g.Members[i+1:]...)
			c.settle(g)
			return true
		}
	}
	return false
}

// Joining returns the member ids whose JoinGroup is held, in arrival
// order.
func (c *Cluster) Joining(groupID string) []string {
	var out []string
	if g, ok := c.groups[groupID]; ok {
		for _, m := range g.Joining {
			out = append(out, m.ID)
		}
	}
	return out
}

// ExpirePollTimeouts removes every member whose last poll is more than its
// max.poll.interval.ms before now — a consumer stuck in its handler — and
// rebalances each group that lost one, so its partitions go to others who
// resume at the committed offsets [GROUP]. It returns "group/member" for
// each removal, in sorted order.
func (c *Cluster) ExpirePollTimeouts(now int64) []string {
	var ids []string
	for id := range c.groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []string
	for _, id := range ids {
		g := c.groups[id]
		kept := g.Members[:0:0]
		for _, m := range g.Members {
			if now-m.LastPoll > m.MaxPollInterval {
				out = append(out, id+"/"+m.ID)
			} else {
				kept = append(kept, m)
			}
		}
		if len(kept) != len(g.Members) {
			g.Members = kept
			c.settle(g)
		}
	}
	return out
}

// Rebalance forces a new generation of a group, as a consumer noticing a
// partition count change on its metadata refresh does.
func (c *Cluster) Rebalance(groupID string) {
	if g, ok := c.groups[groupID]; ok {
		c.rebalance(g)
	}
}

// Members returns a group's member ids, sorted.
func (c *Cluster) Members(groupID string) []string {
	var out []string
	if g, ok := c.groups[groupID]; ok {
		for _, m := range g.Members {
			out = append(out, m.ID)
		}
	}
	return out
}

// Assignment returns the partitions a member owns in the current
// generation.
func (c *Cluster) Assignment(groupID, memberID string) []TP {
	if g, ok := c.groups[groupID]; ok {
		if m := g.member(memberID); m != nil {
			return append([]TP(nil), m.Assigned...)
		}
	}
	return nil
}

// Owner returns the member that owns tp in the group's current generation,
// or "" when nobody does (before a rebalance assigns a new partition).
func (c *Cluster) Owner(groupID string, tp TP) string {
	if g, ok := c.groups[groupID]; ok {
		for _, m := range g.Members {
			for _, a := range m.Assigned {
				if a == tp {
					return m.ID
				}
			}
		}
	}
	return ""
}

// Generation returns a group's generation (0 if it does not exist).
func (c *Cluster) Generation(groupID string) int {
	if g, ok := c.groups[groupID]; ok {
		return g.Generation
	}
	return 0
}

// Committed returns a group's committed offset for tp: the next offset
// the group will read there after a rebalance.
func (c *Cluster) Committed(groupID string, tp TP) (int64, bool) {
	if g, ok := c.groups[groupID]; ok {
		off, ok := g.Committed[tp]
		return off, ok
	}
	return 0, false
}

// Lag is the log end offset minus the committed offset (the whole log if
// nothing is committed): consumer lag in records.
func (c *Cluster) Lag(groupID string, tp TP) int64 {
	off, _ := c.Committed(groupID, tp)
	return c.LogEndOffset(tp) - off
}

// commitOffsets is OffsetCommit from a live member: written to the
// group's __consumer_offsets partition and effective at once.
func (c *Cluster) commitOffsets(groupID, memberID string, now int64, offsets []Offset) error {
	g, ok := c.groups[groupID]
	if !ok || g.member(memberID) == nil {
		return ErrCommitFailed
	}
	p, _ := c.partition(TP{OffsetsTopic, offsetsPartition(groupID, c.Partitions(OffsetsTopic))})
	for _, o := range offsets {
		p.appendPlain([]Record{offsetRecord(groupID, o)}, now)
		g.Committed[o.TP] = o.Offset
	}
	return nil
}
