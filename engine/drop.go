package engine

import (
	"errors"
	"unsafe"
)

// DeleteBranch drops branch b and gives back the memory its checkpoints
// were charged (a lower estimate: the tables, not the leaves shared with
// other worlds). The lesson's run stays, and so does a branch with forks
// of its own; deleting the branch under the cursor moves it to the
// parent, at the same event or the fork point, whichever is earlier.
func (x *Explorer) DeleteBranch(b *Branch) error {
	if b == nil || b.Parent == nil {
		return errors.New("the lesson's run stays")
	}
	at := -1
	for i, c := range x.branches {
		if c.Parent == b {
			return errors.New("branch " + b.Name + " has forks of its own: delete them first")
		}
		if c == b {
			at = i
		}
	}
	if at < 0 {
		return errors.New("no branch " + b.Name + " here")
	}
	if x.cur == b {
		x.Goto(min(x.w.Pos, b.ForkPos)) // history the parent holds: no replay
		x.Switch(b.Parent)
	}
	x.branches = append(x.branches[:at:at], x.branches[at+1:]...)
	var n int64
	for _, cp := range b.cps[1:] { // cps[0], the fork point, was never charged
		n += cp.w.tableBytes()
	}
	x.acct.Release(n)
	return nil
}

// tableBytes is the part of ownBytes that does not depend on which world
// owns the leaves: what a checkpoint was charged at least.
func (w *World) tableBytes() int64 {
	return int64(unsafe.Sizeof(*w)) +
		w.truth.tableBytes() +
		w.q.bytes() +
		familyBytes(w.fam)
}
