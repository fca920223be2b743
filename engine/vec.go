package engine

import "unsafe"

// Vec is the kernel's copy-on-write vector for a family's own table per
// message, indexed by message id: its leaves are shared with the
// checkpoints and copied on first write, as the kernel's are. A family
// pushes an entry for each message it adds (World.AddMessage), retires
// it when the kernel does (FamilyRecords) and clones it in its Clone.
type Vec[T any] struct {
	v     cowVec[T]
	owner *token // the leaves this vector may write in place
}

// Len is the number of entries pushed.
func (v *Vec[T]) Len() int { return v.v.n }

// Push appends a zero entry and returns its index.
func (v *Vec[T]) Push() int {
	if v.owner == nil {
		v.owner = &token{}
	}
	return v.v.push(v.owner)
}

// Ptr is entry i for reading only, or nil when its leaf was released.
func (v *Vec[T]) Ptr(i int) *T { return v.v.ptr(i) }

// At reads entry i; ok is false when its leaf was released.
func (v *Vec[T]) At(i int) (T, bool) { return v.v.at(i) }

// Mut is entry i for writing, its leaf copied first if a clone shares it.
func (v *Vec[T]) Mut(i int) *T { return v.v.mut(i, v.owner) }

// Retire counts entry i as finished: a leaf whose entries all are is
// released.
func (v *Vec[T]) Retire(i int) { v.v.retire(i, v.owner) }

// Unretire is the inverse, for a message that comes back.
func (v *Vec[T]) Unretire(i int) { v.v.unretire(i, v.owner) }

// Clone is an independent copy sharing every leaf; from now on both the
// copy and v copy a shared leaf before writing it. A v that owns no leaf
// (a checkpoint's) is only read, so that goroutines may clone it at once.
func (v *Vec[T]) Clone() Vec[T] {
	c := Vec[T]{v: v.v.clone(), owner: &token{}}
	if v.v.owns(v.owner) {
		v.owner = &token{}
	}
	return c
}

// Discard gives the leaves only v holds to other vectors' copies (see
// World.Discard); v must not be used after.
func (v *Vec[T]) Discard() { v.v.discard(v.owner) }

// Footprint estimates what a checkpoint of v costs on top of the others:
// its leaf table and the leaves written since the last clone.
func (v *Vec[T]) Footprint() int64 {
	n := int64(len(v.v.leaves)) * int64(unsafe.Sizeof(uintptr(0)))
	for _, l := range v.v.leaves {
		if l != nil && l.owner == v.owner {
			n += int64(unsafe.Sizeof(*l))
		}
	}
	return n
}
