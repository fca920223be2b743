package verify

import (
	"bytes"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// TestVerifyOTLPImport is the proof on spans no one here wrote: the real
// test's spans, as a Collector's file exporter keeps them, imported as an
// incident, which `check` passes and whose run matches what really
// happened: the crashes, the credits (the balance) and the redeliveries
// Redis counted.
func TestVerifyOTLPImport(t *testing.T) {
	r := tracedRun(t)
	for _, side := range r.res.Sides {
		label := dedupeLabel(side.Dedupe)
		rec, err := otlp.Read(bytes.NewReader(r.files[side.Dedupe]))
		if err != nil {
			t.Fatalf("%s: import: %v", label, err)
		}
		var log strings.Builder
		y, err := rec.Incident("verify-real", nil, &log)
		if err != nil {
			t.Fatalf("%s: incident: %v", label, err)
		}
		spec, err := incidents.Parse("verify-real.yaml", y)
		if err != nil {
			t.Fatalf("%s: %v\n%s", label, err, y)
		}
		t.Logf("%s: import says:\n%s", label, log.String())
		res, err := engine.CheckSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Errorf("%s: the incident expects nothing", label)
		}
		for _, c := range res {
			if !c.OK {
				t.Errorf("%s: check: %s %s want %s, got %s", label, c.Run, c.Key, c.Want, c.Got)
			}
		}
		sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
		if err != nil {
			t.Fatal(err)
		}
		crashes, ok := figure(sum.Figures["crashes"])
		if !ok || crashes != side.Crashes {
			t.Errorf("%s: the imported run crashes %v times, really %d", label, sum.Figures["crashes"], side.Crashes)
		}
		if sum.Effects*Amount != side.Actual {
			t.Errorf("%s: the imported run credits %d × %d, the real wallet holds %d", label, sum.Effects, Amount, side.Actual)
		}
		if side.Dedupe && side.Actual != side.Expected || !side.Dedupe && side.Actual-side.Expected != Amount*crashes {
			t.Errorf("%s: balance %d for %d events and %d crashes", label, side.Actual, r.events, crashes)
		}
		if sum.Messages != int64(r.events) || sum.Deliveries-sum.Messages != side.Redelivered {
			t.Errorf("%s: the imported run delivers %d messages %d times (%d redelivered); really %d entries, %d redelivered",
				label, sum.Messages, sum.Deliveries, sum.Deliveries-sum.Messages, r.events, side.Redelivered)
		}
		t.Logf("%s: imported run: %d messages, %d deliveries, %d effects, crashes %v, balance %v; %d checks pass",
			label, sum.Messages, sum.Deliveries, sum.Effects, sum.Figures["crashes"], sum.Figures["balance"], len(res))
	}
}
