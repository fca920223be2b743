package otlp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"inflight/internal/termtext"
)

// Bounds on what Read takes: a file the Collector's file exporter writes
// for one incident is far smaller.
const (
	MaxFileBytes = 64 << 20
	MaxLineBytes = 8 << 20
	MaxSpans     = 500_000
	MaxMessages  = 2_000 // pinned twice a delivery in the file's pin_table (at most 40,000 rows)
	MaxDelivered = 100   // deliveries of one message
)

// Supported are the queue systems the importer models with the queue
// family (a lease per delivery, a receive count, a dead letter queue), and
// Redis Streams consumer groups (System), modelled with the cashback family.
var Supported = []string{"aws_sqs", "rabbitmq", "gcp_pubsub", "servicebus", System}

// Delivery is one receive of a message and what its handler did.
type Delivery struct {
	N        int    // 1-based, in receive order
	Count    int    // the delivery count the spans give (N if none); a redrive starts it again
	Consumer string // messaging.client.id, or the resource's instance or host
	At       int64  // receive, unix ns
	End      int64  // the process span's end (At when there is none)
	Effects  []int64
	EffectAt []int64
	Claims   []string // the claims table's outcomes: claimed, in_flight, stamped; redis: the dedupe row's, first or repeat
	Settle   string   // ack, ack_refused, nack, defer, error, none; redis: ack, crash, dead, none
	SettleAt int64
	Handled  bool    // redis: the handler ran (a process span, or writes a crash left)
	Amounts  []int64 // redis: each credit's amount as its query shows it, -1 where it does not
	// redis: the handler's writes, from the first's start to the last's
	// end (WriteAt 0: none); the credit's start; the stores
	// (db.system.name) of the processed record and of the credit
	WriteAt, WriteEnd, CreditAt int64
	ClaimStore, CreditStore     string
}

// HandlerTime is a handled Redis Streams delivery's handler time, as the
// cashback family counts it: from its first write to its crash point, the
// XACK, or, for a crash, its last write's end; with the processed record
// in a separate store, the crash point of a credited delivery is before
// the credit. False when the spans show no write.
func (d *Delivery) HandlerTime(separate bool) (int64, bool) {
	switch {
	case !d.Handled || d.WriteAt == 0:
		return 0, false
	case separate && d.Settle == "ack" && d.CreditAt != 0:
		return max(d.CreditAt-d.WriteAt, 0), true
	case d.Settle == "ack":
		return max(d.SettleAt-d.WriteAt, 0), true
	case d.Settle == "crash":
		return max(d.WriteEnd-d.WriteAt, 0), true
	}
	return 0, false
}

// Message is one message's life as the spans show it.
type Message struct {
	ID          string
	Published   int64
	Deliveries  []Delivery
	DeadLetter  bool
	DeadAt      int64
	DeadCount   int // the delivery count the DLQ move gave, 0 if none
	hasPublish  bool
	countOrders bool
	entry       entryID // redis: the stream entry's id, parsed
}

// Recording is what Read reconstructs.
type Recording struct {
	System      string
	Destination string
	Messages    []*Message // by publish time, then id; redis: in stream order
	Spans       int

	// Redis Streams (System): the group and consumer name, the gaps from
	// a dead instance's last span to the next instance's first, and the
	// new-entry reads that returned fewer than the model's COUNT before
	// the last one
	Group, Client string
	Restarts      []int64
	ShortReads    int
}

type span struct {
	id, parent     pcommon.SpanID
	name           string
	kind           ptrace.SpanKind
	start, end     int64
	opType, op     string
	system, dest   string
	msgID, client  string
	count          int64
	hasCount       bool
	settle         string
	dead, errored  bool
	resourceClient string
	db, outcome    string

	// for Redis Streams
	trace            pcommon.TraceID
	links            []link
	group, readFrom  string
	clientAttr       string
	instance         string
	dedupe           string
	dbOp, query, arg string
}

type link struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

