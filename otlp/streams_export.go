package otlp

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"inflight/engine"
	"inflight/incidents"
)

// The cashback family's names and figures, as its runs show them (the
// family is reached through the incidents registry only); the round trip
// tests fail if they drift.
const (
	streamKey          = "cashback-events"
	deadStream         = "cashback-events:dead"
	creditAmount       = 100 // rupees an entry credits
	defaultMaxReceives = 10
	streamGroup        = "cashback"
	streamConsumer     = "consumer-1"
	creditQuery        = "UPDATE wallet SET balance = balance + 100 WHERE user = 'u1'"
	dedupeQuery        = "INSERT INTO processed(event_id) VALUES (?)"
	saddQuery          = "SADD processed "
)

type sread struct {
	at       engine.Time
	instance int
	entries  []int32
	backlog  bool
}

type sdel struct {
	count    uint16
	read     int
	handled  bool
	handleAt engine.Time
	effect   bool
	effectAt engine.Time // the credit: the handler's first write, or its second after a mark
	skip     bool
	mark     bool   // separate store: SADD processed came first
	settle   string // ack, crash, dead
	settleAt engine.Time
}

type sentry struct {
	published engine.Time
	has       bool
	id        string
	dels      []*sdel
}

// exportStreams writes a cashback run as Redis Streams spans by the span
// contract: a send per XADD, a receive per XREADGROUP linking what it
// returned, a process per handled delivery with its writes and XACK under
// it. A crash's process span never ended, so it is left out and its writes
// stay in the file as orphans; each restart is a new service.instance.id.
// With dedupe=separate the processed record is a `SADD processed` write
// to redis (db.system.name) before the wallet's UPDATE.
func exportStreams(r io.Reader, w io.Writer, m Meta) error {
	entries := map[int32]*sentry{}
	get := func(k int32) *sentry {
		e := entries[k]
		if e == nil {
			e = &sentry{}
			entries[k] = e
		}
		return e
	}
	var reads []*sread
	instance := 1
	lastDeliver := engine.Time(-1)
	latest := func(k int32, count uint16) *sdel {
		e := get(k)
		for i := len(e.dels) - 1; i >= 0; i-- {
			if e.dels[i].count == count || count == 0 {
				return e.dels[i]
			}
		}
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	msMs := map[int64]int{} // entries written in each millisecond: the id's sequence
	for sc.Scan() {
		if n++; n > MaxExportEvents {
			return fmt.Errorf("the run has more than %d events; --otlp exports runs up to that size", MaxExportEvents)
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("trace line %d: %v", n, err)
		}
		t, err := engine.ParseClock(l.T)
		if err != nil {
			return fmt.Errorf("trace line %d: %v", n, err)
		}
		if l.Kind != "deliver" {
			lastDeliver = -1
		}
		switch l.Kind {
		case "replay":
			return fmt.Errorf("trace line %d: an operator's replay_pending claims entries to a second consumer, and the Redis Streams import reads one", n)
		}
		if l.Message == nil {
			continue
		}
		k := *l.Message
		switch l.Kind {
		case "publish":
			e := get(k)
			ms := Epoch/1e6 + int64(t)
			e.published, e.has, e.id = t, true, fmt.Sprintf("%d-%d", ms, msMs[ms])
			msMs[ms]++
		case "deliver":
			if lastDeliver != t {
				reads = append(reads, &sread{at: t, instance: instance})
			}
			lastDeliver = t
			rd := reads[len(reads)-1]
			rd.entries = append(rd.entries, k)
			rd.backlog = rd.backlog || l.Delivery > 1
			get(k).dels = append(get(k).dels, &sdel{count: l.Delivery, read: len(reads) - 1})
		case "effect", "skip", "mark":
			d := latest(k, l.Delivery)
			if d == nil {
				return fmt.Errorf("trace line %d: %s of event %d before its delivery", n, l.Kind, k)
			}
			if !d.mark {
				// the handler's first write; with the processed record in
				// the separate store (mark) the credit is its second
				d.handled, d.handleAt = true, t
			}
			d.effectAt = t
			d.effect, d.skip, d.mark = l.Kind == "effect", l.Kind == "skip", d.mark || l.Kind == "mark"
		case "ack", "crash":
			d := latest(k, l.Delivery)
			if d == nil {
				return fmt.Errorf("trace line %d: %s of event %d before its delivery", n, l.Kind, k)
			}
			d.settle, d.settleAt = l.Kind, t
			if l.Kind == "crash" {
				instance++
			}
		case "dlq":
			d := latest(k, 0)
			if d == nil {
				return fmt.Errorf("trace line %d: dlq of event %d before its delivery", n, k)
			}
			d.handled, d.handleAt, d.settle, d.settleAt = true, t, "dead", t
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the trace: %v", err)
	}
	keys := published(entries, func(e *sentry) bool { return e.has })
	x := streamSpans{m: m, entries: entries, reads: reads}
	// each entry's trace, then each read's
	return writeRequests(w, len(keys)+len(reads), func(i int) ptrace.Traces {
		if i < len(keys) {
			return x.entry(keys[i])
		}
		return x.read(i - len(keys))
	})
}

type streamSpans struct {
	m       Meta
	entries map[int32]*sentry
	reads   []*sread
}

func instanceID(n int) string { return streamConsumer + "-" + strconv.Itoa(n) }

// readIDs are a read's trace and span: it is no entry's, so its own trace.
func (x streamSpans) readIDs(i int) (pcommon.TraceID, pcommon.SpanID) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00read\x00%d", x.m.Incident, x.m.Seed, i)
	sum := h.Sum(nil)
	var tr pcommon.TraceID
	copy(tr[:], sum)
	var sp pcommon.SpanID
	copy(sp[:], sum[16:])
	return tr, sp
}

func resource(td ptrace.Traces, service, instance string) ptrace.SpanSlice {
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

func (x streamSpans) messaging(s ptrace.Span, opType, op string) pcommon.Map {
	a := s.Attributes()
	a.PutStr("messaging.system", System)
	a.PutStr("messaging.operation.type", opType)
	a.PutStr("messaging.operation.name", op)
	a.PutStr("messaging.destination.name", streamKey)
	return a
}

func (x streamSpans) consumer(a pcommon.Map) {
	a.PutStr("messaging.consumer.group.name", streamGroup)
	a.PutStr("messaging.client.id", streamConsumer)
}

func newSpan(ss ptrace.SpanSlice, tr pcommon.TraceID, id, parent pcommon.SpanID, name string, kind ptrace.SpanKind, start, end engine.Time) ptrace.Span {
	s := ss.AppendEmpty()
	s.SetTraceID(tr)
	s.SetSpanID(id)
	if !parent.IsEmpty() {
		s.SetParentSpanID(parent)
	}
	s.SetName(name)
	s.SetKind(kind)
	s.SetStartTimestamp(ts(start))
	s.SetEndTimestamp(ts(end))
	return s
}

func (x streamSpans) read(i int) ptrace.Traces {
	rd := x.reads[i]
	td := ptrace.NewTraces()
	tr, id := x.readIDs(i)
	s := newSpan(resource(td, "cashback-consumer", instanceID(rd.instance)), tr, id, pcommon.SpanID{}, "receive "+streamKey, ptrace.SpanKindConsumer, rd.at, rd.at+engine.Millisecond)
	a := x.messaging(s, "receive", "XREADGROUP")
	x.consumer(a)
	a.PutInt("messaging.batch.message_count", int64(len(rd.entries)))
	from := ">"
	if rd.backlog {
		from = "0"
	}
	a.PutStr(AttrReadFrom, from)
	for _, k := range rd.entries {
		etr, eid := x.m.ids(k, "send", 0)
		l := s.Links().AppendEmpty()
		l.SetTraceID(etr)
		l.SetSpanID(eid)
	}
	return td
}

func (x streamSpans) entry(k int32) ptrace.Traces {
	e := x.entries[k]
	td := ptrace.NewTraces()
	tr, pid := x.m.ids(k, "send", 0)
	p := newSpan(resource(td, "producer", ""), tr, pid, pcommon.SpanID{}, "send "+streamKey, ptrace.SpanKindProducer, e.published, e.published)
	x.messaging(p, "send", "XADD").PutStr("messaging.message.id", e.id)
	byInstance := map[int]ptrace.SpanSlice{}
	for di, d := range e.dels {
		if !d.handled {
			continue // the rest of a batch a crash cut short: delivered, not handled
		}
		inst := x.reads[d.read].instance
		ss, ok := byInstance[inst]
		if !ok {
			ss = resource(td, "cashback-consumer", instanceID(inst))
			byInstance[inst] = ss
		}
		nth := uint16(di + 1)
		_, procID := x.m.ids(k, "process", nth)
		t := d.handleAt
		if d.settle != "crash" {
			end := d.settleAt + engine.Millisecond
			pr := newSpan(ss, tr, procID, pid, "process "+streamKey, ptrace.SpanKindConsumer, t, end)
			a := x.messaging(pr, "process", "process")
			x.consumer(a)
			a.PutStr("messaging.message.id", e.id)
			a.PutInt(AttrDeliveryCount, int64(d.count))
			rtr, rid := x.readIDs(d.read)
			l := pr.Links().AppendEmpty()
			l.SetTraceID(rtr)
			l.SetSpanID(rid)
		}
		db := func(role, name, op, coll, query string, start, end engine.Time) pcommon.Map {
			_, id := x.m.ids(k, role, nth)
			s := newSpan(ss, tr, id, procID, name, ptrace.SpanKindClient, start, end)
			a := s.Attributes()
			a.PutStr("db.system.name", "sqlite")
			if role == "dedupe" && x.m.Dedupe == "separate" {
				a.PutStr("db.system.name", "redis") // the processed set, beside the stream
			}
			a.PutStr("db.operation.name", op)
			a.PutStr("db.collection.name", coll)
			a.PutStr("db.query.text", query)
			return a
		}
		// the handler's write lasts the model's handler time: to the
		// crash point, where the XACK follows or the consumer dies
		done := d.settleAt
		if d.settle == "" {
			done = t + engine.Millisecond // never settled: the run ended first
		}
		switch {
		case d.settle == "dead":
			_, id := x.m.ids(k, "dead", nth)
			s := newSpan(ss, tr, id, procID, "send "+deadStream, ptrace.SpanKindProducer, t, t)
			a := x.messaging(s, "send", "XADD")
			a.PutStr("messaging.destination.name", deadStream)
			a.PutStr("messaging.message.id", e.id)
			a.PutBool(AttrDeadLetter, true)
			a.PutInt(AttrDeliveryCount, int64(d.count))
		case d.skip && x.m.Dedupe == "separate":
			db("dedupe", "SADD processed", "SADD", "processed", saddQuery+strconv.Itoa(int(k)), t, done).PutStr(AttrDedupe, "repeat")
		case d.skip:
			db("dedupe", "INSERT processed", "INSERT", "processed", dedupeQuery, t, done).PutStr(AttrDedupe, "repeat")
		case d.mark:
			// SADD, then the wallet transaction after the crash point
			// between them; a crash there leaves the SADD alone
			end := done
			if d.effect {
				end = d.effectAt
			}
			db("dedupe", "SADD processed", "SADD", "processed", saddQuery+strconv.Itoa(int(k)), t, end).PutStr(AttrDedupe, "first")
			if d.effect {
				db("effect", "UPDATE wallet", "UPDATE", "wallet", creditQuery, d.effectAt, done)
			}
		case d.effect:
			if x.m.Dedupe == "true" {
				db("dedupe", "INSERT processed", "INSERT", "processed", dedupeQuery, t, t).PutStr(AttrDedupe, "first")
			}
			db("effect", "UPDATE wallet", "UPDATE", "wallet", creditQuery, t, done)
		}
		if d.settle == "ack" || d.settle == "dead" {
			_, id := x.m.ids(k, "settle", nth)
			s := newSpan(ss, tr, id, procID, "ack "+streamKey, ptrace.SpanKindClient, d.settleAt, d.settleAt+engine.Millisecond)
			a := x.messaging(s, "settle", "XACK")
			x.consumer(a)
			a.PutStr("messaging.message.id", e.id)
		}
	}
	return td
}

// StreamsMeta fills m for a run of spec, set from its start and forks'
// sets after their moments: a cashback run is written as Redis Streams
// spans, with the dedupe knob in force. A fork that changes dedupe is
// refused: the spans could not say where the processed table began.
func StreamsMeta(m *Meta, spec *engine.Spec, set []engine.Setting, forks [][]engine.Setting) error {
	if d := incidents.FamilyOf(spec); d == nil || d.Name != "cashback" {
		return nil
	}
	for _, f := range forks {
		for _, s := range f {
			if s.Knob == "dedupe" {
				return fmt.Errorf("a fork changes dedupe partway through the run, and the Redis Streams spans cannot say where the processed table began: give dedupe with --set from the start")
			}
		}
	}
	p := spec.Params
	if err := p.Apply(set); err != nil {
		return err
	}
	m.Streams = true
	for _, k := range p.Knobs() {
		if k.Name == "dedupe" {
			m.Dedupe = k.Get(&p)
		}
	}
	return nil
}
