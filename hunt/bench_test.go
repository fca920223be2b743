package hunt

import (
	"testing"

	"inflight/incidents"
)

// BenchmarkBranches measures branches a second on thursday-fixed from
// 19:40:20, one core: depth 1 over every decision, then random
// schedules, b.N branches in all. The README's performance table quotes
// its branches/s.
func BenchmarkBranches(b *testing.B) {
	spec, err := incidents.Get("thursday-fixed")
	if err != nil {
		b.Fatal(err)
	}
	p := propertyNamed(b, spec, "one-email")
	b.ResetTimer()
	res, err := Hunt(Options{Spec: spec, Seed: spec.Seed, Property: p, Depth: 2, Budget: b.N, Faults: true, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Tried)/b.Elapsed().Seconds(), "branches/s")
}
