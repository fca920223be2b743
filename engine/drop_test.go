package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

func TestDeleteBranch(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Every = 50 // checkpoints on the short branch
	pool := &engine.Pool{}
	x.Limit(engine.Limits{}, pool)
	x.Goto(178)
	b, err := x.Fork(engine.ForkOptions{Pos: 178, At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
	if err != nil {
		t.Fatal(err)
	}
	x.End()
	used := pool.Used()
	if err := x.DeleteBranch(x.Branches()[0]); err == nil {
		t.Fatal("deleted the lesson's run")
	}
	if err := x.DeleteBranch(b); err != nil {
		t.Fatal(err)
	}
	if len(x.Branches()) != 1 || x.Branch() != x.Branches()[0] || x.Pos() != 178 {
		t.Fatalf("%d branches, on %s at %d", len(x.Branches()), x.Branch().Name, x.Pos())
	}
	if pool.Used() >= used || pool.Used() < 0 || x.Bytes() < 0 {
		t.Fatalf("pool %d → %d, explorer %d", used, pool.Used(), x.Bytes())
	}
}
