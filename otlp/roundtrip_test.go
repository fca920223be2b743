package otlp_test

import (
	"bytes"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// exportRun runs a bundled incident, with knob changes set from its start,
// and exports its trace as OTLP JSON, as `inflight run ID --otlp` does.
func exportRun(t testing.TB, id string, set ...engine.Setting) (engine.Summary, []byte) {
	t.Helper()
	spec, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set, Trace: &trace, Budget: engine.Budget{Events: otlp.MaxExportEvents}})
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
			spec, _ := importSpec(t, data, id+"-imported")
			checkImported(t, spec, 8, want, queueFigures)
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
