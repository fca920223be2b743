package engine

import "sort"

// timeStride is how many events apart a branch's time index notes one:
// a million-order run's index is 3 MB, and a seek to a clock time plays at
// most this many events past the seek's own replay to find where it lands.
const timeStride = 32

// timeIndex is the time of every timeStride-th event of a branch's own
// line (those whose position is a multiple of timeStride, from its fork
// point on), noted as its frontier plays them.
type timeIndex struct {
	first int64 // the position of t[0]
	t     []Time
}

func (ix *timeIndex) note(e *Event) {
	if e.Pos%timeStride != 0 {
		return
	}
	switch {
	case len(ix.t) == 0:
		ix.first = e.Pos
	case ix.first+int64(len(ix.t))*timeStride != e.Pos:
		return // not the next one: the index stops rather than lie
	}
	ix.t = append(ix.t, e.T)
}

// clip is the index for a clone of its branch: the notes so far shared
// read-only, the clone's own appended elsewhere.
func (ix timeIndex) clip() timeIndex {
	ix.t = ix.t[:len(ix.t):len(ix.t)]
	return ix
}

// window narrows where the first event on b whose time satisfies pred
// (monotone) is, as search defines it: at a position in [lo, hi]. It plays
// b on as far as search would first.
func (x *Explorer) window(b *Branch, pred func(Time) bool) (lo, hi int64) {
	path := b.Path()
	for i, c := range path { // as search plays it
		if i+1 < len(path) {
			x.extend(c, path[i+1].ForkPos)
		} else {
			for !c.done && !pred(c.frontier.Now) {
				x.extend(c, c.frontier.Pos+x.Every)
			}
		}
	}
	hi = path[len(path)-1].frontier.Pos // the branch's end, or past an event satisfying pred
	for i, c := range path {
		end := hi
		if i+1 < len(path) {
			end = path[i+1].ForkPos
		}
		ix := &c.times
		n := 0 // the notes on b's line: before end
		if end > ix.first {
			n = min(len(ix.t), int((end-ix.first+timeStride-1)/timeStride))
		}
		k := sort.Search(n, func(j int) bool { return pred(ix.t[j]) })
		if k > 0 {
			lo = max(lo, ix.first+int64(k-1)*timeStride+1)
		}
		if k < n {
			return lo, ix.first + int64(k)*timeStride
		}
	}
	return lo, hi
}

// seekWhere moves the cursor to the first event on the current branch
// whose time satisfies pred (monotone), or the branch's end: where
// Goto(search(x.cur, pred)) would, with one replay from a checkpoint
// rather than two (the search's and the seek's).
func (x *Explorer) seekWhere(pred func(Time) bool) {
	lo, hi := x.window(x.cur, pred)
	if cur := x.w.Pos; lo <= cur && cur <= hi || hi-lo > 2*timeStride {
		// the cursor may be there already, or the index does not know:
		// as before
		x.Goto(x.search(x.cur, pred))
		return
	}
	cur := x.w.Pos
	var k *walker
	if lo >= cur && lo-cur <= x.Every {
		x.Goto(lo) // a short hop: the cursor steps on
		k = x.k
	} else {
		k = x.walkerAt(x.cur, lo)
	}
	to := hi
	if lo < hi {
		// a look ahead on a copy of the walker finds the landing, which
		// the walker then steps to
		p := *k
		p.w = k.w.Clone()
		to = -1
		for to < 0 {
			ok := p.step(sinkFunc(func(_ *World, e *Event, _ *Decision) {
				if pred(e.T) {
					to = e.Pos
				}
			}))
			if !ok && to < 0 {
				to = p.w.Pos
			}
		}
	}
	for k.w.Pos < to && k.step(nil) {
	}
	if !(to > cur && to-cur <= x.Every) {
		// where Goto restores rather than steps, a fork point's state is
		// the fork's (walkerAt), not its parent's line stepped there
		for k.seg+1 < len(k.path) && k.w.Pos == k.path[k.seg+1].ForkPos {
			k.seg++
			k.w = k.path[k.seg].clone(k.path[k.seg].cps[0])
		}
	}
	x.k, x.w = k, k.w
}
