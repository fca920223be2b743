package hunt

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// BenchmarkBranches measures branches a second on thursday-fixed from
// 19:40:20, one core, faults on: depth 1 over every decision and fault
// point, then pairs, b.N branches in all, each played to its end. The
// property always holds (108 messages), so no find cuts the search
// short. The README's performance table quotes its branches/s.
func BenchmarkBranches(b *testing.B) {
	spec, err := incidents.Get("thursday-fixed")
	if err != nil {
		b.Fatal(err)
	}
	p := &engine.Property{Name: "all-published", Words: "every order is published", Checks: []engine.Expectation{{Key: "messages", Want: "108"}}}
	b.ResetTimer()
	res, err := Hunt(Options{Spec: spec, Seed: spec.Seed, Property: p, Depth: 2, Budget: b.N, Faults: true, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	if res.Found || res.Tried != b.N {
		b.Fatalf("played %d branches of %d (found: %v)", res.Tried, b.N, res.Found)
	}
	b.ReportMetric(float64(res.Tried)/b.Elapsed().Seconds(), "branches/s")
}

// BenchmarkBranchesBounded is BenchmarkBranches under `inflight hunt`'s
// default memory budget: what the accounting costs.
func BenchmarkBranchesBounded(b *testing.B) {
	spec, err := incidents.Get("thursday-fixed")
	if err != nil {
		b.Fatal(err)
	}
	p := &engine.Property{Name: "all-published", Words: "every order is published", Checks: []engine.Expectation{{Key: "messages", Want: "108"}}}
	acct := engine.NewAccount(engine.Limits{Bytes: 1 << 30, BytesFlag: "--max-memory-mb"}, nil)
	b.ResetTimer()
	res, err := Hunt(Options{Spec: spec, Seed: spec.Seed, Property: p, Depth: 2, Budget: b.N, Faults: true, Workers: 1, Account: acct})
	if err != nil {
		b.Fatal(err)
	}
	if res.Found || res.Tried != b.N {
		b.Fatalf("played %d branches of %d (found: %v)", res.Tried, b.N, res.Found)
	}
	b.ReportMetric(float64(res.Tried)/b.Elapsed().Seconds(), "branches/s")
}
