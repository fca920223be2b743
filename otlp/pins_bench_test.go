package otlp_test

import (
	"bytes"
	"io"
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

// BenchmarkImportedThursdayRun: thursday exported and imported back, two
// pins a delivery, at the importer's MaxMessages (2,000 orders, 12,000
// pins in the file's pin_table).
func BenchmarkImportedThursdayRun(b *testing.B) {
	_, data := exportOrders(b, otlp.MaxMessages)
	imported, _ := importSpec(b, data, "thursday-imported")
	benchRun(b, imported)
}

// BenchmarkParseImportedThursday: the incident parser on that file.
func BenchmarkParseImportedThursday(b *testing.B) {
	_, data := exportOrders(b, otlp.MaxMessages)
	rec, err := otlp.Read(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	y, err := rec.Incident("thursday-imported", nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := incidents.Parse("thursday-imported.yaml", y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(y)), "file-bytes")
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
