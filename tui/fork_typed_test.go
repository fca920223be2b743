package tui

import (
	"strings"
	"testing"

	"inflight/incidents"
)

// Typed on a duration knob, what no knob's name holds is the knob's
// value (enter refuses it), not a filter that leaves nothing.
func TestForkTypedValueNotFilter(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	m := newTest(t, Options{Spec: spec}, 120, 40)
	m = press(m, "f", "down", "down")
	if m.state != stateFork || m.fork.dec != nil {
		t.Fatalf("state %s, decision %v: want the form with no decision", m.state, m.fork.dec != nil)
	}
	k := m.fork.knobs[m.fork.row-1]
	if k.Name != "latency_max" {
		t.Fatalf("two rows down is %s", k.Name)
	}
	m = press(m, keysOf("true")...)
	f := m.fork
	if f.filters || f.filter.Value() != "" {
		t.Fatalf("typing went to the filter (%q)", f.filter.Value())
	}
	if f.row != 3 || f.inputs[2].Value() != "true" {
		t.Fatalf("row %d, latency_max %q: want row 3 holding \"true\"", f.row, f.inputs[2].Value())
	}
	if v := m.View(); !strings.Contains(v, "latency_max        true") {
		t.Fatalf("the view does not show the typed value:\n%s", v)
	}
	m = press(m, "enter")
	if m.state != stateFork || !strings.Contains(m.fork.err, "latency_max") {
		t.Fatalf("enter: state %s, err %q: want a refusal naming latency_max", m.state, m.fork.err)
	}
	// a name that is there still filters
	m = press(m, "esc")
	m = press(m, "f", "down", "down")
	m = press(m, keysOf("hea")...)
	if f := m.fork; !f.filters || f.filter.Value() != "hea" || f.knobs[f.row-1].Name != "heartbeat" {
		t.Fatalf("filters %v %q, row %d: want heartbeat by filter", f.filters, f.filter.Value(), f.row)
	}
}

// With no featured message the fork form does not speak of one's worker.
func TestForkHelpNoFeatured(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	m := newTest(t, Options{Spec: spec}, 160, 40)
	if v := press(m, "f").View(); !strings.Contains(v, "the featured order's first worker dies") {
		t.Fatalf("the bundled words changed:\n%s", v)
	}
	s := *spec
	s.Featured = -1
	v := press(newTest(t, Options{Spec: &s}, 160, 40), "f").View()
	if strings.Contains(v, "featured order's") || !strings.Contains(v, "no order is featured here, so never") {
		t.Fatalf("crash_after_claim's words with no featured order:\n%s", v)
	}
}
