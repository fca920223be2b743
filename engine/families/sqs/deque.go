package sqs

// deque is a ring of queue entries: the queue's order. An entry is a
// message id and the message's enqueue stamp (see Record.QSeq), so an
// entry left behind by a message that moved on is recognised as stale.
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
	c := deque{buf: make([]qentry, d.n), n: d.n}
	for i := 0; i < d.n; i++ {
		c.buf[i] = d.at(i)
	}
	return c
}

func (d *deque) len() int { return d.n }

func (d *deque) at(i int) qentry { return d.buf[(d.head+i)%len(d.buf)] }

func (d *deque) pushBack(x qentry) {
	if d.n == len(d.buf) {
		nb := make([]qentry, max(8, 2*len(d.buf)))
		for i := 0; i < d.n; i++ {
			nb[i] = d.at(i)
		}
		d.buf, d.head = nb, 0
	}
	d.buf[(d.head+d.n)%len(d.buf)] = x
	d.n++
}

func (d *deque) popFront() qentry {
	x := d.buf[d.head]
	d.head = (d.head + 1) % len(d.buf)
	d.n--
	return x
}
