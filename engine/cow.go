package engine

import (
	"reflect"
	"sync"
)

// leafSize is the number of entries a copy-on-write leaf holds. Small
// enough that a checkpoint's private copies stay cheap, large enough that
// the leaf table stays short (4,096 pointers for a million messages).
const leafSize = 256

// token identifies the world allowed to write a leaf in place. Each world
// gets a fresh one when it is cloned, so two worlds never share a writer.
type token struct{ _ byte }

type leaf[T any] struct {
	owner   *token
	retired int // entries that no step will touch again
	items   [leafSize]T
}

// cowVec is a vector of plain values whose leaves are shared between a
// world and its checkpoints and copied on first write. Checkpoints are then
// a copy of the leaf table plus the few leaves written since.
type cowVec[T any] struct {
	// leaves[k] is leaf off+k. The leaves before off are all released:
	// messages retire roughly in the order they came, so the table of a
	// long run would otherwise be mostly nils that every checkpoint copies
	// (25 MB of a million-order explorer's 102 MB)
	leaves []*leaf[T]
	off    uint
	n      int
	// free holds released leaves that only this vector ever referenced, for
	// reuse: a long headless run then allocates a handful of leaves, not
	// one per 256 messages, and the garbage collector stays idle.
	free []*leaf[T]
}

func (v *cowVec[T]) clone() cowVec[T] {
	// the free leaves stay with the original: sharing them would let two
	// worlds write the same leaf
	return cowVec[T]{leaves: append([]*leaf[T](nil), v.leaves...), off: v.off, n: v.n}
}

// owns reports whether owner may write any of v's leaves in place. A
// world that owns none (a checkpoint: a fresh clone, never stepped) can
// be cloned without a new token, so cloning it writes nothing and any
// number of goroutines may clone it at once.
func (v *cowVec[T]) owns(owner *token) bool {
	for _, l := range v.leaves {
		if l != nil && l.owner == owner {
			return true
		}
	}
	return false
}

// at reads entry i; ok is false when its leaf was released.
func (v *cowVec[T]) at(i int) (e T, ok bool) {
	if p := v.ptr(i); p != nil {
		e, ok = *p, true
	}
	return e, ok
}

// ptr returns entry i for reading only, or nil when its leaf was released.
// It spares the hot path a copy of the entry. Indexes are taken unsigned
// here and in at and mut: a shift and a mask, where a signed division
// by the leaf size corrects for negative numbers first.
func (v *cowVec[T]) ptr(i int) *T {
	k := uint(i)/leafSize - v.off // wraps for a dropped leaf
	if k >= uint(len(v.leaves)) {
		if uint(i) >= uint(v.n) {
			_ = v.leaves[k] // past the end: the index's own panic
		}
		return nil
	}
	l := v.leaves[k]
	if l == nil {
		return nil
	}
	return &l.items[uint(i)%leafSize]
}

// mut returns entry i for writing, copying its leaf if another world may
// still read it. A released leaf comes back with every entry retired.
func (v *cowVec[T]) mut(i int, owner *token) *T {
	li := uint(i)/leafSize - v.off
	if li >= uint(len(v.leaves)) {
		li = v.uncover(i)
	}
	l := v.leaves[li]
	switch {
	case l == nil:
		l = &leaf[T]{owner: owner, retired: leafSize}
		v.leaves[li] = l
	case l.owner != owner:
		l = copyLeaf(l, owner)
		v.leaves[li] = l
	}
	return &l.items[uint(i)%leafSize]
}

// uncover puts entry i's leaf, released and dropped from the table's
// front, back in it (as nil), and returns its index there: a redriven
// message's leaf comes back. Out of line: it is rare, and mut is hot.
//
//go:noinline
func (v *cowVec[T]) uncover(i int) uint {
	li := uint(i) / leafSize
	if li >= v.off {
		_ = v.leaves[li-v.off] // past the end: the index's own panic
	}
	t := make([]*leaf[T], v.off-li+uint(len(v.leaves)))
	copy(t[v.off-li:], v.leaves)
	v.leaves, v.off = t, li
	return 0
}

// drop takes the released leaves at the table's front out of it.
func (v *cowVec[T]) drop() {
	k := 0
	for k < len(v.leaves) && v.leaves[k] == nil {
		k++
	}
	v.leaves, v.off = v.leaves[k:], v.off+uint(k)
}

// leafPools holds, per entry type, leaves that discarded worlds owned
// alone (World.Discard): a hunt plays thousands of branches from
// checkpoints, each copying the leaves it writes, and reusing them spares
// the collector. A leaf from a pool is overwritten whole before use.
var leafPools sync.Map // reflect.Type of T -> *sync.Pool of *leaf[T]

func poolOf[T any]() *sync.Pool {
	k := reflect.TypeFor[T]()
	if p, ok := leafPools.Load(k); ok {
		return p.(*sync.Pool)
	}
	p, _ := leafPools.LoadOrStore(k, &sync.Pool{})
	return p.(*sync.Pool)
}

// copyLeaf is a copy of l that owner may write.
func copyLeaf[T any](l *leaf[T], owner *token) *leaf[T] {
	if x := poolOf[T]().Get(); x != nil {
		c := x.(*leaf[T])
		*c = *l
		c.owner = owner
		return c
	}
	c := *l
	c.owner = owner
	return &c
}

// discard gives the leaves only owner writes (none a clone shares) to the
// pool and empties v: v's world is thrown away, and a use after this
// panics rather than reading a leaf another world now writes.
func (v *cowVec[T]) discard(owner *token) {
	p := poolOf[T]()
	for _, l := range v.leaves {
		if l != nil && l.owner == owner {
			p.Put(l)
		}
	}
	for _, l := range v.free {
		p.Put(l)
	}
	*v = cowVec[T]{}
}

// push appends a zero entry and returns its index.
func (v *cowVec[T]) push(owner *token) int {
	if v.n%leafSize == 0 {
		var l *leaf[T]
		if k := len(v.free); k > 0 {
			l, v.free = v.free[k-1], v.free[:k-1]
			*l = leaf[T]{owner: owner}
		} else if x := poolOf[T]().Get(); x != nil {
			l = x.(*leaf[T])
			*l = leaf[T]{owner: owner}
		} else {
			l = &leaf[T]{owner: owner}
		}
		v.leaves = append(v.leaves, l)
	}
	v.n++
	return v.n - 1
}

// retire counts entry i as finished and releases its leaf once all of a
// full leaf's entries are; reads then report !ok.
func (v *cowVec[T]) retire(i int, owner *token) {
	v.mut(i, owner) // own the leaf before changing its count
	li := uint(i)/leafSize - v.off
	l := v.leaves[li]
	l.retired++
	if l.retired == leafSize {
		v.leaves[li] = nil
		if li == 0 {
			v.drop()
		}
		// after mut the leaf is this world's own copy, made since its last
		// clone, so no checkpoint can still read it
		if l.owner == owner && len(v.free) < 4 {
			v.free = append(v.free, l)
		}
	}
}

// unretire is the inverse, for a message that comes back (a redrive).
func (v *cowVec[T]) unretire(i int, owner *token) {
	v.mut(i, owner)
	v.leaves[uint(i)/leafSize-v.off].retired--
}
