package otlp_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// exportCashback runs the cashback incident with set and exports its trace
// as Redis Streams spans.
func exportCashback(t testing.TB, set ...string) (engine.Summary, []byte) {
	t.Helper()
	spec, err := incidents.Get("cashback")
	if err != nil {
		t.Fatal(err)
	}
	var ss []engine.Setting
	for _, s := range set {
		k, v, _ := strings.Cut(s, "=")
		ss = append(ss, engine.Setting{Knob: k, Value: v})
	}
	var trace bytes.Buffer
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: ss, Trace: &trace, Budget: engine.Budget{Events: otlp.MaxExportEvents}})
	if err != nil {
		t.Fatal(err)
	}
	m := otlp.Meta{Incident: spec.ID, Seed: spec.Seed}
	if err := otlp.StreamsMeta(&m, spec, ss, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := otlp.Export(&trace, &out, m); err != nil {
		t.Fatal(err)
	}
	return sum, out.Bytes()
}

func importSpec(t testing.TB, data []byte, id string) (*engine.Spec, string) {
	t.Helper()
	rec, err := otlp.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	y, err := rec.Incident(id, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := incidents.Parse(id+".yaml", y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return spec, log.String()
}

// TestRoundTripStreams: cashback runs, exported as Redis Streams spans and
// imported back, reproduce their figures, and check passes figure by
// figure: without and with dedupe, and with dead letters.
func TestRoundTripStreams(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []string
		log  string
	}{
		{"crashes", []string{"events=400", "crash_p=0.05"}, "inferred dedupe=false"},
		{"dedupe", []string{"events=400", "crash_p=0.05", "dedupe=true"}, "inferred dedupe=true from 415 processed-row INSERTs"},
		{"separate store", []string{"events=400", "crash_p=0.05", "dedupe=separate"}, `inferred dedupe=separate from 415 processed records (400 first, 15 repeat) in "redis", a store apart from the wallet's "sqlite"`},
		{"dead letters", []string{"events=60", "crash_p=0.5", "max_receives=4", "dedupe=true"}, "inferred max_receives=4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, data := exportCashback(t, c.set...)
			spec, log := importSpec(t, data, "streams-imported")
			if !strings.Contains(log, c.log) || !strings.Contains(log, "inferred restart_after=1s") {
				t.Errorf("import's log does not say %q and restart_after=1s:\n%s", c.log, log)
			}
			checkImported(t, spec, 9, want, streamFigures)
		})
	}
}

// TestStreamsFork: the imported incident's fork dedupe=true keeps the
// recorded crashes and makes the balance exact; with crash_p=0 the crash
// pins give way and nothing crashes.
func TestStreamsFork(t *testing.T) {
	want, data := exportCashback(t, "events=400", "crash_p=0.05")
	spec, _ := importSpec(t, data, "streams-fork")
	for _, c := range []struct {
		set     []engine.Setting
		crashes int64
		gave    bool
	}{
		{[]engine.Setting{{Knob: "dedupe", Value: "true"}}, want.Figures["crashes"].(int64), false},
		{[]engine.Setting{{Knob: "dedupe", Value: "true"}, {Knob: "crash_p", Value: "0"}}, 0, true},
	} {
		got, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: c.set})
		if err != nil {
			t.Fatal(err)
		}
		if got.Figures["crashes"] != c.crashes || got.Figures["balance"] != int64(400*100) || got.DuplicateEffects != 0 {
			t.Errorf("%v: crashes %v, balance %v, duplicates %d; want %d crashes, 40000, 0", c.set, got.Figures["crashes"], got.Figures["balance"], got.DuplicateEffects, c.crashes)
		}
		if (len(got.PinsGaveWay) > 0) != c.gave {
			t.Errorf("%v: %d pins gave way", c.set, len(got.PinsGaveWay))
		}
	}
}

// TestExportStreamsDeterministic: the same cashback run gives the same bytes.
func TestExportStreamsDeterministic(t *testing.T) {
	_, a := exportCashback(t, "events=200", "crash_p=0.05")
	_, b := exportCashback(t, "events=200", "crash_p=0.05")
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of the same run differ")
	}
}

// mutate passes every span of an export to f, which may rewrite it and
// says whether it did; one must.
func mutate(t testing.TB, data []byte, f func(s ptrace.Span) bool) []byte {
	t.Helper()
	var out []byte
	done := false
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(l)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			for j := 0; j < td.ResourceSpans().At(i).ScopeSpans().Len(); j++ {
				ss := td.ResourceSpans().At(i).ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					if f(ss.At(k)) {
						done = true
					}
				}
			}
		}
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	if !done {
		t.Fatal("no span mutated")
	}
	return out
}

func opType(s ptrace.Span) string {
	v, _ := s.Attributes().Get("messaging.operation.type")
	return v.Str()
}

