package tui

import "testing"

// `inflight --seed 0` opens seed 0: the root resolves the default once,
// and the explorer does not decide it a second time.
func TestSeedZeroIsASeed(t *testing.T) {
	spec, err := bundledSpec("thursday")
	if err != nil {
		t.Fatal(err)
	}
	sh := NewShared(DefaultBudget(), nil, 0)
	for _, c := range []struct {
		o    Options
		want uint64
	}{
		{Options{Spec: spec, Seed: 0, SeedSet: true}, 0},
		{Options{Spec: spec}, spec.Seed},
		{Options{Spec: spec, Seed: 7, SeedSet: true}, 7},
	} {
		x, err := openExplorer(c.o, sh)
		if err != nil {
			t.Fatal(err)
		}
		if x.Seed != c.want {
			t.Errorf("%+v opened seed %d, want %d", c.o, x.Seed, c.want)
		}
	}
}
