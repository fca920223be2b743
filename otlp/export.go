// Package otlp turns a run's trace into OTLP JSON by the OpenTelemetry
// messaging semantic conventions, and reads such spans back into an
// incident file.
package otlp

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"inflight/engine"
)

// MaxExportEvents bounds the runs Export converts: a bigger run would make
// a file no trace viewer opens comfortably.
const MaxExportEvents = 200_000

// Epoch is the day a run's clock is placed on (2026-01-01 UTC, in unix
// nanoseconds): a run has clocks, not dates, and the same run must give
// the same bytes.
const Epoch = int64(1767225600) * 1e9

// Attribute names outside the conventions, namespaced so no one mistakes
// them for the registry's. The conventions define no delivery count for
// SQS, nor the outcome of an effect call or a settlement.
const (
	AttrDeliveryCount = "inflight.messaging.delivery_count"
	AttrSettle        = "inflight.messaging.settle.outcome" // ack, ack_refused, nack, error
	AttrDeadLetter    = "inflight.messaging.dead_letter"
	AttrEffectResult  = "inflight.effect.outcome"  // returned, crashed
	AttrReadFrom      = "inflight.redis.read_from" // XREADGROUP's id: > (new entries) or 0 (own pending list)
	AttrDedupe        = "inflight.dedupe.outcome"  // the processed row's INSERT: first, or repeat (already credited)
	Scope             = "inflight"
)

// Meta names what the trace lines do not carry.
type Meta struct {
	Incident string // the run's incident id, also the queue's name
	Seed     uint64
	System   string // messaging.system; aws_sqs unless given
	FIFO     bool   // an ordered queue: its name ends .fifo, as SQS names them

	// Streams: the run is the cashback family's, written as Redis Streams
	// spans; Dedupe is its dedupe knob for the whole run
	Streams bool
	Dedupe  string
}

type line struct {
	T        string `json:"t"`
	Kind     string `json:"kind"`
	Message  *int32 `json:"message"`
	Delivery uint16 `json:"delivery"`
	Actor    string `json:"actor"`
	Decision *struct {
		Kind   string `json:"kind"`
		Chosen int64  `json:"chosen"`
	} `json:"decision"`
}

type delivery struct {
	n        uint16
	actor    string
	at       engine.Time
	effectAt engine.Time
	latency  engine.Time
	effect   bool
	settle   string
	settleAt engine.Time
	db       []dbCall
}

// dbCalls are each claim step's SQL operation and outcome.
var dbCalls = map[string][2]string{"claim": {"INSERT", "claimed"}, "defer": {"SELECT", "in_flight"}, "stamp": {"UPDATE", "stamped"}}

// dbCall is a write or read of the idempotency claims table.
type dbCall struct {
	kind string // claim, defer, stamp
	at   engine.Time
}

type message struct {
	id         int32
	published  engine.Time
	hasPublish bool
	dels       []*delivery
	dlqAt      engine.Time
	dlq        bool
	dlqCount   int
}