func str(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// Read parses OTLP JSON, one export request a line, with pdata's
// unmarshaler, and reconstructs each message's deliveries.
func Read(r io.Reader) (*Recording, error) {
	lr := io.LimitReader(r, MaxFileBytes+1)
	br := bufio.NewReaderSize(lr, 64<<10)
	var spans []span
	var un ptrace.JSONUnmarshaler
	total := 0
	for n := 1; ; n++ {
		b, err := readLine(br)
		total += len(b) + 1
		if total > MaxFileBytes+1 {
			return nil, fmt.Errorf("the file is over %d MiB; import takes files up to that size", MaxFileBytes>>20)
		}
		if errors.Is(err, errLong) {
			return nil, fmt.Errorf("line %d is over %d MiB; one export request a line, of at most that size", n, MaxLineBytes>>20)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			td, uerr := un.UnmarshalTraces(b)
			if uerr != nil {
				return nil, fmt.Errorf("line %d is not OTLP JSON traces: %s", n, termtext.Clean(uerr.Error(), termtext.Line))
			}
			if spans, uerr = collect(td, spans); uerr != nil {
				return nil, uerr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return build(spans)
}

// countAttrs are the delivery counts the conventions define (Pub/Sub's,
// Service Bus's), and ours for the systems they define none for.
var countAttrs = []string{"messaging.gcp_pubsub.message.delivery_attempt", "messaging.servicebus.message.delivery_count", AttrDeliveryCount}

var errLong = errors.New("line too long")

func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		frag, err := br.ReadSlice('\n')
		out = append(out, frag...)
		if len(out) > MaxLineBytes {
			return nil, errLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(out, []byte("\n")), err
	}
}

func collect(td ptrace.Traces, spans []span) ([]span, error) {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		ra := rs.Resource().Attributes()
		rc := str(ra, "service.instance.id")
		if rc == "" {
			rc = str(ra, "host.name")
		}
		inst := rc
		if inst == "" {
			inst = str(ra, "service.name")
		}
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				if len(spans) >= MaxSpans {
					return nil, fmt.Errorf("more than %d spans; import takes at most that many", MaxSpans)
				}
				s := ss.At(k)
				a := s.Attributes()
				x := span{
					id: s.SpanID(), parent: s.ParentSpanID(), name: s.Name(), kind: s.Kind(),
					start: int64(s.StartTimestamp()), end: int64(s.EndTimestamp()),
					opType: str(a, "messaging.operation.type"), op: str(a, "messaging.operation.name"),
					system: str(a, "messaging.system"), dest: str(a, "messaging.destination.name"),
					msgID: str(a, "messaging.message.id"), client: str(a, "messaging.client.id"),
					settle: str(a, AttrSettle), errored: s.Status().Code() == ptrace.StatusCodeError,
					resourceClient: rc,
					db:             str(a, "db.system.name"), outcome: str(a, AttrEffectResult),
				}
				for _, k := range countAttrs {
					if v, ok := a.Get(k); ok && v.Type() == pcommon.ValueTypeInt {
						x.count, x.hasCount = v.Int(), true
					}
				}
				if v, ok := a.Get(AttrDeadLetter); ok && v.Type() == pcommon.ValueTypeBool {
					x.dead = v.Bool()
				}
				x.trace, x.instance, x.clientAttr = s.TraceID(), inst, x.client
				x.group, x.readFrom, x.dedupe = str(a, "messaging.consumer.group.name"), str(a, AttrReadFrom), str(a, AttrDedupe)
				x.dbOp, x.query, x.arg = str(a, "db.operation.name"), str(a, "db.query.text"), str(a, "db.query.parameter.0")
				if x.system == System && s.Links().Len() > 0 {
					if s.Links().Len() > MaxStreamEntries {
						return nil, fmt.Errorf("a span with %d links; import takes at most %d", s.Links().Len(), MaxStreamEntries)
					}
					for l := 0; l < s.Links().Len(); l++ {
						x.links = append(x.links, link{s.Links().At(l).TraceID(), s.Links().At(l).SpanID()})
					}
				}
				if x.client == "" {
					x.client = rc
				}
				spans = append(spans, x)
			}
		}
	}
	return spans, nil
}

func quote(s string) string { return fmt.Sprintf("%q", termtext.Clean(s, termtext.Quote)) }

