package engine

// Revived is how many dispatches the settled-state guard had to start: a
// wake some move forgot. The liveness tests assert it stays 0.
func Revived(w *World) int { return w.revived }

// Leaves counts the message table's live leaves, all its leaves and the
// dead letters kept.
func Leaves(w *World) (live, total, dlq int) {
	for _, l := range w.truth.msgs.leaves {
		if l != nil {
			live++
		}
	}
	return live, int(w.truth.msgs.off) + len(w.truth.msgs.leaves), w.truth.dlq.n
}

// ForkForeign forks x's branch at the cursor as a branch whose parent is
// o's copy of it: the tree a job made when it forked from the live
// explorer's branch rather than its clone's.
func ForkForeign(x, o *Explorer) *Branch {
	b := &Branch{ID: x.nextID, Name: "foreign", Parent: o.cur, frontier: x.w.Clone()}
	b.cps = []checkpoint{{pos: x.w.Pos, w: x.w.Clone()}}
	x.nextID++
	x.branches = append(x.branches, b)
	return b
}