// Export reads `inflight run --trace` lines from r and writes OTLP JSON to
// w, one export request (one message's spans) a line, as the Collector's
// file exporter writes them.
func Export(r io.Reader, w io.Writer, m Meta) error {
	if m.Streams {
		return exportStreams(r, w, m)
	}
	if m.System == "" {
		m.System = "aws_sqs"
	}
	if m.FIFO {
		m.Incident += ".fifo"
	}
	msgs := map[int32]*message{}
	get := func(id int32) *message {
		if x, ok := msgs[id]; ok {
			return x
		}
		x := &message{id: id}
		msgs[id] = x
		return x
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		if n++; n > MaxExportEvents {
			return fmt.Errorf("the run has more than %d events; --otlp exports runs up to that size", MaxExportEvents)
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("trace line %d: %v", n, err)
		}
		if l.Message == nil {
			continue
		}
		t, err := engine.ParseClock(l.T)
		if err != nil {
			return fmt.Errorf("trace line %d: %v", n, err)
		}
		x := get(*l.Message)
		// a deliver starts a delivery; the other events belong to the
		// latest one with their number (a redrive starts the count again)
		del := func() *delivery {
			for i := len(x.dels) - 1; i >= 0; i-- {
				if x.dels[i].n == l.Delivery {
					return x.dels[i]
				}
			}
			d := &delivery{n: l.Delivery, actor: l.Actor, at: t}
			x.dels = append(x.dels, d)
			return d
		}
		switch l.Kind {
		case "publish":
			x.published, x.hasPublish = t, true
		case "deliver":
			x.dels = append(x.dels, &delivery{n: l.Delivery, actor: l.Actor, at: t})
		case "effect":
			d := del()
			d.effect, d.effectAt = true, t
			if l.Decision != nil && l.Decision.Kind == "latency" {
				d.latency = engine.Time(l.Decision.Chosen)
			}
		case "ack", "ack_refused", "nack", "crash":
			d := del()
			if d.settle == "" {
				d.settle, d.settleAt = map[string]string{"ack": "ack", "ack_refused": "ack_refused", "nack": "nack", "crash": "error"}[l.Kind], t
			}
		case "claim", "defer", "stamp":
			d := del()
			d.db = append(d.db, dbCall{l.Kind, t})
			if l.Kind == "defer" && d.settle == "" {
				// ChangeMessageVisibility: handed back until the claim's window is over
				d.settle, d.settleAt = "defer", t
			}
		case "dlq":
			if !x.dlq {
				x.dlq, x.dlqAt, x.dlqCount = true, t, int(l.Delivery)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the trace: %v", err)
	}
	ids := published(msgs, func(x *message) bool { return x.hasPublish })
	return writeRequests(w, len(ids), func(i int) ptrace.Traces { return m.message(msgs[ids[i]]) })
}

// published is the keys of what was published, in order.
func published[T any](xs map[int32]T, has func(T) bool) []int32 {
	ids := make([]int32, 0, len(xs))
	for id, x := range xs {
		if has(x) {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// writeRequests writes n export requests, the i-th td(i), one a line, as
// the Collector's file exporter writes them.
func writeRequests(w io.Writer, n int, td func(i int) ptrace.Traces) error {
	bw := bufio.NewWriter(w)
	var mar ptrace.JSONMarshaler
	for i := range n {
		b, err := mar.MarshalTraces(td(i))
		if err != nil {
			return err
		}
		bw.Write(b)
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func ts(t engine.Time) pcommon.Timestamp { return pcommon.Timestamp(Epoch + int64(t)*1e6) }

// ids derive from the incident, seed, message and span role, so the same
// run gives the same bytes.
func (m Meta) ids(msg int32, role string, n uint16) (pcommon.TraceID, pcommon.SpanID) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d", m.Incident, m.Seed, msg)
	var tr pcommon.TraceID
	copy(tr[:], h.Sum(nil))
	fmt.Fprintf(h, "\x00%s\x00%d", role, n)
	var sp pcommon.SpanID
	binary.BigEndian.PutUint64(sp[:], binary.BigEndian.Uint64(h.Sum(nil)))
	return tr, sp
}

func (m Meta) message(x *message) ptrace.Traces {
	td := ptrace.NewTraces()
	scope := func(service, instance string) ptrace.SpanSlice {
		rs := td.ResourceSpans().AppendEmpty()
		a := rs.Resource().Attributes()
		a.PutStr("service.name", service)
		if instance != "" {
			a.PutStr("service.instance.id", instance)
		}
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName(Scope)
		return ss.Spans()
	}
	msgID := fmt.Sprint(x.id)
	common := func(s ptrace.Span, op, opType string) {
		a := s.Attributes()
		a.PutStr("messaging.system", m.System)
		a.PutStr("messaging.operation.name", op)
		a.PutStr("messaging.operation.type", opType)
		a.PutStr("messaging.destination.name", m.Incident)
		a.PutStr("messaging.message.id", msgID)
	}
	trace, prodID := m.ids(x.id, "send", 0)
	p := scope("producer", "").AppendEmpty()
	p.SetTraceID(trace)
	p.SetSpanID(prodID)
	p.SetName("send " + m.Incident)
	p.SetKind(ptrace.SpanKindProducer)
	p.SetStartTimestamp(ts(x.published))
	p.SetEndTimestamp(ts(x.published))
	common(p, "send", "send")

	dels := x.dels // in the order they were received
	// one resource per consumer, in the order they first took the message
	byActor := map[string]ptrace.SpanSlice{}
	for di, d := range dels {
		nth := uint16(di + 1) // ids count every delivery, across a redrive
		spans, ok := byActor[d.actor]
		if !ok {
			spans = scope("consumer", d.actor)
			byActor[d.actor] = spans
		}
		link := func(s ptrace.Span) {
			l := s.Links().AppendEmpty()
			l.SetTraceID(trace)
			l.SetSpanID(prodID)
		}
		consumer := func(s ptrace.Span) {
			a := s.Attributes()
			a.PutStr("messaging.client.id", d.actor)
			a.PutStr("messaging.consumer.group.name", m.Incident+"-workers")
			a.PutInt(AttrDeliveryCount, int64(d.n))
		}
		_, rid := m.ids(x.id, "receive", nth)
		rcv := spans.AppendEmpty()
		rcv.SetTraceID(trace)
		rcv.SetSpanID(rid)
		rcv.SetName("receive " + m.Incident)
		rcv.SetKind(ptrace.SpanKindConsumer)
		rcv.SetStartTimestamp(ts(d.at))
		rcv.SetEndTimestamp(ts(d.at))
		common(rcv, "receive", "receive")
		consumer(rcv)
		link(rcv)

		end := d.at
		if d.effect {
			end = max(end, d.effectAt+d.latency)
		}
		if d.settle != "" {
			end = max(end, d.settleAt)
		}
		_, pid := m.ids(x.id, "process", nth)
		pr := spans.AppendEmpty()
		pr.SetTraceID(trace)
		pr.SetSpanID(pid)
		pr.SetParentSpanID(rid)
		pr.SetName("process " + m.Incident)
		pr.SetKind(ptrace.SpanKindConsumer)
		pr.SetStartTimestamp(ts(d.at))
		pr.SetEndTimestamp(ts(end))
		common(pr, "process", "process")
		consumer(pr)
		link(pr)
		if d.settle == "error" {
			pr.Status().SetCode(ptrace.StatusCodeError)
			pr.Status().SetMessage("the handler raised")
		}
		if d.effect {
			_, eid := m.ids(x.id, "effect", nth)
			e := spans.AppendEmpty()
			e.SetTraceID(trace)
			e.SetSpanID(eid)
			e.SetParentSpanID(pid)
			e.SetName("POST /send")
			e.SetKind(ptrace.SpanKindClient)
			e.SetStartTimestamp(ts(d.effectAt))
			e.SetEndTimestamp(ts(d.effectAt + d.latency))
			e.Attributes().PutStr("server.address", "email-provider")
			e.Attributes().PutStr(AttrEffectResult, "returned")
		}
		for i, c := range d.db {
			_, cid := m.ids(x.id, "db"+fmt.Sprint(i), nth)
			s := spans.AppendEmpty()
			s.SetTraceID(trace)
			s.SetSpanID(cid)
			s.SetParentSpanID(pid)
			call := dbCalls[c.kind]
			op, out := call[0], call[1]
			s.SetName(op + " claims")
			s.SetKind(ptrace.SpanKindClient)
			s.SetStartTimestamp(ts(c.at))
			s.SetEndTimestamp(ts(c.at))
			a := s.Attributes()
			a.PutStr("db.system.name", "other_sql")
			a.PutStr("db.operation.name", op)
			a.PutStr("db.collection.name", "claims")
			a.PutStr(AttrEffectResult, out)
		}
		if d.settle != "" && d.settle != "error" {
			_, sid := m.ids(x.id, "settle", nth)
			s := spans.AppendEmpty()
			s.SetTraceID(trace)
			s.SetSpanID(sid)
			s.SetParentSpanID(pid)
			op := map[string]string{"ack": "ack", "ack_refused": "ack", "nack": "nack", "defer": "change_visibility"}[d.settle]
			s.SetName(op + " " + m.Incident)
			s.SetKind(ptrace.SpanKindClient)
			s.SetStartTimestamp(ts(d.settleAt))
			s.SetEndTimestamp(ts(d.settleAt))
			common(s, op, "settle")
			consumer(s)
			s.Attributes().PutStr(AttrSettle, d.settle)
			if d.settle == "ack_refused" {
				s.Status().SetCode(ptrace.StatusCodeError)
				s.Status().SetMessage("the receipt handle's lease had expired")
			}
		}
	}
	if x.dlq {
		_, did := m.ids(x.id, "dlq", 0)
		s := scope("broker", "").AppendEmpty()
		s.SetTraceID(trace)
		s.SetSpanID(did)
		s.SetParentSpanID(prodID)
		s.SetName("send " + m.Incident + "-dlq")
		s.SetKind(ptrace.SpanKindProducer)
		s.SetStartTimestamp(ts(x.dlqAt))
		s.SetEndTimestamp(ts(x.dlqAt))
		common(s, "send", "send")
		s.Attributes().PutStr("messaging.destination.name", m.Incident+"-dlq")
		s.Attributes().PutBool(AttrDeadLetter, true)
		s.Attributes().PutInt(AttrDeliveryCount, int64(x.dlqCount))
	}
	return td
}

// Ordered says the run's queue is the queue family's ordered mode (from
// the incident, or a mode= in set).
func Ordered(spec *engine.Spec, set []string) bool {
	mode := ""
	for _, k := range spec.Params.Knobs() {
		if k.Name == "mode" {
			mode = k.Get(&spec.Params)
		}
	}
	for _, s := range set {
		if v, ok := strings.CutPrefix(s, "mode="); ok {
			mode = v
		}
	}
	return mode == "ordered"
}
