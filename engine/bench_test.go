package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// BenchmarkHeadlessMillion is the engine issue's load: thursday with a
// million orders at the same 50 s spacing, played headless to the end.
func BenchmarkHeadlessMillion(b *testing.B) {
	spec, _ := incidents.Get("thursday")
	set := []engine.Setting{{Knob: "orders", Value: "1000000"}}
	for i := 0; i < b.N; i++ {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s.Events)/b.Elapsed().Seconds()*float64(i+1), "events/s")
	}
}
