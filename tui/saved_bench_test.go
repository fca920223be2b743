package tui

import (
	"fmt"
	"path/filepath"
	"testing"

	"inflight/engine"
)

// benchTree is thursday with n branches, each forked a few events after
// the one before, off the one before.
func benchTree(b *testing.B, n int) *engine.Explorer {
	b.Helper()
	s := specOf(b, "thursday")
	x, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		pos := int64(180 + 3*i)
		x.Goto(pos)
		if _, err := x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: fmt.Sprintf("%ds", 31+i)}}}); err != nil {
			b.Fatal(err)
		}
	}
	return x
}

// The quit path's cost: the tree as codes, checked by the parser, written
// atomically (go test ./tui -run XXX -bench SavedTree).
func BenchmarkSavedTreeWrite(b *testing.B) {
	for _, n := range []int{3, 50} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x := benchTree(b, n)
			p := filepath.Join(b.TempDir(), "thursday.branches")
			for i := 0; i < b.N; i++ {
				if err := writeTree(p, x, x.Code()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Restoring a saved tree on a fresh explorer (a job, off the update loop).
func BenchmarkSavedTreeRestore(b *testing.B) {
	for _, n := range []int{3, 50} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x := benchTree(b, n)
			t, _ := treeOf(x, x.Code())
			for i := 0; i < b.N; i++ {
				y, err := engine.NewExplorer(x.Spec, x.Seed, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := restoreTree(y, t); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