// TestBadStreams: Redis Streams spans the cashback family cannot take are
// refused in one line each.
func TestBadStreams(t *testing.T) {
	_, data := exportCashback(t, "events=30", "crash_p=0.2")
	first := func(op string, f func(s ptrace.Span)) func(ptrace.Span) bool {
		done := false
		return func(s ptrace.Span) bool {
			if done || opType(s) != op {
				return false
			}
			f(s)
			done = true
			return true
		}
	}
	var recvStart ptrace.Span
	for _, c := range []struct {
		name string
		f    func(ptrace.Span) bool
		want string
	}{
		{"two groups", first("process", func(s ptrace.Span) { s.Attributes().PutStr("messaging.consumer.group.name", "other") }), "spans name two consumer groups"},
		{"two consumers", first("receive", func(s ptrace.Span) { s.Attributes().PutStr("messaging.client.id", "consumer-2") }), "spans name two consumers"},
		{"two streams", first("send", func(s ptrace.Span) { s.Attributes().PutStr("messaging.destination.name", "other-stream") }), "spans name two streams"},
		{"receive with no group", first("receive", func(s ptrace.Span) { s.Attributes().Remove("messaging.consumer.group.name") }), "no messaging.consumer.group.name"},
		{"count disagrees", first("process", func(s ptrace.Span) { s.Attributes().PutInt(otlp.AttrDeliveryCount, 3) }), "cannot be ordered"},
		{"new read delivers again", func(s ptrace.Span) bool {
			v, _ := s.Attributes().Get(otlp.AttrReadFrom)
			if opType(s) == "receive" && v.Str() == "0" {
				s.Attributes().PutStr(otlp.AttrReadFrom, ">")
				return true
			}
			return false
		}, "cannot be ordered"},
		{"two reads at one instant", func(s ptrace.Span) bool {
			if opType(s) != "receive" {
				return false
			}
			if recvStart == (ptrace.Span{}) {
				recvStart = s
				return false
			}
			s.SetStartTimestamp(recvStart.StartTimestamp())
			return true
		}, "cannot be ordered"},
		{"two systems", first("send", func(s ptrace.Span) { s.Attributes().PutStr("messaging.system", "aws_sqs") }), "two messaging systems"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := mutate(t, data, c.f)
			_, err := otlp.Read(bytes.NewReader(in))
			if err == nil {
				t.Fatal("read without an error")
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line containing %q", err, c.want)
			}
		})
	}
	// the bound: an entry more than the incident can pin
	var many []sp
	for i := 0; i <= otlp.MaxStreamEntries; i++ {
		many = append(many, sp{op: "send", system: "redis", dest: "s", msg: fmt.Sprintf("%d-0", i+1), start: sec})
	}
	if _, err := otlp.Read(bytes.NewReader(request(many...))); err == nil || !strings.Contains(err.Error(), "stream entries; import takes at most") {
		t.Errorf("%d entries: error %v, want the bound's", len(many), err)
	}
	// the guard: names from redis spans reach the file cleaned
	bad := mutate(t, data, func(s ptrace.Span) bool {
		a := s.Attributes()
		if _, ok := a.Get("messaging.destination.name"); ok {
			a.PutStr("messaging.destination.name", "s\x1b[31m\u202e")
		}
		if _, ok := a.Get("messaging.client.id"); ok {
			a.PutStr("messaging.client.id", "c\x1b[2J")
		}
		return true
	})
	rec, err := otlp.Read(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	y, err := rec.Incident("guarded", nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, y)
	checkText(t, log.Bytes())
	if _, err := incidents.Parse("guarded.yaml", y); err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
}

// TestCrashPins: an incident pins a crash decision by entry and delivery
// count, and the parser takes 0 and 1 only.
func TestCrashPins(t *testing.T) {
	file := func(v string) []byte {
		return []byte("id: pinned\ntitle: pinned\nstory: pinned\nlabel: event\nstart: \"10:00:00\"\nseed: 1\nfamily: cashback\n\n" +
			"params:\n  events: 20\n  crash_p: 0\n\npins:\n  - {decision: crash, message: 3, delivery: 1, value: " + v + "}\n")
	}
	spec, err := incidents.Parse("pinned.yaml", file("1"))
	if err != nil {
		t.Fatal(err)
	}
	// crash_p 0 lets the pin give way: no crash
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Figures["crashes"] != int64(0) || len(sum.PinsGaveWay) != 1 {
		t.Errorf("crash_p 0: crashes %v, %d pins gave way; want 0 and 1", sum.Figures["crashes"], len(sum.PinsGaveWay))
	}
	// at 1e-9 the pin holds: one crash, at entry 3's first delivery
	sum, _, err = engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: []engine.Setting{{Knob: "crash_p", Value: "0.000000001"}}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Figures["crashes"] != int64(1) || sum.DuplicateEffects != 1 || len(sum.PinsGaveWay) != 0 {
		t.Errorf("pinned crash: crashes %v, duplicates %d, %d pins gave way; want 1, 1, 0", sum.Figures["crashes"], sum.DuplicateEffects, len(sum.PinsGaveWay))
	}
	for _, v := range []string{"2", "yes", "\"\""} {
		if _, err := incidents.Parse("pinned.yaml", file(v)); err == nil || !strings.Contains(err.Error(), "crash pin value") {
			t.Errorf("value %s: error %v, want the crash pin's", v, err)
		}
	}
}
