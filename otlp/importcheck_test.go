package otlp_test

import (
	"testing"

	"inflight/engine"
)

// figure is one summary figure an imported run must give as the run its
// spans came from did.
type figure struct {
	name string
	of   func(engine.Summary) any
}

var queueFigures = []figure{
	{"messages", func(s engine.Summary) any { return s.Messages }},
	{"deliveries", func(s engine.Summary) any { return s.Deliveries }},
	{"effects", func(s engine.Summary) any { return s.Effects }},
	{"duplicate_effects", func(s engine.Summary) any { return s.DuplicateEffects }},
	{"dlq", func(s engine.Summary) any { return s.DLQ }},
	{"late_acks_refused", func(s engine.Summary) any { return s.LateAcksRefused }},
	{"max_oldest_age_s", func(s engine.Summary) any { return s.MaxOldestAgeS }},
}

var streamFigures = []figure{
	{"messages", func(s engine.Summary) any { return s.Messages }},
	{"deliveries", func(s engine.Summary) any { return s.Deliveries }},
	{"effects", func(s engine.Summary) any { return s.Effects }},
	{"duplicate_effects", func(s engine.Summary) any { return s.DuplicateEffects }},
	{"lost", func(s engine.Summary) any { return s.Lost }},
	{"dlq", func(s engine.Summary) any { return s.DLQ }},
	{"crashes", func(s engine.Summary) any { return s.Figures["crashes"] }},
	{"balance", func(s engine.Summary) any { return s.Figures["balance"] }},
	{"dead_lettered_never_applied", func(s engine.Summary) any { return s.Figures["dead_lettered_never_applied"] }},
}

// checkImported: check passes every expectation of the imported spec (at
// least expect of them: the observed figures), and its run gives figs as
// the original run want did.
func checkImported(t *testing.T, spec *engine.Spec, expect int, want engine.Summary, figs []figure) {
	t.Helper()
	res, err := engine.CheckSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < expect {
		t.Fatalf("%d expectations checked, want the %d observed figures", len(res), expect)
	}
	for _, r := range res {
		if !r.OK {
			t.Errorf("%s: %s want %s, got %s", r.Run, r.Key, r.Want, r.Got)
		}
	}
	got, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if g, w := f.of(got), f.of(want); g != w {
			t.Errorf("%s: imported run %v, original %v", f.name, g, w)
		}
	}
}
