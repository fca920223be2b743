package verify

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// receiver is a Collector's otlp receiver and file exporter in one: it
// takes OTLP/HTTP export requests (protobuf or JSON) and keeps each as one
// line of ptrace.JSONMarshaler output, the file exporter's format, in a
// file per value of the resource attribute AttrSide, as the exporter's
// group_by writes them.
type receiver struct {
	mu    sync.Mutex
	lines [][]byte
	files map[string][]byte
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "not an OTLP traces export", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	er := ptraceotlp.NewExportRequest()
	ct := req.Header.Get("Content-Type")
	switch ct {
	case "application/x-protobuf":
		err = er.UnmarshalProto(body)
	case "application/json":
		err = er.UnmarshalJSON(body)
	default:
		http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(er.Traces())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	side := ""
	if rs := er.Traces().ResourceSpans(); rs.Len() > 0 {
		if v, ok := rs.At(0).Resource().Attributes().Get(AttrSide); ok {
			side = v.AsString()
		}
	}
	r.mu.Lock()
	r.lines = append(r.lines, line)
	if r.files == nil {
		r.files = map[string][]byte{}
	}
	r.files[side] = append(append(r.files[side], line...), '\n')
	r.mu.Unlock()
	var resp []byte
	if ct == "application/json" {
		resp, err = ptraceotlp.NewExportResponse().MarshalJSON()
	} else {
		resp, err = ptraceotlp.NewExportResponse().MarshalProto()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Write(resp)
}

// file is what the file exporter would have written.
func (r *receiver) file() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b bytes.Buffer
	for _, l := range r.lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestVerifyReceiverJSON: the receiver takes a JSON export as the Collector
// does, and keeps it as the same line.
func TestVerifyReceiverJSON(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	td := ptrace.NewTraces()
	s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetName("send s")
	s.SetTraceID(pcommon.TraceID{1})
	s.SetSpanID(pcommon.SpanID{2})
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/v1/traces", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if resp.StatusCode != 200 || string(rc.file()) != string(want)+"\n" {
		t.Fatalf("status %d, file %s", resp.StatusCode, rc.file())
	}
}

// rspan is a span as the test reads it back from the file.
type rspan struct {
	trace               pcommon.TraceID
	id, parent          pcommon.SpanID
	name                string
	kind                ptrace.SpanKind
	service, inst       string
	attrs               pcommon.Map
	links               []pcommon.SpanID
	line                int
	opType, dest, msgID string
}

func (s rspan) str(k string) string {
	if v, ok := s.attrs.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// readSpans parses the file line by line, as the importer does.
func readSpans(t *testing.T, file []byte) []rspan {
	t.Helper()
	var out []rspan
	var un ptrace.JSONUnmarshaler
	for n, l := range bytes.Split(bytes.TrimSuffix(file, []byte("\n")), []byte("\n")) {
		td, err := un.UnmarshalTraces(l)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			svc, _ := rs.Resource().Attributes().Get("service.name")
			inst, _ := rs.Resource().Attributes().Get("service.instance.id")
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					s := ss.At(k)
					x := rspan{trace: s.TraceID(), id: s.SpanID(), parent: s.ParentSpanID(), name: s.Name(), kind: s.Kind(),
						service: svc.AsString(), inst: inst.AsString(), attrs: s.Attributes(), line: n}
					for l := 0; l < s.Links().Len(); l++ {
						x.links = append(x.links, s.Links().At(l).SpanID())
					}
					x.opType, x.dest, x.msgID = x.str("messaging.operation.type"), x.str("messaging.destination.name"), x.str("messaging.message.id")
					out = append(out, x)
				}
			}
		}
	}
	return out
}

// oneStream checks that a run's spans are of one stream: every
// messaging span names it, every other span is in one of its entries'
// traces.
func oneStream(t *testing.T, label string, spans []rspan) {
	t.Helper()
	stream := ""
	entries := map[pcommon.TraceID]bool{}
	for _, s := range spans {
		if s.dest == "" {
			continue
		}
		if stream == "" {
			stream = s.dest
		} else if s.dest != stream {
			t.Fatalf("%s: spans of two streams, %s and %s", label, stream, s.dest)
		}
		if s.opType == "send" {
			entries[s.trace] = true
		}
	}
	for _, s := range spans {
		if s.dest == "" && !entries[s.trace] {
			t.Fatalf("%s: span %q (line %d) is in no entry's trace of stream %s", label, s.name, s.line+1, stream)
		}
	}
}

