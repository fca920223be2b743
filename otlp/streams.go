package otlp

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// System is the messaging.system value of Redis Streams spans: the
// conventions define none, and custom values are allowed.
const System = "redis"

// Bounds on a Redis Streams import. The incident pins each handled
// delivery's crash decision, and its handler time too unless every handler
// took the model's 1 ms: two rows of its pin_table each, so 5,400 handled
// deliveries are 10,800 pins, well inside the table's 40,000 rows and the
// file's 1 MiB. The lesson's run (5,000 entries, 5,055 handled deliveries)
// fits; MaxMessages' 2,000 is the queue's. Every entry of a finished run
// is handled at least once, so the entries' bound is the handled
// deliveries'.
const (
	MaxStreamEntries = 5_400
	MaxStreamHandled = 5_400
	MaxStreamPins    = 2 * MaxStreamHandled
)

// streamCount is the cashback model's XREADGROUP COUNT: a new-entry read
// that returns fewer, before the stream's end, reads differently from it.
const streamCount = 10

// entryID is a stream entry's id, milliseconds and sequence: stream order.
type entryID struct {
	ms, seq uint64
	ok      bool
}

func parseEntryID(s string) entryID {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return entryID{}
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	return entryID{ms, seq, err1 == nil && err2 == nil}
}

func (a entryID) less(b entryID) bool {
	if a.ms != b.ms {
		return a.ms < b.ms
	}
	return a.seq < b.seq
}

