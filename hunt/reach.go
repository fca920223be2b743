package hunt

import "container/heap"

// reach drops, as a level's branches are played, the recorded decisions
// no child of the next depth can be forked from within the budget.
//
// The next depth expands its parents in two passes (see Hunt): first
// every parent's children on a message it already forces, then, in the
// order byScore gives, each parent's children on the others. A default
// hunt of thursday-fixed has some 8 children a parent in the first pass
// and a thousand in the second, so the budget left after the first pass
// reaches one parent or two of the second, and the rest of the level's
// decisions (two million of them, 100 MB) were kept for nothing.
//
// So a parent keeps its decisions on other messages only while the
// second pass can still reach it: while the children of the parents
// kept before it in byScore's order number no more than the budget the
// second pass can have left. Both only move one way as the level is
// played (the children before a parent can only grow in number; the
// budget left only shrinks), so a parent dropped is never needed again.
// Should one be, expand plays the branch once more for them, and finds
// the same children: what is dropped changes how fast a hunt runs, never
// what it finds. (Under a memory budget it may change where the hunt
// stops: the frontier it charges is smaller, so memory's own choice of
// which decisions to keep can differ.)
type reach struct {
	outs *[]outcome // the level's outcomes, by branch
	left int        // the budget left for the second pass, at most
	kept parents    // the parents whose other decisions are kept
	kids int        // their children in the second pass, at least
}

// parent is a kept parent: its branch, its score and its second pass's
// children (at least: actions may add some).
type parent struct {
	i      int
	score  int64
	others int
}

// parents is a heap whose top is the last in byScore's order: the
// lowest score, of those the latest branch.
type parents []parent

func (p parents) Len() int { return len(p) }
func (p parents) Less(a, b int) bool {
	return p[a].score < p[b].score || p[a].score == p[b].score && p[a].i > p[b].i
}
func (p parents) Swap(a, b int) { p[a], p[b] = p[b], p[a] }
func (p *parents) Push(x any)   { *p = append(*p, x.(parent)) }
func (p *parents) Pop() any {
	old := *p
	x := old[len(old)-1]
	*p = old[:len(old)-1]
	return x
}

// newReach watches the level whose outcomes are appended to outs, with
// the budget not yet played: the level's own branches take some of it,
// then the next depth's first pass.
func (s *searcher) newReach(outs *[]outcome) *reach {
	left := s.o.Budget - s.tried
	if s.o.reach != 0 {
		left = s.o.reach
	}
	return &reach{outs: outs, left: left}
}

// played takes outcome i, just played with its decisions recorded, and
// returns how many decisions it dropped from outcomes before the
// charged-th, which the hunt's memory already counts.
func (r *reach) played(i int, score int64, charged int) (freed int) {
	o := &(*r.outs)[i]
	r.left-- // the branch itself
	if !o.ok || len(o.decs) == 0 {
		o.decs = nil // and the room made for them: expand makes no children
	}
	same, others := o.split()
	r.left -= same
	if o.ok && others > 0 {
		heap.Push(&r.kept, parent{i: i, score: score, others: others})
		r.kids += others
	}
	// the last kept parent is reached while the children before it
	// leave some of the budget (at none, it is still expanded, and its
	// children then not played); with none left for the second pass, no
	// parent is. kids leaves out the parents dropped already, so a parent
	// after one of them may be kept for nothing, never dropped wrongly.
	for len(r.kept) > 0 && r.kids-r.kept[0].others > r.left {
		p := heap.Pop(&r.kept).(parent)
		r.kids -= p.others
		freed += r.drop(p.i, charged)
	}
	return freed
}

func (r *reach) drop(i, charged int) int {
	n := (*r.outs)[i].keepSame()
	if i >= charged {
		return 0
	}
	return n
}

// split counts o's children in the first pass and the second: the
// alternatives of its decisions on messages it forces, and of the others.
func (o *outcome) split() (same, others int) {
	for i := range o.decs {
		if o.forces(o.decs[i].msg) {
			same += len(o.decs[i].alt)
		} else {
			others += len(o.decs[i].alt)
		}
	}
	return same, others
}

// forces says whether the branch forced a decision or fault of msg.
func (o *outcome) forces(msg int32) bool {
	for i := range o.forced {
		if o.forced[i].Msg == msg {
			return true
		}
	}
	return false
}

// keepSame keeps only o's decisions on messages it forces, in memory of
// their own, and returns how many it dropped.
func (o *outcome) keepSame() int {
	if len(o.decs) == 0 || o.sameOnly {
		return 0
	}
	n, alts := 0, 0
	for i := range o.decs {
		if o.forces(o.decs[i].msg) {
			n++
			alts += len(o.decs[i].alt)
		}
	}
	o.end = o.decs[len(o.decs)-1].pos
	dropped := len(o.decs) - n
	var kept []dec
	if n > 0 {
		kept = make([]dec, 0, n)
		vals := make([]int64, 0, alts) // off the line's slab, which can go
		for _, d := range o.decs {
			if o.forces(d.msg) {
				k := len(vals)
				vals = append(vals, d.alt...)
				d.alt = vals[k:len(vals):len(vals)]
				kept = append(kept, d)
			}
		}
	}
	o.decs, o.sameOnly = kept, true
	return dropped
}
