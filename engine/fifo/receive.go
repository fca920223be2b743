package fifo

import "fmt"

// Receive is ReceiveMessage for up to max messages (SQS allows 1..10; the
// model does not enforce the ceiling). The rules:
//
//   - A group with a message in flight is blocked: none of its messages is
//     handed out until that message is deleted or visible again [GROUP].
//   - Groups are served oldest head first. From a group, "as many messages
//     with the same message group ID as possible" are returned, in send
//     order, before moving on to the next available group [GROUP]. Which
//     group SQS serves first is unspecified; oldest-head-first is the
//     model's choice.
//   - Only the first Lookahead queued messages are inspected to find
//     available groups (20,000 in SQS) [GROUP].
//   - With a redrive policy, a message already received MaxReceiveCount
//     times whose lease expired is moved to the DLQ when a receive reaches
//     it, instead of being delivered a further time; the next message of
//     its group is then served, which breaks the group's order [DLQ]. So a
//     consumer sees exactly MaxReceiveCount deliveries (as LocalStack does,
//     see BROKERS.md). Call Redrive to move such messages without a receive.
//
// Each delivery gets a new receipt handle and a lease of VisibilityTimeout.
func (q *Queue) Receive(now int64, max int) []Delivery {
	var out []Delivery
	seen := map[string]bool{} // membership only; never iterated
	scanned := 0
	for i := q.head; i < len(q.msgs) && scanned < q.cfg.Lookahead && len(out) < max; i++ {
		m := &q.msgs[i]
		if m.State != Queued {
			continue
		}
		scanned++
		if seen[m.Group] {
			continue
		}
		seen[m.Group] = true // m is the head of its group
		if q.blocked(m.Group, now) {
			continue
		}
		out = q.takeFromGroup(m.Group, now, max, out)
	}
	q.advanceHead()
	return out
}

// blocked reports whether group g has a message in flight. Received
// messages always form a prefix of a group (a receive takes from the head
// of an unblocked group), so the scan stops at the first never-received one.
func (q *Queue) blocked(g string, now int64) bool {
	for _, idx := range q.groups[g] {
		m := &q.msgs[idx]
		if m.ReceiveCount == 0 {
			return false
		}
		if m.inflight(now) {
			return true
		}
	}
	return false
}

func (q *Queue) exhausted(m *Message) bool {
	return q.cfg.MaxReceiveCount > 0 && m.ReceiveCount >= q.cfg.MaxReceiveCount
}

// takeFromGroup delivers g's messages from its head until out holds max,
// dead-lettering exhausted ones on the way. g must not be blocked.
func (q *Queue) takeFromGroup(g string, now int64, max int, out []Delivery) []Delivery {
	ids := q.groups[g]
	j := 0
	for _, idx := range ids {
		m := &q.msgs[idx]
		if len(out) < max {
			if q.exhausted(m) {
				q.deadLetter(idx, now)
				continue
			}
			out = append(out, q.deliver(idx, now))
		}
		ids[j] = idx
		j++
	}
	q.setGroup(g, ids[:j])
	return out
}

func (q *Queue) deliver(idx int, now int64) Delivery {
	m := &q.msgs[idx]
	m.ReceiveCount++
	m.VisibleAt = now + q.cfg.VisibilityTimeout
	m.ReceivedAt = now
	m.Handle = fmt.Sprintf("rh-%d-%d", m.Seq, m.ReceiveCount)
	q.handles[m.Handle] = idx
	return Delivery{
		MessageID:    m.ID,
		Seq:          m.Seq,
		Group:        m.Group,
		DedupID:      m.DedupID,
		Body:         m.Body,
		Handle:       m.Handle,
		ReceiveCount: m.ReceiveCount,
		SentAt:       m.SentAt,
	}
}

func (q *Queue) deadLetter(idx int, now int64) {
	m := &q.msgs[idx]
	m.State = DeadLettered
	m.EndedAt = now
	q.dlq = append(q.dlq, idx)
}

func (q *Queue) setGroup(g string, ids []int) {
	if len(ids) == 0 {
		delete(q.groups, g)
		return
	}
	q.groups[g] = ids
}

// removeFromGroup drops msgs[idx] from its group's list.
func (q *Queue) removeFromGroup(idx int) {
	g := q.msgs[idx].Group
	ids := q.groups[g]
	for k, v := range ids {
		if v == idx {
			q.setGroup(g, append(ids[:k], ids[k+1:]...))
			return
		}
	}
}

func (q *Queue) advanceHead() {
	for q.head < len(q.msgs) && q.msgs[q.head].State != Queued {
		q.head++
	}
}

// Redrive moves to the DLQ every message whose lease has expired after its
// MaxReceiveCount-th receive, at time now, and returns their ids in queue
// order. The simulator calls it when such a lease expires, which with
// consumers polling continuously is when SQS moves it (BROKERS.md) [DLQ].
func (q *Queue) Redrive(now int64) []string {
	if q.cfg.MaxReceiveCount <= 0 {
		return nil
	}
	var moved []string
	for i := q.head; i < len(q.msgs); i++ {
		m := &q.msgs[i]
		if m.State == Queued && q.exhausted(m) && !m.inflight(now) {
			q.deadLetter(i, now)
			q.removeFromGroup(i)
			moved = append(moved, m.ID)
		}
	}
	q.advanceHead()
	return moved
}

// lease finds the message a receipt handle names and says whether the
// handle is still its current, unexpired lease.
func (q *Queue) lease(now int64, handle string) (idx int, current bool, err error) {
	idx, ok := q.handles[handle]
	if !ok {
		return 0, false, ErrReceiptHandleInvalid
	}
	m := &q.msgs[idx]
	return idx, m.Handle == handle && m.inflight(now), nil
}

// Delete is DeleteMessage. With the current lease it deletes the message
// and unblocks its group. A stale handle (lease expired, or the message was
// received again since) is refused with ErrReceiptHandleExpired under
// LateRefuse and deletes the message under LateAccept (see LateDelete).
// Deleting an already deleted message succeeds without effect; a message
// moved to the DLQ can no longer be deleted through this queue.
func (q *Queue) Delete(now int64, handle string) error {
	idx, current, err := q.lease(now, handle)
	if err != nil {
		return err
	}
	m := &q.msgs[idx]
	switch m.State {
	case Deleted:
		return nil
	case DeadLettered:
		return ErrReceiptHandleInvalid
	}
	if !current && q.cfg.LateDelete == LateRefuse {
		return ErrReceiptHandleExpired
	}
	m.State = Deleted
	m.EndedAt = now
	q.removeFromGroup(idx)
	q.advanceHead()
	return nil
}

// ChangeVisibility is ChangeMessageVisibility: the lease of the message a
// current receipt handle names now ends timeout ms after now (0 makes it
// visible at once, unblocking its group). The timeout counts from the call
// and may not take the lease past 12 hours after the receive [VIS].
func (q *Queue) ChangeVisibility(now int64, handle string, timeout int64) error {
	if timeout < 0 || timeout > MaxVisibilityTimeout {
		return ErrInvalidVisibility
	}
	idx, current, err := q.lease(now, handle)
	if err != nil {
		return err
	}
	if !current {
		return ErrMessageNotInflight
	}
	m := &q.msgs[idx]
	if now+timeout > m.ReceivedAt+MaxVisibilityTimeout {
		return ErrInvalidVisibility
	}
	m.VisibleAt = now + timeout
	return nil
}
