package cashback

import "inflight/engine/redisstream"

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
