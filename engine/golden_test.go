package engine_test

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

var update = flag.Bool("update", false, "rewrite testdata/trace_hashes.golden")

// TestGoldenTraceHashes pins the trace hash of every bundled incident and
// listed fork: a change that alters a trace shows up in review as a change
// to testdata/trace_hashes.golden (regenerate with `go test ./engine -run
// Golden -update`).
func TestGoldenTraceHashes(t *testing.T) {
	var lines []string
	for _, procs := range []int{1, 2, 7} {
		prev := runtime.GOMAXPROCS(procs)
		var got []string
		for _, spec := range incidents.All() {
			runs := append([]engine.ForkSpec{{Name: "main"}}, spec.Forks...)
			for _, f := range runs {
				o := engine.RunOptions{Seed: spec.Seed}
				if f.HasAt {
					o.HasAt, o.At, o.AtSet = true, f.At, f.Set
				} else {
					o.Set = f.Set
				}
				s, _, err := engine.Run(spec, o)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, spec.ID+" "+f.Name+" "+s.TraceSHA256)
			}
		}
		runtime.GOMAXPROCS(prev)
		if lines == nil {
			lines = got
		} else if strings.Join(lines, "\n") != strings.Join(got, "\n") {
			t.Fatalf("GOMAXPROCS=%d changed a trace:\n%s\nvs\n%s", procs, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	path := filepath.Join("testdata", "trace_hashes.golden")
	text := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != text {
		t.Errorf("trace hashes changed; if intended, run go test ./engine -run Golden -update\ngot:\n%s\nwant:\n%s", text, want)
	}
}

// TestPublishedFigures checks every figure the incident files publish (their
// expect sections, and their forks') for the bundled incidents, one subtest each (the same table `inflight check` prints).
func TestPublishedFigures(t *testing.T) {
	for _, spec := range incidents.All() {
		res, err := engine.CheckSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Fatalf("%s publishes no figures", spec.ID)
		}
		for _, r := range res {
			t.Run(r.Incident+"/"+r.Run+"/"+r.Key, func(t *testing.T) {
				if !r.OK {
					t.Errorf("want %s, got %s", r.Want, r.Got)
				}
			})
		}
	}
}

// TestThursdayIssueFigures restates the engine issue's Thursday figures
// directly, so they hold even if the incident file's list changed.
func TestThursdayIssueFigures(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want int64
	}{
		{"messages", s.Messages, 108},
		{"effects", s.Effects, 324},
		{"duplicate_effects", s.DuplicateEffects, 216},
		{"dlq", s.DLQ, 108},
		{"lost", s.Lost, 0},
		{"late_acks_refused", s.LateAcksRefused, 324},
		{"alerts fired", int64(len(s.Alerts)), 0},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	if s.MaxOldestAgeS > 95 {
		t.Errorf("max_oldest_age_s = %v, want ≤ 95", s.MaxOldestAgeS)
	}
	if s.Busy < 0.45 || s.Busy > 0.60 {
		t.Errorf("busy = %v, want 0.45–0.60", s.Busy)
	}
}

// TestSeedsChangeTraces guards against a seed that is silently ignored.
func TestSeedsChangeTraces(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	a, _, _ := engine.Run(spec, engine.RunOptions{Seed: 1})
	b, _, _ := engine.Run(spec, engine.RunOptions{Seed: 2})
	c, _, _ := engine.Run(spec, engine.RunOptions{Seed: 1})
	if a.TraceSHA256 == b.TraceSHA256 {
		t.Error("seeds 1 and 2 give the same trace")
	}
	if a.TraceSHA256 != c.TraceSHA256 {
		t.Error("the same seed gives two traces")
	}
}
