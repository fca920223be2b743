package otlp_test

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// schedIncident is a cashback incident with a publish schedule of its own
// (bursts, gaps, a step of 2 ms) and four handler-time pins: every other
// handled delivery draws its handler time from 0, 2, 5 and 9 ms.
func schedIncident(dedupe string) string {
	return `id: sched-orig
title: sched
story: s
label: event
start: "10:00:00"
seed: 1
family: cashback
params:
  events: 300
  crash_p: 0.05
  dedupe: "` + dedupe + `"
publish: |
  0 x5
  3 x100 +2
  400
  410 x194 +1
pins:
  - {decision: handle, message: 0, delivery: 1, value: 0ms}
  - {decision: handle, message: 1, delivery: 1, value: 2ms}
  - {decision: handle, message: 2, delivery: 1, value: 5ms}
  - {decision: handle, message: 3, delivery: 1, value: 9ms}
`
}

// exportSpec runs spec and exports its trace as Redis Streams spans.
func exportSpec(t *testing.T, spec *engine.Spec) (engine.Summary, []byte) {
	t.Helper()
	var trace bytes.Buffer
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Trace: &trace, Budget: engine.Budget{Events: otlp.MaxExportEvents}})
	if err != nil {
		t.Fatal(err)
	}
	m := otlp.Meta{Incident: spec.ID, Seed: spec.Seed}
	if err := otlp.StreamsMeta(&m, spec, nil, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := otlp.Export(&trace, &out, m); err != nil {
		t.Fatal(err)
	}
	return sum, out.Bytes()
}

// spanTimes lists every span of an export by what it is, never by its
// ids (they hash the incident's id): its instance, name, entry, delivery
// count, start and end, sorted.
func spanTimes(t *testing.T, data []byte) []string {
	t.Helper()
	var all []ptrace.Span
	inst := map[int]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	var un ptrace.JSONUnmarshaler
	for sc.Scan() {
		td, err := un.UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			in, ok := rs.Resource().Attributes().Get("service.instance.id")
			name := "producer"
			if ok {
				name = in.Str()
			}
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					inst[len(all)] = name
					all = append(all, ss.At(k))
				}
			}
		}
	}
	entry := map[pcommon.TraceID]string{}
	for _, s := range all {
		if op, _ := s.Attributes().Get("messaging.operation.type"); op.Str() == "send" && s.ParentSpanID().IsEmpty() {
			id, _ := s.Attributes().Get("messaging.message.id")
			entry[s.TraceID()] = id.Str()
		}
	}
	var out []string
	for i, s := range all {
		n := int64(0)
		if v, ok := s.Attributes().Get(otlp.AttrDeliveryCount); ok {
			n = v.Int()
		}
		out = append(out, fmt.Sprintf("%s %s %s %d %d %d", inst[i], s.Name(), entry[s.TraceID()], n, s.StartTimestamp(), s.EndTimestamp()))
	}
	sort.Strings(out)
	return out
}

// TestRoundTripStreamsTimes: a cashback run with a publish schedule and
// varied handler times, exported, imported and run again, exports the
// same spans at the same times (the publish times, each handler's write,
// each XACK, each read), and its figures are the original's; check
// passes. With dedupe=separate the handler time is the SADD's, before
// the credit.
func TestRoundTripStreamsTimes(t *testing.T) {
	for _, dedupe := range []string{"false", "true", "separate"} {
		t.Run("dedupe="+dedupe, func(t *testing.T) {
			orig, err := incidents.Parse("sched-orig.yaml", []byte(schedIncident(dedupe)))
			if err != nil {
				t.Fatal(err)
			}
			want, first := exportSpec(t, orig)
			spec, log := importSpec(t, first, "sched-imported")
			if !strings.Contains(log, "publish schedule: the 300 XADD spans' start times, in 4 rows") || !strings.Contains(log, "0–9 ms") {
				t.Errorf("import's log:\n%s", log)
			}
			checkImported(t, spec, 9, want, streamFigures)
			_, second := exportSpec(t, spec)
			a, b := spanTimes(t, first), spanTimes(t, second)
			if strings.Join(a, "\n") != strings.Join(b, "\n") {
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("span %d of %d/%d: %s, after the round trip %s", i, len(a), len(b), a[i], b[i])
					}
				}
				t.Fatalf("%d spans, after the round trip %d", len(a), len(b))
			}
			// the test means something: bursts in the schedule, and the
			// handler's write taking each of the pinned times
			sends, writes := map[string]bool{}, map[int64]int{}
			for _, s := range a {
				f := strings.Fields(s)
				var start, end int64
				fmt.Sscan(f[len(f)-2], &start)
				fmt.Sscan(f[len(f)-1], &end)
				switch {
				case strings.Contains(s, " send cashback-events "):
					sends[f[len(f)-2]] = true
				case strings.Contains(s, " UPDATE wallet ") && dedupe != "separate", strings.Contains(s, " SADD processed "):
					// the handler time: to the XACK, or, with the
					// processed record apart, to the credit after it
					writes[(end-start)/1e6]++
				}
			}
			if len(sends) >= 300 || len(writes) != 4 || writes[0] == 0 || writes[9] == 0 {
				t.Errorf("%d distinct publish times for 300 entries; write durations %v, want 0, 2, 5 and 9 ms", len(sends), writes)
			}
			t.Logf("%d spans, %d publish instants, write durations (ms: count) %v, %v crashes", len(a), len(sends), writes, want.Figures["crashes"])
		})
	}
}

