package redisstream

import "slices"

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
