package otlp_test

import (
	"bytes"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// Imported incidents pin every delivery: these run the largest ones an
// import makes headless, the load the pin lookup is for.

// BenchmarkImportedCashbackRun: the cashback run's 5,000 entries, exported
// as Redis Streams spans and imported back, a crash pin per handled delivery.
func BenchmarkImportedCashbackRun(b *testing.B) {
	_, data := exportCashback(b)
	spec, _ := importSpec(b, data, "cashback-imported")
	benchRun(b, spec)
}

// BenchmarkImportedThursdayRun: thursday exported and imported back, a pin
// per delivery, at 900 orders: at 1,000 the imported file passes the
// incident parser's token bound, well before the importer's MaxMessages.
func BenchmarkImportedThursdayRun(b *testing.B) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		b.Fatal(err)
	}
	set := []engine.Setting{{Knob: "orders", Value: "900"}}
	var trace bytes.Buffer
	if _, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set, Trace: &trace, Budget: engine.Budget{Events: otlp.MaxExportEvents}}); err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	if err := otlp.Export(&trace, &out, otlp.Meta{Incident: spec.ID, Seed: spec.Seed}); err != nil {
		b.Fatal(err)
	}
	imported, _ := importSpec(b, out.Bytes(), "thursday-imported")
	benchRun(b, imported)
}

func benchRun(b *testing.B, spec *engine.Spec) {
	var events int64
	for b.Loop() {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
		if err != nil {
			b.Fatal(err)
		}
		events = s.Events
	}
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(len(spec.Pins)), "pins")
}
