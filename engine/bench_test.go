package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
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

var million struct {
	x   *engine.Explorer
	end int64
}

// exploredMillion builds (once) an explorable million-order run played to
// its end, the state every seek and fork benchmark starts from.
func exploredMillion(b *testing.B) *engine.Explorer {
	if million.x == nil {
		spec, _ := incidents.Get("thursday")
		x, err := engine.NewExplorer(spec, spec.Seed, []engine.Setting{{Knob: "orders", Value: "1000000"}})
		if err != nil {
			b.Fatal(err)
		}
		x.End()
		million.x, million.end = x, x.Pos()
	}
	return million.x
}

// BenchmarkExploreMillion plays the million-order run as an explorable
// (seekable, forkable) run and reports the live heap it keeps.
func BenchmarkExploreMillion(b *testing.B) {
	spec, _ := incidents.Get("thursday")
	for i := 0; i < b.N; i++ {
		x, err := engine.NewExplorer(spec, spec.Seed, []engine.Setting{{Knob: "orders", Value: "1000000"}})
		if err != nil {
			b.Fatal(err)
		}
		x.End()
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
		b.ReportMetric(peakRSS(), "peak-RSS-MB")
		b.ReportMetric(float64(x.Pos())/b.Elapsed().Seconds()*float64(i+1), "events/s")
		runtime.KeepAlive(x)
		b.StartTimer()
	}
}

// BenchmarkSeekMillion seeks to random points of the explored run.
func BenchmarkSeekMillion(b *testing.B) {
	x := exploredMillion(b)
	r := rand.New(rand.NewPCG(1, 1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Goto(r.Int64N(million.end))
	}
}

// BenchmarkSeekTimeMillion seeks to random clock times of the explored run.
func BenchmarkSeekTimeMillion(b *testing.B) {
	x := exploredMillion(b)
	start := x.Spec.Start
	span := int64(1_000_000 * 50 * engine.Second)
	r := rand.New(rand.NewPCG(2, 2))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.SeekTime(start + engine.Time(r.Int64N(span)))
	}
}

// BenchmarkForkMillion forks the explored run at the cursor with a knob
// change (the new branch is not played: a fork is its creation).
func BenchmarkForkMillion(b *testing.B) {
	x := exploredMillion(b)
	main := x.Branches()[0]
	x.Switch(main)
	x.Goto(million.end / 2)
	set := []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: set}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		x.Switch(main)
		b.StartTimer()
	}
}

// BenchmarkStepThursday is the per-event cost of stepping the cursor of
// the lesson's run forward, as the explorer does when playing.
func BenchmarkStepThursday(b *testing.B) {
	spec, _ := incidents.Get("thursday")
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	x.End()
	end := x.Pos()
	x.Goto(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if x.Pos() >= end {
			x.Goto(0)
		}
		x.Step(1)
	}
}

// peakRSS is the process's peak resident set (VmHWM), in MB, or 0 where
// /proc is not there.
func peakRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