// TestStreamsTimesFork: a fork of the imported incident that makes new
// deliveries (100 more entries, past the schedule) draws their handler times from the pinned
// ones, the same on every run; the lesson's knobs left alone, every
// delivery keeps its pin.
func TestStreamsTimesFork(t *testing.T) {
	orig, err := incidents.Parse("sched-orig.yaml", []byte(schedIncident("false")))
	if err != nil {
		t.Fatal(err)
	}
	_, data := exportSpec(t, orig)
	spec, _ := importSpec(t, data, "sched-fork")
	pinned := map[int64]bool{}
	for _, p := range spec.Pins {
		if p.Kind >= engine.FamilyDecision {
			pinned[p.Value] = true
		}
	}
	handler := func(set []engine.Setting) (forced, drawn int, hash string) {
		var trace bytes.Buffer
		sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: set, Trace: &trace})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(trace.String(), "\n") {
			if !strings.Contains(l, "handler takes") {
				continue
			}
			var v int64
			i := strings.Index(l, `"chosen":`)
			fmt.Sscan(strings.TrimRight(strings.SplitN(l[i+9:], ",", 2)[0], "}"), &v)
			if !pinned[v] {
				t.Fatalf("handler time %d ms, none observed: %s", v, l)
			}
			if strings.Contains(l, `"forced":true`) {
				forced++
			} else {
				drawn++
			}
		}
		return forced, drawn, sum.TraceSHA256
	}
	f, d, _ := handler(nil)
	if f == 0 || d != 0 {
		t.Errorf("the imported run: %d handler times pinned, %d drawn; want all pinned", f, d)
	}
	set := []engine.Setting{{Knob: "events", Value: "400"}}
	f, d, h1 := handler(set)
	_, _, h2 := handler(set)
	if d == 0 || h1 != h2 {
		t.Errorf("events=400: %d pinned, %d drawn, hashes %s %s; want some drawn, one hash", f, d, h1, h2)
	}
	t.Logf("events=400: %d handler times pinned, %d drawn from the %d observed values", f, d, len(pinned))
}

// TestStreamsPinBound: with varied handler times an import pins two
// decisions per handled delivery in its pin_table; near the bound of
// handled deliveries every one is pinned and the file parses, and past
// it the import is refused in one line.
func TestStreamsPinBound(t *testing.T) {
	run := func(events, crashP string) []byte {
		src := strings.Replace(schedIncident("false"), "events: 300", "events: "+events, 1)
		src = strings.Replace(src, "crash_p: 0.05", "crash_p: "+crashP, 1)
		orig, err := incidents.Parse("sched-orig.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		_, data := exportSpec(t, orig)
		return data
	}
	spec, log := importSpec(t, run("5300", "0.002"), "sched-big")
	handled := 0
	for _, p := range spec.Pins {
		if p.Kind == engine.DecCrash {
			handled++
		}
	}
	if handled < 5300 || handled > otlp.MaxStreamHandled || len(spec.Pins) != 2*handled || !strings.Contains(log, fmt.Sprintf("handler times: %d pinned", handled)) {
		t.Fatalf("%d pins for %d handled deliveries, want two each, log:\n%s", len(spec.Pins), handled, log)
	}
	if _, err := otlp.Read(bytes.NewReader(run("5300", "0.05"))); err == nil || !strings.Contains(err.Error(), "handled deliveries; import takes at most 5400") {
		t.Fatalf("past the bound: %v", err)
	}
}
