package otlp_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"inflight/incidents"
	"inflight/otlp"
)

type sp struct {
	op, system, dest, msg, client string
	start                         int64
	count                         int64 // 0: none
}

// request is one export request line holding spans.
func request(spans ...sp) []byte {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for i, s := range spans {
		x := ss.AppendEmpty()
		x.SetTraceID(pcommon.TraceID{1})
		x.SetSpanID(pcommon.SpanID{byte(i + 1)})
		x.SetName(s.op)
		x.SetStartTimestamp(pcommon.Timestamp(s.start))
		x.SetEndTimestamp(pcommon.Timestamp(s.start))
		a := x.Attributes()
		if s.system != "" {
			a.PutStr("messaging.system", s.system)
		}
		a.PutStr("messaging.operation.type", s.op)
		a.PutStr("messaging.destination.name", s.dest)
		a.PutStr("messaging.message.id", s.msg)
		a.PutStr("messaging.client.id", s.client)
		if s.count > 0 {
			a.PutInt(otlp.AttrDeliveryCount, s.count)
		}
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// repeat is an endless reader of one byte.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

const sec = int64(1e9)

// TestBadTraces: each bad trace is refused in one line saying what is wrong.
func TestBadTraces(t *testing.T) {
	for _, c := range []struct {
		name string
		in   io.Reader
		want string
	}{
		{"not json", strings.NewReader("hello\n"), "line 1 is not OTLP JSON traces"},
		{"json, not otlp", strings.NewReader("{\"resourceSpans\": 3}\n"), "line 1 is not OTLP JSON traces"},
		{"no messaging spans", bytes.NewReader(request(sp{op: "GET /"})), "no messaging spans"},
		{"kafka", bytes.NewReader(request(sp{op: "send", system: "kafka", dest: "q", msg: "1"})), `messaging.system "kafka" is not supported`},
		{"nats", bytes.NewReader(request(sp{op: "send", system: "nats", dest: "q", msg: "1"})), `messaging.system "nats" is not supported`},
		{"redis and a queue", bytes.NewReader(request(
			sp{op: "send", system: "aws_sqs", dest: "q", msg: "1", start: sec},
			sp{op: "send", system: "redis", dest: "q", msg: "1-0", start: sec})), "two messaging systems"},
		{"redis receive, no group", bytes.NewReader(request(
			sp{op: "send", system: "redis", dest: "s", msg: "1-0", start: sec},
			sp{op: "receive", system: "redis", dest: "s", client: "c", start: 2 * sec})), "no messaging.consumer.group.name"},
		{"same instant, no count", bytes.NewReader(request(
			sp{op: "send", system: "aws_sqs", dest: "q", msg: "1", start: sec},
			sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "A1", start: 2 * sec},
			sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "A2", start: 2 * sec})), "cannot be ordered"},
		{"count going back", bytes.NewReader(request(
			sp{op: "send", system: "aws_sqs", dest: "q", msg: "1", start: sec},
			sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "A1", start: 2 * sec, count: 2},
			sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "A2", start: 3 * sec, count: 1})), "cannot be ordered"},
		{"received before sent", bytes.NewReader(request(
			sp{op: "send", system: "aws_sqs", dest: "q", msg: "1", start: 5 * sec},
			sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "A1", start: 2 * sec})), "received before it is sent"},
		{"two queues", bytes.NewReader(request(
			sp{op: "send", system: "aws_sqs", dest: "q", msg: "1", start: sec},
			sp{op: "send", system: "aws_sqs", dest: "r", msg: "2", start: sec})), "two destinations"},
		{"line over the bound", io.LimitReader(repeat('x'), otlp.MaxLineBytes+10), "line 1 is over"},
		{"file over the bound", io.LimitReader(repeat('\n'), otlp.MaxFileBytes+10), "the file is over"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := otlp.Read(c.in)
			if err == nil {
				t.Fatal("read without an error")
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line containing %q", err, c.want)
			}
		})
	}
}

// TestImportGuard: names from the spans reach the incident file through the
// text guard, and the file parses.
func TestImportGuard(t *testing.T) {
	bad := "q\x1b[31m\u202e"
	in := request(
		sp{op: "send", system: "aws_sqs", dest: bad, msg: "m\x1b1", start: sec},
		sp{op: "receive", system: "aws_sqs", dest: bad, msg: "m\x1b1", client: "w\x1b[2J", start: 2 * sec})
	rec, err := otlp.Read(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	y, err := rec.Incident("guarded", nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, y)
	if _, err := incidents.Parse("guarded.yaml", y); err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
}

func checkText(t testing.TB, y []byte) {
	t.Helper()
	for _, r := range string(y) {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			t.Fatalf("incident file holds %U:\n%q", r, y)
		}
	}
}

// FuzzRead: whatever the bytes, Read and Incident refuse or give a file
// with no control characters; never a panic.
func FuzzRead(f *testing.F) {
	f.Add(request(
		sp{op: "send", system: "aws_sqs", dest: "q", msg: "1", start: sec},
		sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "A1", start: 2 * sec, count: 1},
		sp{op: "receive", system: "aws_sqs", dest: "q", msg: "1", client: "B1", start: 32 * sec, count: 2}))
	// a Redis Streams file: crashes, orphan credits, re-reads
	_, streams := exportCashback(f, "events=12", "crash_p=0.3")
	f.Add(streams)
	f.Add([]byte("{}\n{\"resourceSpans\":[]}\n"))
	f.Add([]byte("hello"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := otlp.Read(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on two lines: %q", err)
			}
			return
		}
		y, err := rec.Incident("fuzz", map[string]string{}, io.Discard)
		if err != nil {
			return
		}
		checkText(t, y)
	})
}
