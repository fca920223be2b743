package sqs

import (
	"math/rand/v2"
	"testing"
)

// TestDequeAgainstSlice runs random pushes, pops and clones on the ring
// and on a plain slice, which must agree entry for entry: the ring's mask
// arithmetic and its growth past each power of two.
func TestDequeAgainstSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var d deque
		var want []qentry
		for op := 0; op < 300; op++ {
			switch k := r.IntN(10); {
			case k < 6:
				x := qentry{id: int32(r.IntN(1000)), qseq: uint32(op)}
				d.pushBack(x)
				want = append(want, x)
			case k < 9 && len(want) > 0:
				if got := d.popFront(); got != want[0] {
					t.Fatalf("round %d op %d: popFront %v, want %v", round, op, got, want[0])
				}
				want = want[1:]
			default:
				d = d.clone()
			}
			if d.len() != len(want) {
				t.Fatalf("round %d op %d: len %d, want %d", round, op, d.len(), len(want))
			}
			if n := len(d.buf); n&(n-1) != 0 {
				t.Fatalf("round %d op %d: ring of %d, not a power of two", round, op, n)
			}
			for i, x := range want {
				if got := d.at(i); got != x {
					t.Fatalf("round %d op %d: at(%d) %v, want %v", round, op, i, got, x)
				}
			}
		}
	}
}
