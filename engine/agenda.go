package engine

import "unsafe"

// agenda is the world's scheduled steps: a binary heap ordered by (t, seq)
// and a FIFO of the steps due now. Steps run in (t, seq) order; seq is
// assigned at scheduling, so ties resolve in the order the model
// scheduled them.
type agenda struct {
	seq      uint64
	heap     []item
	soon     []item // steps due now, in seq order (see add)
	soonHead int
	live     int  // scheduled non-background steps
	top      item // the step next took off the heap
}

// add schedules it (its key without a seq: add gives it the next); now is
// the world's clock.
func (q *agenda) add(it item, now Time) {
	q.seq++
	q.put(it.t, it.key|q.seq<<seqShift, it.msg, it.who, it.delivery, now)
}

// put schedules a step given field by field, its seq in key, now being
// the world's clock: a step due at or before now joins the FIFO of steps
// due now (a background one never does: it must not keep the run alive
// ahead of the heap's order). Its cases are in the order the hot path
// meets them.
func (q *agenda) put(t Time, key uint64, msg int32, who int16, delivery uint16, now Time) {
	switch {
	case key&(1<<8) != 0: // background
		q.heapPut(max(t, now), key, msg, who, delivery)
	case t <= now:
		q.live++
		q.soonPut(now, key, msg, who, delivery)
	default:
		q.live++
		q.heapPut(t, key, msg, who, delivery)
	}
}

// grow adds a slot at the end of *s and returns its index. It reslices in
// place where there is room: the compiler then writes the length only, not
// the pointer, which the collector must otherwise be told of.
func grow(s *[]item) int {
	n := len(*s)
	if n == cap(*s) {
		*s = append(*s, item{})
	} else {
		*s = (*s)[:n+1]
	}
	return n
}

// soonPut queues a step due now. Most steps schedule a follow-up at the
// current time; their seq is the largest yet, so a FIFO gives the heap's
// order without the heap's cost. The fields are stored one by one: a
// whole item built on the stack and copied would be read back wider than
// it was written, which stalls the store.
func (q *agenda) soonPut(t Time, key uint64, msg int32, who int16, delivery uint16) {
	e := &q.soon[grow(&q.soon)]
	e.t, e.key, e.msg, e.who, e.delivery = t, key, msg, who, delivery
}

// heapPut puts a step on the heap.
func (q *agenda) heapPut(t Time, key uint64, msg int32, who int16, delivery uint16) {
	i := grow(&q.heap)
	h := q.heap
	// the sift moves a hole rather than swapping: one write a level
	// instead of two
	for i > 0 {
		p := (i - 1) / 2
		if pt := h[p].t; t > pt || (t == pt && key > h[p].key) {
			break
		}
		h[i] = h[p]
		i = p
	}
	e := &h[i]
	e.t, e.key, e.msg, e.who, e.delivery = t, key, msg, who, delivery
}

// push puts it on the heap with the seq it has.
func (q *agenda) push(it item) {
	q.put(it.t, it.key, it.msg, it.who, it.delivery, it.t-1)
}

func less(a, b *item) bool { return a.t < b.t || (a.t == b.t && a.key < b.key) }

// next removes the step to run next, the earliest (t, seq) of the heap
// and the FIFO of steps due now, and returns it. It stays valid until the
// agenda next changes, so a step's fields must be read before it runs.
//
// A step due now is read where it lies, field by field, not copied: put
// stored its fields one by one, and a wide copy of them read back at once
// waits for those stores to reach the cache.
func (q *agenda) next() *item {
	if q.soonHead < len(q.soon) {
		f := &q.soon[q.soonHead]
		if len(q.heap) == 0 || !less(&q.heap[0], f) {
			q.soonHead++
			if q.soonHead == len(q.soon) {
				q.soon, q.soonHead = q.soon[:0], 0
			}
			q.live--
			return f
		}
	}
	q.pop(&q.top)
	return &q.top
}

func (q *agenda) pop(top *item) {
	h := q.heap
	*top = h[0]
	n := len(h) - 1
	// the last step as scalars, not an item: the heap's tail is often a
	// step put there a moment ago field by field, and a 24-byte copy of
	// it (two overlapping 16-byte moves) reads it back wider than it was
	// written, and is read back wider again where it lands
	lt, lk, lm, lw, ld := h[n].t, h[n].key, h[n].msg, h[n].who, h[n].delivery
	h = h[:n]
	q.heap = q.heap[:n] // in place, as in put
	if n > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && less(&h[r], &h[l]) {
				m = r
			}
			if c := &h[m]; c.t > lt || (c.t == lt && c.key > lk) {
				break
			}
			h[i] = h[m]
			i = m
		}
		e := &h[i]
		e.t, e.key, e.msg, e.who, e.delivery = lt, lk, lm, lw, ld
	}
	if !top.bg() {
		q.live--
	}
}

// clone is an independent copy of the agenda.
func (q *agenda) clone() agenda {
	c := *q
	c.heap = append([]item(nil), q.heap...)
	c.soon = append([]item(nil), q.soon[q.soonHead:]...)
	c.soonHead = 0
	return c
}

// bytes is the agenda's share of a checkpoint's estimated size.
func (q *agenda) bytes() int64 {
	return int64(len(q.heap)+len(q.soon)-q.soonHead) * int64(unsafe.Sizeof(item{}))
}
