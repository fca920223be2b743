package otlp_test

import (
	"bytes"
	"io"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// exportRun runs a bundled incident and exports its trace as OTLP JSON.
func exportRun(t testing.TB, id string) (engine.Summary, []byte) {
	t.Helper()
	spec, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Trace: &trace, Budget: engine.Budget{Events: otlp.MaxExportEvents}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := otlp.Export(&trace, &out, otlp.Meta{Incident: spec.ID, Seed: spec.Seed, FIFO: otlp.Ordered(spec, nil)}); err != nil {
		t.Fatal(err)
	}
	return sum, out.Bytes()
}

// TestRoundTrip: every bundled queue-family incident, exported, imported
// back and run, gives the original run's figures, and check passes on the
// imported file figure by figure.
func TestRoundTrip(t *testing.T) {
	for _, id := range []string{"thursday", "thursday-fixed", "christmas-friday"} {
		t.Run(id, func(t *testing.T) {
			want, data := exportRun(t, id)
			rec, err := otlp.Read(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			y, err := rec.Incident(id+"-imported", nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := incidents.Parse(id+"-imported.yaml", y)
			if err != nil {
				t.Fatalf("%v\n%s", err, y)
			}
			res, err := engine.CheckSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) < 8 {
				t.Fatalf("%d expectations checked, want the 8 observed figures", len(res))
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
			for _, f := range []struct {
				name      string
				got, want any
			}{
				{"messages", got.Messages, want.Messages},
				{"deliveries", got.Deliveries, want.Deliveries},
				{"effects", got.Effects, want.Effects},
				{"duplicate_effects", got.DuplicateEffects, want.DuplicateEffects},
				{"dlq", got.DLQ, want.DLQ},
				{"late_acks_refused", got.LateAcksRefused, want.LateAcksRefused},
				{"max_oldest_age_s", got.MaxOldestAgeS, want.MaxOldestAgeS},
			} {
				if f.got != f.want {
					t.Errorf("%s: imported run %v, original %v", f.name, f.got, f.want)
				}
			}
		})
	}
}

// TestExportDeterministic: the same run gives the same bytes.
func TestExportDeterministic(t *testing.T) {
	_, a := exportRun(t, "thursday")
	_, b := exportRun(t, "thursday")
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of the same run differ")
	}
}