// buildStreams reconstructs one consumer group's deliveries from Redis
// Streams spans: each receive delivers every entry it links (Redis counts
// a delivery per XREADGROUP that returns the entry), a process span is the
// handler's run of one of those deliveries, and writes whose process span
// never ended (no parent in the file) are a crash's.
func buildStreams(rec *Recording, spans []span) (*Recording, error) {
	rec.System = System
	ids := map[pcommon.SpanID]bool{}
	byParent := map[pcommon.SpanID][]span{}
	for _, s := range spans {
		ids[s.id] = true
		if !s.parent.IsEmpty() {
			byParent[s.parent] = append(byParent[s.parent], s)
		}
	}
	msgs := map[string]*Message{}
	byProducer := map[link]*Message{}
	byTrace := map[pcommon.TraceID]*Message{}
	var receives, processes []span
	one := func(what string, have *string, v string) error {
		if v == "" || *have == v {
			return nil
		}
		if *have == "" {
			*have = v
			return nil
		}
		return fmt.Errorf("spans name two %s, %s and %s: import reads one stream, one group and one consumer (the cashback family has one)", what, quote(*have), quote(v))
	}
	for _, s := range spans {
		if s.system == "" {
			continue
		}
		if s.system != System {
			if !supported(s.system) {
				return nil, unsupported(s.system)
			}
			return nil, fmt.Errorf("spans from two messaging systems, %s and %s: import reads one at a time", quote(System), quote(s.system))
		}
		if !s.dead {
			if err := one("streams", &rec.Destination, s.dest); err != nil {
				return nil, err
			}
		}
		if s.opType == "receive" || s.opType == "process" || s.opType == "settle" {
			if err := one("consumer groups", &rec.Group, s.group); err != nil {
				return nil, err
			}
			if err := one("consumers (messaging.client.id)", &rec.Client, s.clientAttr); err != nil {
				return nil, err
			}
		}
		switch {
		case s.dead:
		case s.opType == "send" || s.opType == "create" || s.opType == "publish":
			if s.msgID == "" {
				return nil, fmt.Errorf("a redis send span %s with no messaging.message.id: the entry's id is needed", quote(s.name))
			}
			m, ok := msgs[s.msgID]
			if ok {
				return nil, fmt.Errorf("entry %s is sent twice: a stream entry's id is XADD's, once", quote(s.msgID))
			}
			m = &Message{ID: s.msgID, Published: s.start, hasPublish: true, entry: parseEntryID(s.msgID)}
			msgs[s.msgID] = m
			byProducer[link{s.trace, s.id}] = m
			byTrace[s.trace] = m
		case s.opType == "receive":
			if s.group == "" {
				return nil, fmt.Errorf("a redis receive span %s with no messaging.consumer.group.name: import reads consumer groups (XREADGROUP), not XREAD", quote(s.name))
			}
			receives = append(receives, s)
		case s.opType == "process":
			processes = append(processes, s)
		}
	}
	if len(msgs) == 0 {
		return nil, errors.New("no redis send spans (XADD) with a messaging.message.id: nothing to import")
	}
	if len(msgs) > MaxStreamEntries {
		return nil, fmt.Errorf("%d stream entries; import takes at most %d", len(msgs), MaxStreamEntries)
	}
	if rec.Client == "" && len(receives) > 0 {
		return nil, fmt.Errorf("a redis receive span %s with no messaging.client.id: the consumer's name is needed", quote(receives[0].name))
	}

	// the receives in time order; two at one instant delivering one entry
	// cannot be ordered
	sort.SliceStable(receives, func(i, j int) bool { return receives[i].start < receives[j].start })
	type dkey struct {
		recv pcommon.SpanID
		msg  *Message
	}
	at := map[dkey]int{}
	lastRecv := map[*Message]int64{}
	for _, r := range receives {
		for _, l := range r.links {
			m := byProducer[l]
			if m == nil {
				m = byTrace[l.trace]
			}
			if m == nil {
				return nil, fmt.Errorf("receive span %s links a span that is no entry's XADD: the entry it delivered is unknown", quote(r.name))
			}
			if _, dup := at[dkey{r.id, m}]; dup {
				return nil, fmt.Errorf("entry %s: one receive links it twice: its deliveries cannot be ordered", quote(m.ID))
			}
			if n := len(m.Deliveries); n > 0 {
				if lastRecv[m] == r.start {
					return nil, fmt.Errorf("entry %s: two receives at the same instant deliver it: its deliveries cannot be ordered", quote(m.ID))
				}
				if r.readFrom == ">" {
					return nil, fmt.Errorf("entry %s: a new-entry read (>) delivers it after its first delivery: its deliveries cannot be ordered", quote(m.ID))
				}
			}
			if len(m.Deliveries) >= MaxDelivered {
				return nil, fmt.Errorf("entry %s has more than %d deliveries; import takes at most that many", quote(m.ID), MaxDelivered)
			}
			if r.start < m.Published {
				return nil, fmt.Errorf("entry %s is received before it is sent: its deliveries cannot be ordered", quote(m.ID))
			}
			lastRecv[m] = r.start
			n := len(m.Deliveries) + 1
			m.Deliveries = append(m.Deliveries, Delivery{N: n, Count: n, Consumer: r.instance, At: r.start, End: r.end, Settle: "none"})
			at[dkey{r.id, m}] = n - 1
		}
	}

	// a process span is the handler's run of the delivery its receive made
	handlerSpans := func(m *Message, d *Delivery, kids []span) {
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].start < kids[j].start })
		for _, k := range kids {
			if k.kind == ptrace.SpanKindClient && k.system == "" {
				if d.WriteAt == 0 || k.start < d.WriteAt {
					d.WriteAt = k.start
				}
				d.WriteEnd = max(d.WriteEnd, k.end)
			}
			switch {
			case k.dead:
				d.Settle, d.SettleAt = "dead", k.start
				m.DeadLetter, m.DeadAt, m.DeadCount = true, k.start, d.Count
				if k.hasCount {
					m.DeadCount = int(k.count)
				}
			case k.opType == "settle":
				if d.Settle != "dead" {
					d.Settle, d.SettleAt = "ack", k.start
				}
			case k.kind == ptrace.SpanKindClient && k.system == "" && k.dedupe != "":
				d.Claims = append(d.Claims, k.dedupe)
				d.ClaimStore = k.db
			case k.kind == ptrace.SpanKindClient && k.system == "" && isCredit(k):
				if d.CreditAt == 0 {
					d.CreditAt, d.CreditStore = k.start, k.db
				}
				d.Effects = append(d.Effects, k.end-k.start)
				d.EffectAt = append(d.EffectAt, k.start)
				d.Amounts = append(d.Amounts, amountOf(k))
			}
		}
	}
	for _, p := range processes {
		m := msgs[p.msgID]
		if m == nil {
			return nil, fmt.Errorf("a process span for entry %s, which no XADD span sent", quote(p.msgID))
		}
		i := -1
		for _, l := range p.links {
			if j, ok := at[dkey{l.span, m}]; ok {
				i = j
			}
		}
		if i < 0 && p.hasCount && p.count >= 1 && int(p.count) <= len(m.Deliveries) {
			i = int(p.count) - 1
		}
		if i < 0 {
			return nil, fmt.Errorf("entry %s: a process span with no receive that delivered it: its delivery cannot be placed", quote(m.ID))
		}
		d := &m.Deliveries[i]
		if p.hasCount && int(p.count) != d.Count {
			return nil, fmt.Errorf("entry %s: its process span says delivery %d, but its receive is the entry's delivery %d: its deliveries cannot be ordered", quote(m.ID), p.count, d.Count)
		}
		if d.Handled {
			return nil, fmt.Errorf("entry %s: two process spans for delivery %d", quote(m.ID), d.Count)
		}
		d.Handled, d.End = true, p.end
		handlerSpans(m, d, byParent[p.id])
	}

	// writes whose process span is not in the file: the process died
	// before ending it; they belong to their trace's entry and its latest
	// delivery before them
	orphans := map[*Delivery][]span{}
	var crashed []*Delivery
	lastWrite := map[*Delivery]int64{}
	instOf := map[*Delivery]string{}
	msgOf := map[*Delivery]*Message{}
	for _, s := range spans {
		if s.kind != ptrace.SpanKindClient || s.system != "" || s.parent.IsEmpty() || ids[s.parent] {
			continue
		}
		m := byTrace[s.trace]
		if m == nil {
			continue // not an entry's: nothing here is about it
		}
		i := len(m.Deliveries) - 1
		for i >= 0 && m.Deliveries[i].At > s.start {
			i--
		}
		if i < 0 {
			return nil, fmt.Errorf("entry %s: a write %s before its first delivery: it cannot be placed", quote(m.ID), quote(s.name))
		}
		d := &m.Deliveries[i]
		if d.Handled && orphans[d] == nil {
			return nil, fmt.Errorf("entry %s: a write %s whose process span is missing, at delivery %d, which has one: it cannot be placed", quote(m.ID), quote(s.name), d.Count)
		}
		if orphans[d] == nil {
			crashed = append(crashed, d)
		}
		orphans[d] = append(orphans[d], s)
		lastWrite[d] = max(lastWrite[d], s.end)
		instOf[d], msgOf[d] = s.instance, m
	}
	for _, d := range crashed {
		d.Handled, d.End = true, lastWrite[d]
		handlerSpans(msgOf[d], d, orphans[d])
		d.Settle, d.SettleAt = "crash", lastWrite[d]
	}

	// instances: a crashed one has no span after its crash; the gap to the
	// next instance's first span is the restart
	type life struct {
		first, last int64
		crash       int64
		crashed     bool
	}
	lives := map[string]*life{}
	consumer := map[string]bool{}
	for _, s := range spans {
		if s.opType == "receive" || s.opType == "process" {
			consumer[s.instance] = true
		}
	}
	for _, s := range spans {
		if !consumer[s.instance] {
			continue // the producer's, or another service's
		}
		l := lives[s.instance]
		if l == nil {
			l = &life{first: s.start, last: s.end}
			lives[s.instance] = l
		}
		l.first, l.last = min(l.first, s.start), max(l.last, s.end)
	}
	for _, d := range crashed {
		l := lives[instOf[d]]
		if l == nil {
			return nil, fmt.Errorf("writes with no process span from %s, which made no receive: spans are missing", quote(instOf[d]))
		}
		if l.crashed {
			return nil, fmt.Errorf("consumer instance %s crashes twice: a restart is a new service.instance.id", quote(instOf[d]))
		}
		l.crashed, l.crash = true, lastWrite[d]
	}
	var order []string
	for k := range lives {
		order = append(order, k)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := lives[order[i]], lives[order[j]]
		if a.first != b.first {
			return a.first < b.first
		}
		return order[i] < order[j]
	})
	for i, k := range order {
		l := lives[k]
		if !l.crashed {
			continue
		}
		if l.last > l.crash {
			return nil, fmt.Errorf("consumer instance %s has writes with no process span, then goes on: not a crash, spans are missing (a batching exporter loses only a dying process's)", quote(k))
		}
		if i+1 < len(order) {
			rec.Restarts = append(rec.Restarts, lives[order[i+1]].first-l.crash)
		}
	}

	for _, m := range msgs {
		rec.Messages = append(rec.Messages, m)
	}
	sort.Slice(rec.Messages, func(i, j int) bool {
		a, b := rec.Messages[i], rec.Messages[j]
		if a.entry.ok && b.entry.ok && a.entry != b.entry {
			return a.entry.less(b.entry)
		}
		if a.Published != b.Published {
			return a.Published < b.Published
		}
		return lessID(a.ID, b.ID)
	})
	pins := 0
	for _, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if d.Handled {
				pins++
			}
		}
	}
	if pins > MaxStreamHandled {
		return nil, fmt.Errorf("%d handled deliveries; import takes at most %d (the incident pins each one's crash decision and handler time)", pins, MaxStreamHandled)
	}
	// new-entry reads short of COUNT before the last one: the model reads
	// a full stream COUNT 10 at a time
	var news []span
	for _, r := range receives {
		if r.readFrom == ">" || r.readFrom == "" && len(r.links) > 0 && firstDelivery(r, byProducer, byTrace) {
			news = append(news, r)
		}
	}
	for i, r := range news {
		if i+1 < len(news) && len(r.links) < streamCount {
			rec.ShortReads++
		}
	}
	return rec, nil
}

