package engine

import (
	"math/rand/v2"
	"testing"
)

// cowModel is what a cowVec must read as: plain values, a retired count
// per leaf, and the leaves released (all retired: they read as absent and
// come back zeroed, every entry retired, when written).
type cowModel struct {
	vals     []int64
	ret      []bool // each entry retires once, as a message does
	retired  []int
	released []bool
}

func (m *cowModel) push() {
	if len(m.vals)%leafSize == 0 {
		m.retired, m.released = append(m.retired, 0), append(m.released, false)
	}
	m.vals, m.ret = append(m.vals, 0), append(m.ret, false)
}

func (m *cowModel) revive(i int) {
	if li := i / leafSize; m.released[li] {
		m.released[li], m.retired[li] = false, leafSize
		for j := li * leafSize; j < min(len(m.vals), (li+1)*leafSize); j++ {
			m.vals[j], m.ret[j] = 0, true
		}
	}
}

// A vector whose front leaves are released and dropped from its table
// reads, writes, retires, revives and clones as the plain model does, and
// a clone never sees the original's later writes, nor it the clone's.
func TestCowVecAsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	dropped := 0
	defer func() {
		if dropped == 0 {
			t.Error("no leaf was ever dropped from a table's front: the test tests nothing new")
		}
	}()
	for round := 0; round < 40; round++ {
		var v cowVec[int64]
		var m cowModel
		own := &token{}
		front := 0 // the oldest entry not retired, or near it
		var snaps []cowVec[int64]
		var snapModels []cowModel
		for op := 0; op < 6000; op++ {
			n := len(m.vals)
			switch k := r.IntN(100); {
			case k < 25 || n == 0:
				if got := v.push(own); got != n {
					t.Fatalf("push = %d, want %d", got, n)
				}
				m.push()
			case k < 60:
				// retire in roughly arrival order, as messages do
				for front < n && (m.ret[front] || m.released[front/leafSize]) {
					front++
				}
				if front == n {
					continue
				}
				i := front + r.IntN(min(n-front, 40))
				if m.released[i/leafSize] || m.ret[i] {
					continue
				}
				v.retire(i, own)
				m.ret[i] = true
				if li := i / leafSize; m.retired[li]+1 == leafSize {
					m.released[li] = true
				} else {
					m.retired[li]++
				}
			case k < 80:
				i := min(front, n-1) + r.IntN(n-min(front, n-1)) // a message in play
				if r.IntN(50) == 0 {
					i = r.IntN(n) // or one long finished: its leaf comes back
					front = min(front, i)
				}
				x := r.Int64()
				*v.mut(i, own) = x
				m.revive(i)
				m.vals[i] = x
			case k < 81:
				// a redrive: a message of a released leaf comes back
				i := r.IntN(n)
				if !m.released[i/leafSize] {
					continue
				}
				front = min(front, i)
				v.unretire(i, own)
				m.revive(i)
				m.ret[i] = false
				m.retired[i/leafSize]--
			case k < 86:
				snaps = append(snaps, v.clone())
				own = &token{} // the original writes under a new token after a clone
				c := cowModel{vals: append([]int64(nil), m.vals...), ret: append([]bool(nil), m.ret...), retired: append([]int(nil), m.retired...), released: append([]bool(nil), m.released...)}
				snapModels = append(snapModels, c)
			default:
				i := r.IntN(n)
				check(t, &v, &m, i)
			}
		}
		for i := range m.vals {
			check(t, &v, &m, i)
		}
		dropped += int(v.off)
		for s := range snaps {
			for i := range snapModels[s].vals {
				check(t, &snaps[s], &snapModels[s], i)
			}
		}
	}
}

func check(t *testing.T, v *cowVec[int64], m *cowModel, i int) {
	t.Helper()
	got, ok := v.at(i)
	p := v.ptr(i)
	if li := i / leafSize; m.released[li] {
		if ok || p != nil {
			t.Fatalf("entry %d: its leaf is released, read %d, %v", i, got, ok)
		}
		return
	}
	if !ok || got != m.vals[i] || p == nil || *p != m.vals[i] {
		t.Fatalf("entry %d = %d (%v), want %d", i, got, ok, m.vals[i])
	}
}

// Past the end is still a bug that panics, dropped leaves or not.
func TestCowVecPastTheEnd(t *testing.T) {
	var v cowVec[int64]
	own := &token{}
	for i := 0; i < 3*leafSize; i++ {
		v.push(own)
	}
	for i := 0; i < leafSize; i++ {
		v.retire(i, own)
	}
	if v.off != 1 {
		t.Fatalf("off = %d after the first leaf retired, want 1", v.off)
	}
	for _, f := range []func(){
		func() { v.at(4 * leafSize) },
		func() { v.ptr(4 * leafSize) },
		func() { v.mut(4*leafSize, own) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic past the end")
				}
			}()
			f()
		}()
	}
}