// realRun is one real verify run with its spans in a local receiver, the
// file split by stream (side).
type realRun struct {
	res    *Result
	events int
	spans  map[bool][]rspan
	files  map[bool][]byte
}

func runWithSpans(t *testing.T, events int, crashP float64) *realRun {
	t.Helper()
	needRedis(t)
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	var out, log bytes.Buffer
	res, err := Run(context.Background(), Options{Events: events, CrashP: crashP, Consumer: self(t), OTLP: srv.URL, Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", out.String(), log.String())
	if !res.Agree() {
		t.Fatalf("reality and model disagree:\n%s", out.String())
	}
	if len(rc.files) != 2 {
		t.Fatalf("spans of %d runs (%s), want 2", len(rc.files), AttrSide)
	}
	r := &realRun{res: res, events: events, spans: map[bool][]rspan{}, files: map[bool][]byte{}}
	for _, dedupe := range []bool{false, true} {
		name := sideName(dedupe)
		file := rc.files[name]
		if dir := os.Getenv("INFLIGHT_KEEP_SPANS"); dir != "" { // to look at them
			os.WriteFile(filepath.Join(dir, "verify-"+name+".jsonl"), file, 0o644)
		}
		r.spans[dedupe], r.files[dedupe] = readSpans(t, file), file
		oneStream(t, name, r.spans[dedupe])
	}
	if n := len(r.spans[false]) + len(r.spans[true]); n != len(rc.lines) {
		t.Fatalf("%d spans in the runs' files, %d export requests", n, len(rc.lines))
	}
	return r
}

// traced is the one traced run the tests below share: 400 events at
// crash_p 0.04, both sides.
var traced *realRun

func tracedRun(t *testing.T) *realRun {
	t.Helper()
	if traced == nil {
		traced = runWithSpans(t, 400, 0.04)
	}
	return traced
}

// TestVerifyOTLPReal: the real test traced by the OpenTelemetry SDK into a
// local receiver. Its spans tell what happened, as Redis, the wallet and
// the parent saw it: one orphaned write per crash (its process span never
// ended), a new service.instance.id per consumer process, the entries
// re-read after restarts (counted by XPENDING, not by spans), and the
// credits summing to the real balance.
func TestVerifyOTLPReal(t *testing.T) {
	r := tracedRun(t)
	for _, side := range r.res.Sides {
		label := dedupeLabel(side.Dedupe)
		spans := r.spans[side.Dedupe]
		if side.Crashes == 0 || side.Redelivered == 0 {
			t.Fatalf("%s: %d crashes, %d redelivered: the test shows nothing", label, side.Crashes, side.Redelivered)
		}
		ids := map[pcommon.SpanID]rspan{}
		sendOf := map[pcommon.SpanID]rspan{}
		for _, s := range spans {
			ids[s.id] = s
			if s.opType == "send" {
				sendOf[s.id] = s
			}
		}
		var sends, links, receives, processes, settles, credits, firsts int
		var credited int64
		orphans := map[pcommon.SpanID]bool{}
		instances := map[string]bool{}
		msgIDs := map[string]bool{}
		for _, s := range spans {
			if s.service == "cashback-consumer" {
				instances[s.inst] = true
			}
			switch {
			case s.opType == "send":
				sends++
				msgIDs[s.msgID] = true
				if s.kind != ptrace.SpanKindProducer || s.str("messaging.system") != "redis" || s.str("messaging.operation.name") != "XADD" || !s.parent.IsEmpty() {
					t.Errorf("%s: send span %q kind %v attrs %v", label, s.name, s.kind, s.attrs.AsRaw())
				}
			case s.opType == "receive":
				receives++
				links += len(s.links)
				if n, _ := s.attrs.Get("messaging.batch.message_count"); n.Int() != int64(len(s.links)) {
					t.Errorf("%s: receive with %d links says %d entries", label, len(s.links), n.Int())
				}
				for _, l := range s.links {
					if _, ok := sendOf[l]; !ok {
						t.Fatalf("%s: a receive links %v, no XADD's span", label, l)
					}
				}
				if s.str("messaging.consumer.group.name") != "wallet" || s.str("messaging.client.id") != "consumer-1" {
					t.Errorf("%s: receive attrs %v", label, s.attrs.AsRaw())
				}
			case s.opType == "process":
				processes++
				p, ok := sendOf[s.parent]
				if !ok || p.trace != s.trace || p.msgID != s.msgID {
					t.Errorf("%s: process span of %s is not its entry's producer's child", label, s.msgID)
				}
				if len(s.links) != 1 || ids[s.links[0]].opType != "receive" {
					t.Errorf("%s: process span of %s does not link its receive", label, s.msgID)
				}
			case s.opType == "settle":
				settles++
				if ids[s.parent].opType != "process" || s.str("messaging.operation.name") != "XACK" {
					t.Errorf("%s: an XACK span not under a process span", label)
				}
			case s.str("db.system.name") == "sqlite":
				if _, ok := ids[s.parent]; !ok {
					orphans[s.parent] = true // its process span never ended: the crash
				}
				switch s.name {
				case "UPDATE wallet":
					credits++
					a, err := strconv.ParseInt(s.str("db.query.parameter.0"), 10, 64)
					if err != nil {
						t.Fatalf("%s: credit span without its amount: %v", label, s.attrs.AsRaw())
					}
					credited += a
				case "INSERT processed":
					switch s.str(attrDedupe) {
					case "first":
						firsts++
					case "repeat":
					default:
						t.Errorf("%s: INSERT processed with outcome %q", label, s.str(attrDedupe))
					}
				default:
					t.Errorf("%s: a write %q", label, s.name)
				}
			default:
				t.Errorf("%s: a span %q of no known kind", label, s.name)
			}
		}
		if sends != r.events || len(msgIDs) != r.events {
			t.Errorf("%s: %d send spans, %d ids, want %d", label, sends, len(msgIDs), r.events)
		}
		if int64(len(orphans)) != side.Crashes {
			t.Errorf("%s: %d orphaned writes (crashes in the spans), %d real crashes", label, len(orphans), side.Crashes)
		}
		if len(instances) != side.Restarts {
			t.Errorf("%s: %d consumer instances in the spans, %d consumer processes", label, len(instances), side.Restarts)
		}
		if int64(links-sends) != side.Redelivered {
			t.Errorf("%s: receives deliver %d entries for %d sent: %d redeliveries, XPENDING counted %d", label, links, sends, links-sends, side.Redelivered)
		}
		if credited != side.Actual {
			t.Errorf("%s: credits in the spans sum to %d, the wallet holds %d", label, credited, side.Actual)
		}
		// every ended process span was acknowledged; the handled
		// deliveries are those plus the crashes
		if settles != processes || int64(processes)+side.Crashes > int64(links) {
			t.Errorf("%s: %d process spans, %d XACKs, %d crashes, %d deliveries", label, processes, settles, side.Crashes, links)
		}
		if side.Dedupe && (firsts != r.events || credits != r.events) {
			t.Errorf("dedupe: %d first INSERTs, %d credits, want %d", firsts, credits, r.events)
		}
		if !side.Dedupe && int64(credits) != int64(r.events)+side.Crashes {
			t.Errorf("no dedupe: %d credits, want %d events + %d crashes", credits, r.events, side.Crashes)
		}
		t.Logf("%s: %d spans; %d receives, %d deliveries (%d redelivered), %d process spans, %d crashes, %d instances, credited %d",
			label, len(spans), receives, links, side.Redelivered, processes, len(orphans), len(instances), credited)
	}
}

func TestVerifyParseEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:4318":           "http://localhost:4318/v1/traces",
		"http://localhost:4318/":          "http://localhost:4318/v1/traces",
		"https://otel.example:443/ingest": "https://otel.example:443/ingest",
		"http://[::1]:4318/v1/traces":     "http://[::1]:4318/v1/traces",
		"http://collector/custom/traces/": "http://collector/custom/traces/",
	} {
		got, err := ParseEndpoint(in)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "localhost:4318", "grpc://h:4317", "http://", "http:///v1/traces", "http://h:0", "http://h:65536", "http://u:p@h", "http://h/#x", "http://h/?a=b", "mailto:x@y"} {
		if got, err := ParseEndpoint(in); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}

// TestVerifyOTLPRefused: spans that cannot be delivered stop the run with the
// endpoint's name and why, before any consumer runs: a recording with
// holes would be imported as if it were whole.
func TestVerifyOTLPRefused(t *testing.T) {
	needRedis(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	notOTLP := httptest.NewServer(http.NotFoundHandler())
	defer notOTLP.Close()
	for _, c := range []struct{ url, want string }{
		{gone.URL, "connection refused"},
		{notOTLP.URL, "404"},
	} {
		_, err := Run(context.Background(), Options{Events: 20, CrashP: 0.05, Consumer: self(t), OTLP: c.url})
		if err == nil || !strings.Contains(err.Error(), "spans to "+c.url+"/v1/traces") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want the endpoint and %q", c.url, err, c.want)
		}
	}
}