// firstDelivery says every entry r links is at its first delivery there.
func firstDelivery(r span, byProducer map[link]*Message, byTrace map[pcommon.TraceID]*Message) bool {
	for _, l := range r.links {
		m := byProducer[l]
		if m == nil {
			m = byTrace[l.trace]
		}
		if m == nil || len(m.Deliveries) == 0 || m.Deliveries[0].At != r.start {
			return false
		}
	}
	return true
}

// isCredit: the effect is the wallet's UPDATE (the contract's `UPDATE
// wallet`); other writes without a dedupe outcome are not the effect.
func isCredit(s span) bool {
	return strings.EqualFold(s.dbOp, "UPDATE") || s.dbOp == "" && strings.HasPrefix(strings.ToUpper(s.name), "UPDATE")
}

var plusAmount = regexp.MustCompile(`\+\s*(\?|\d+)`)

// amountOf is the credit's amount: a literal in db.query.text ("balance +
// 100"), or its first parameter (db.query.parameter.0) where the text has
// a placeholder; -1 when the span shows none.
func amountOf(s span) int64 {
	mm := plusAmount.FindStringSubmatch(s.query)
	v := ""
	switch {
	case mm == nil:
		return -1
	case mm[1] == "?":
		v = s.arg
	default:
		v = mm[1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