func build(spans []span) (*Recording, error) {
	rec := &Recording{Spans: len(spans)}
	msgs := map[string]*Message{}
	get := func(id string) *Message {
		m, ok := msgs[id]
		if !ok {
			m = &Message{ID: id}
			msgs[id] = m
		}
		return m
	}
	var receives, processes []span
	for _, s := range spans {
		if s.system == System {
			return buildStreams(rec, spans)
		}
	}
	byParent := map[pcommon.SpanID][]span{}
	for _, s := range spans {
		if !s.parent.IsEmpty() {
			byParent[s.parent] = append(byParent[s.parent], s)
		}
		if s.system == "" {
			continue
		}
		if !supported(s.system) {
			return nil, unsupported(s.system)
		}
		if rec.System == "" {
			rec.System = s.system
		} else if rec.System != s.system {
			return nil, fmt.Errorf("spans from two messaging systems, %s and %s: import reads one at a time", quote(rec.System), quote(s.system))
		}
		if s.msgID == "" {
			continue
		}
		if s.dest != "" && !s.dead {
			if rec.Destination == "" {
				rec.Destination = s.dest
			} else if rec.Destination != s.dest {
				return nil, fmt.Errorf("spans name two destinations, %s and %s: import reads one queue at a time", quote(rec.Destination), quote(s.dest))
			}
		}
		switch {
		case s.dead:
			m := get(s.msgID)
			m.DeadLetter, m.DeadAt = true, s.start
			if s.hasCount {
				m.DeadCount = int(s.count)
			}
		case s.opType == "send" || s.opType == "create" || s.opType == "publish":
			m := get(s.msgID)
			if !m.hasPublish || s.start < m.Published {
				m.Published = s.start
			}
			m.hasPublish = true
		case s.opType == "receive":
			receives = append(receives, s)
		case s.opType == "process":
			processes = append(processes, s)
		}
	}
	if rec.System == "" {
		return nil, errors.New("no messaging spans (none has messaging.system): nothing to import")
	}
	// a process span belongs to the receive that is its parent; a process
	// span with no receive stands for its own delivery
	procOf := map[pcommon.SpanID]span{}
	var lone []span
	recvIDs := map[pcommon.SpanID]bool{}
	for _, r := range receives {
		recvIDs[r.id] = true
	}
	for _, p := range processes {
		if recvIDs[p.parent] {
			procOf[p.parent] = p
		} else {
			lone = append(lone, p)
		}
	}
	type draft struct {
		recv  span
		proc  span
		proc_ bool
	}
	drafts := map[string][]draft{}
	for _, r := range receives {
		p, ok := procOf[r.id]
		drafts[r.msgID] = append(drafts[r.msgID], draft{r, p, ok})
	}
	for _, p := range lone {
		drafts[p.msgID] = append(drafts[p.msgID], draft{p, p, true})
	}
	for id, ds := range drafts {
		m := get(id)
		if len(ds) > MaxDelivered {
			return nil, fmt.Errorf("message %s has %d deliveries; import takes at most %d", quote(id), len(ds), MaxDelivered)
		}
		sort.SliceStable(ds, func(i, j int) bool {
			a, b := ds[i].recv, ds[j].recv
			if a.start != b.start {
				return a.start < b.start
			}
			return a.hasCount && b.hasCount && a.count < b.count
		})
		for i := 1; i < len(ds); i++ {
			a, b := ds[i-1].recv, ds[i].recv
			switch {
			case a.start == b.start && !(a.hasCount && b.hasCount):
				return nil, fmt.Errorf("message %s: two receives at the same instant and no delivery count: its deliveries cannot be ordered", quote(id))
			case a.hasCount && b.hasCount && b.count <= a.count && !(m.DeadLetter && a.start <= m.DeadAt && m.DeadAt <= b.start):
				return nil, fmt.Errorf("message %s: delivery count %d is received at or after count %d, with no dead letter move between: its deliveries cannot be ordered", quote(id), b.count, a.count)
			}
		}
		for i, d := range ds {
			del := Delivery{N: i + 1, Count: i + 1, Consumer: d.recv.client, At: d.recv.start, End: d.recv.end, Settle: "none"}
			if d.recv.hasCount {
				del.Count = int(d.recv.count)
			}
			if d.proc_ {
				del.End = d.proc.end
				if d.proc.errored {
					del.Settle, del.SettleAt = "error", d.proc.end
				}
				var kids []span
				kids = append(kids, byParent[d.proc.id]...)
				sort.SliceStable(kids, func(i, j int) bool { return kids[i].start < kids[j].start })
				for _, k := range kids {
					switch {
					case k.opType == "settle":
						out := k.settle
						if out == "" {
							out = "ack"
							if k.op == "change_visibility" {
								out = "defer"
							} else if strings.Contains(k.op, "nack") || strings.Contains(k.op, "reject") || strings.Contains(k.op, "abandon") {
								out = "nack"
							} else if k.errored {
								out = "ack_refused"
							}
						}
						del.Settle, del.SettleAt = out, k.start
					case k.kind == ptrace.SpanKindClient && k.system == "" && k.db != "":
						del.Claims = append(del.Claims, k.outcome)
					case k.kind == ptrace.SpanKindClient && k.system == "":
						del.Effects = append(del.Effects, k.end-k.start)
						del.EffectAt = append(del.EffectAt, k.start)
					}
				}
			}
			m.Deliveries = append(m.Deliveries, del)
		}
	}
	for _, m := range msgs {
		if !m.hasPublish {
			if len(m.Deliveries) == 0 {
				return nil, fmt.Errorf("message %s: a dead letter move with no send and no receive", quote(m.ID))
			}
			// the producer was not traced: the first receive stands for it
			m.Published = m.Deliveries[0].At
		}
		if len(m.Deliveries) > 0 && m.Deliveries[0].At < m.Published {
			return nil, fmt.Errorf("message %s is received before it is sent: its deliveries cannot be ordered", quote(m.ID))
		}
		rec.Messages = append(rec.Messages, m)
	}
	if len(rec.Messages) == 0 {
		return nil, errors.New("no messaging spans with a messaging.message.id: nothing to import")
	}
	if len(rec.Messages) > MaxMessages {
		return nil, fmt.Errorf("%d messages; import takes at most %d", len(rec.Messages), MaxMessages)
	}
	sort.Slice(rec.Messages, func(i, j int) bool {
		a, b := rec.Messages[i], rec.Messages[j]
		if a.Published != b.Published {
			return a.Published < b.Published
		}
		return lessID(a.ID, b.ID)
	})
	return rec, nil
}

// lessID orders numeric ids as numbers, others as text.
func lessID(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func unsupported(system string) error {
	return fmt.Errorf("messaging.system %s is not supported: import reads %s (queues with leases and a dead letter queue) and %s (Streams consumer groups)", quote(system), strings.Join(Supported[:len(Supported)-1], ", "), System)
}

func supported(s string) bool {
	for _, x := range Supported {
		if x == s {
			return true
		}
	}
	return false
}
