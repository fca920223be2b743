package cashback

import (
	"fmt"
	"slices"

	"inflight/engine/redisstream"
)

// PendingCounts is each pending entry's delivery count twice: as the
// family's mirror holds it (what max_receives is checked against) and as
// the stream model's XPENDING reports it.
func (c *Family) PendingCounts(now int64) (mirror, xpending []int64) {
	for _, p := range c.pel {
		mirror = append(mirror, int64(p.count))
	}
	got, err := c.s.XPendingRange(group, redisstream.PendingQuery{Start: redisstream.MinID, End: redisstream.MaxID, Count: Count + 1}, now)
	if err != nil {
		panic(err)
	}
	for _, p := range got {
		xpending = append(xpending, p.DeliveryCount)
	}
	return mirror, xpending
}

// PendingOwners is the pending list as "owner:count" items, sorted,
// twice: from the family's mirror (the consumer's list and the entries an
// operator claimed and has not acked) and from the stream model's XPENDING.
func (c *Family) PendingOwners(now int64) (mirror, xpending []string) {
	for _, p := range c.pel {
		mirror = append(mirror, fmt.Sprintf("%s:%d", consumer, p.count))
	}
	for i, t := range c.taken {
		if !t.acked && c.takenIndex(t.entry) == i {
			mirror = append(mirror, fmt.Sprintf("%s:%d", operatorName, t.count))
		}
	}
	got, err := c.s.XPendingRange(group, redisstream.PendingQuery{Start: redisstream.MinID, End: redisstream.MaxID, Count: 1 << 20}, now)
	if err != nil {
		panic(err)
	}
	for _, p := range got {
		xpending = append(xpending, fmt.Sprintf("%s:%d", p.Consumer, p.DeliveryCount))
	}
	slices.Sort(mirror)
	slices.Sort(xpending)
	return mirror, xpending
}
