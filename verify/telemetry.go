package verify

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"inflight/internal/termtext"
	"inflight/otlp"
)

// The real test's spans (--otlp), by the messaging conventions: the
// parent's XADDs are producer spans, the consumer's XREADGROUPs receive
// spans linking each entry's producer, each handled entry a process span
// (a child of its producer's, from the entry's traceparent field) with its
// wallet writes and its XACK under it. A nil *tracer is off: every method
// returns at once, so without --otlp no SDK code runs on the hot path.
//
// Spans go out synchronously (WithSyncer), one export request each: the
// consumer dies with os.Exit between COMMIT and XACK, and a batching
// exporter would lose what it had not sent yet, the credit's span above
// all. The process span of the delivery that dies is never ended, so it is
// in no export: its credit is an orphan in the entry's trace, which is how
// a crash reads in the spans.

// The importer's names (otlp's): messaging.system, and the attributes
// outside the conventions.
const (
	systemRedis  = otlp.System
	attrReadFrom = otlp.AttrReadFrom
	attrDedupe   = otlp.AttrDedupe
	attrCount    = otlp.AttrDeliveryCount
)

// The handler's statements, as the spans show them.
const (
	insertQuery = "INSERT INTO processed(event_id) VALUES (?)"
	updateQuery = "UPDATE wallet SET balance = balance + ? WHERE user = ?"
)

// ParseEndpoint checks an --otlp value, an OTLP/HTTP endpoint such as the
// Collector's otlp receiver (http://localhost:4318), and returns the URL
// spans are posted to: its own path, or /v1/traces when it has none.
func ParseEndpoint(s string) (string, error) {
	const want = "want an OTLP/HTTP endpoint such as http://localhost:4318"
	if len(s) > 512 {
		return "", errors.New("longer than 512 bytes: " + want)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Opaque != "":
		return "", errors.New(want)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("not http or https: %s (OTLP over HTTP, not gRPC)", want)
	case u.Hostname() == "":
		return "", fmt.Errorf("no host: %s", want)
	case u.User != nil:
		return "", errors.New("credentials in the URL: give them in OTEL_EXPORTER_OTLP_HEADERS")
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("a query or fragment: %s", want)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", errors.New("want a port from 1 to 65535")
		}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// tracer is one process's instrumentation: the parent's (the producer) or
// a consumer process's.
type tracer struct {
	tp       *sdktrace.TracerProvider
	tr       trace.Tracer
	exp      *exporter
	endpoint string
	prop     propagation.TraceContext
}

// exporter keeps the first failed export: the SDK only hands a syncer's
// errors to a global handler, and a lost span makes the file a lie.
type exporter struct {
	sdktrace.SpanExporter
	mu  sync.Mutex
	err error
}

func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		e.mu.Lock()
		if e.err == nil {
			e.err = err
		}
		e.mu.Unlock()
	}
	return nil
}

// AttrSide is the resource attribute that says which of the two runs
// (dedupe false or true, two streams) a span is of: a Collector's file
// exporter can write a file per run with it (group_by), and import reads
// one stream at a time.
const AttrSide = "inflight.verify.side"

// sideName is AttrSide's value.
func sideName(dedupe bool) string {
	if dedupe {
		return "dedupe-true"
	}
	return "dedupe-false"
}

// newTracer exports to endpoint (ParseEndpoint's) as service, instance
// (instanceID's; each consumer process its own: a consumer restarted after
// a crash is a new instance of the same consumer name), for the run side.
func newTracer(endpoint, service, instance, side string) (*tracer, error) {
	otlpExp, err := otlptracehttp.New(context.Background(),
		otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithTimeout(10*time.Second),
		// a Collector that pushes back (429, 503) is retried briefly; one
		// that is not there fails the first export at once
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true,
			InitialInterval: 100 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: 10 * time.Second}))
	if err != nil {
		return nil, fmt.Errorf("--otlp %s: %w", endpoint, err)
	}
	exp := &exporter{SpanExporter: otlpExp}
	res := resource.NewSchemaless(
		attribute.String("service.name", service),
		attribute.String("service.instance.id", instance),
		attribute.String(AttrSide, side),
		attribute.String("telemetry.sdk.language", "go"),
		attribute.String("telemetry.sdk.name", "opentelemetry"),
	)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.AlwaysSample()))
	return &tracer{tp: tp, tr: tp.Tracer("inflight/verify"), exp: exp, endpoint: endpoint}, nil
}

// instanceID is a random UUID (version 4), as the conventions suggest for
// service.instance.id.
func instanceID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// failed is the first export that failed, nil if none.
func (t *tracer) failed() error {
	if t == nil {
		return nil
	}
	t.exp.mu.Lock()
	defer t.exp.mu.Unlock()
	if t.exp.err != nil {
		// one line, whatever the endpoint answered
		return fmt.Errorf("spans to %s: %s", t.endpoint, termtext.Clean(t.exp.err.Error(), termtext.Line))
	}
	return nil
}

