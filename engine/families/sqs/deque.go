package sqs

// deque is a ring of queue entries: the queue's order. An entry is a
// message id and the message's enqueue stamp (see Record.QSeq), so an
// entry left behind by a message that moved on is recognised as stale.
// The ring's length is a power of two, so that an index wraps with a mask:
// every delivery reads and pops the head, and a division there costs more
// than the rest of the pop.
type deque struct {
	buf  []qentry
	head int
	n    int
}

type qentry struct {
	id   int32
	qseq uint32
}

func (d *deque) clone() deque {
	if d.n == 0 {
		return deque{}
	}
	c := deque{buf: make([]qentry, ringSize(d.n)), n: d.n}
	for i := 0; i < d.n; i++ {
		c.buf[i] = d.at(i)
	}
	return c
}

// ringSize is the smallest power of two that holds n entries, at least 8.
func ringSize(n int) int {
	s := 8
	for s < n {
		s *= 2
	}
	return s
}

func (d *deque) len() int { return d.n }

func (d *deque) at(i int) qentry { return d.buf[(d.head+i)&(len(d.buf)-1)] }

func (d *deque) pushBack(x qentry) {
	if d.n == len(d.buf) {
		nb := make([]qentry, ringSize(d.n+1))
		for i := 0; i < d.n; i++ {
			nb[i] = d.at(i)
		}
		d.buf, d.head = nb, 0
	}
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = x
	d.n++
}

func (d *deque) popFront() qentry {
	x := d.buf[d.head]
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	return x
}