// shutdown closes the exporter and says whether every span got out.
func (t *tracer) shutdown() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := t.tp.Shutdown(ctx)
	if f := t.failed(); f != nil {
		return f
	}
	if err != nil {
		return fmt.Errorf("spans to %s: %w", t.endpoint, err)
	}
	return nil
}

func messaging(opType, op, stream string) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("messaging.system", systemRedis),
		attribute.String("messaging.operation.type", opType),
		attribute.String("messaging.operation.name", op),
		attribute.String("messaging.destination.name", stream),
	}
}

// send starts an entry's producer span, a trace of its own, and returns
// the traceparent the entry carries.
func (t *tracer) send(stream string) (trace.Span, string) {
	if t == nil {
		return nil, ""
	}
	ctx, s := t.tr.Start(context.Background(), "send "+stream, trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(messaging("send", "XADD", stream)...))
	c := propagation.MapCarrier{}
	t.prop.Inject(ctx, c)
	return s, c.Get("traceparent")
}

// sent ends a producer span with the id XADD returned.
func (t *tracer) sent(s trace.Span, cmd *redis.StringCmd) {
	if s == nil {
		return
	}
	if id, err := cmd.Result(); err != nil {
		s.SetStatus(codes.Error, err.Error())
	} else {
		s.SetAttributes(attribute.String("messaging.message.id", id))
	}
	s.End()
}

// producer is an entry's producer span context, from its traceparent.
func (t *tracer) producer(m redis.XMessage) context.Context {
	tp, _ := m.Values["traceparent"].(string)
	return t.prop.Extract(context.Background(), propagation.MapCarrier{"traceparent": tp})
}

// consumerSpans are a consumer process's spans of one stream and group.
type consumerSpans struct {
	*tracer
	stream, group, client string
}

func (c *consumerSpans) failed() error {
	if c == nil {
		return nil
	}
	return c.tracer.failed()
}

func (c *consumerSpans) shutdown() error {
	if c == nil {
		return nil
	}
	return c.tracer.shutdown()
}

func (c *consumerSpans) consumer(opType, op string) []attribute.KeyValue {
	return append(messaging(opType, op, c.stream),
		attribute.String("messaging.consumer.group.name", c.group),
		attribute.String("messaging.client.id", c.client))
}

// receive records an XREADGROUP that began at start and returned batch:
// a span linking each entry's producer. It returns the span's context for
// the process spans to link.
func (c *consumerSpans) receive(start time.Time, from string, batch []redis.XMessage) trace.SpanContext {
	if c == nil {
		return trace.SpanContext{}
	}
	links := make([]trace.Link, len(batch))
	for i, m := range batch {
		links[i] = trace.LinkFromContext(c.producer(m))
	}
	attrs := append(c.consumer("receive", "XREADGROUP"),
		attribute.Int("messaging.batch.message_count", len(batch)),
		attribute.String(attrReadFrom, from))
	_, s := c.tr.Start(context.Background(), "receive "+c.stream, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithTimestamp(start), trace.WithLinks(links...), trace.WithAttributes(attrs...))
	s.End()
	return s.SpanContext()
}

// process starts an entry's process span: a child of its producer's, a
// link to the receive that delivered it. The context carries the span for
// the handler's writes and the XACK. Nil when off.
func (c *consumerSpans) process(recv trace.SpanContext, m redis.XMessage, delivery int) (context.Context, trace.Span) {
	if c == nil {
		return context.Background(), nil
	}
	attrs := append(c.consumer("process", "process"),
		attribute.String("messaging.message.id", m.ID),
		attribute.Int(attrCount, delivery))
	return c.tr.Start(c.producer(m), "process "+c.stream, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithLinks(trace.Link{SpanContext: recv}), trace.WithAttributes(attrs...))
}

// settle starts the XACK's span under the process span in ctx.
func (c *consumerSpans) settle(ctx context.Context, id string) trace.Span {
	if c == nil {
		return nil
	}
	attrs := append(c.consumer("settle", "XACK"), attribute.String("messaging.message.id", id))
	_, s := c.tr.Start(ctx, "ack "+c.stream, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return s
}

// dbSpan starts a wallet write's span under the process span in ctx; the
// credit's amount is its first parameter.
func (c *consumerSpans) dbSpan(ctx context.Context, op, table, query string, param0 string) trace.Span {
	if c == nil {
		return nil
	}
	attrs := []attribute.KeyValue{
		attribute.String("db.system.name", "sqlite"),
		attribute.String("db.operation.name", op),
		attribute.String("db.collection.name", table),
		attribute.String("db.query.text", query),
	}
	if param0 != "" {
		attrs = append(attrs, attribute.String("db.query.parameter.0", param0))
	}
	_, s := c.tr.Start(ctx, op+" "+table, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return s
}

// end ends a span, its status the error's if any; attrs are added first.
func end(s trace.Span, err error, attrs ...attribute.KeyValue) {
	if s == nil {
		return
	}
	if len(attrs) > 0 {
		s.SetAttributes(attrs...)
	}
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}
