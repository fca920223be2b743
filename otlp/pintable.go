package otlp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
)

// PinTable renders pins as an incident file's pin_table (the key and its
// literal block, a header comment first), one pin a row in the given
// order, which is the order they are tried in: "latency 0 1 39826ms",
// "worker 0 1 A", "crash 3 1 1". The columns are aligned for a reader.
// The incident parser reads it back to exactly these pins; it refuses
// what the table cannot write (a box with a space) and more rows than the
// parser takes. own are the family's own pin kinds (cashback's handle), a
// duration each.
func PinTable(pins []engine.Pin, own ...engine.PinKind) ([]byte, error) {
	if len(pins) > incidents.MaxPinRows {
		return nil, fmt.Errorf("%d pins; an incident's pin_table holds at most %d", len(pins), incidents.MaxPinRows)
	}
	msgW, delW := 1, 1
	for _, p := range pins {
		msgW = max(msgW, len(strconv.FormatInt(int64(p.Message), 10)))
		delW = max(delW, len(strconv.Itoa(p.Delivery)))
	}
	var b strings.Builder
	b.Grow(len(pins) * (20 + msgW + delW))
	b.WriteString("pin_table: |\n  # decision message delivery value\n")
	for _, p := range pins {
		var v string
		kind := p.Kind.String()
		switch i := slices.IndexFunc(own, func(k engine.PinKind) bool { return k.Kind == p.Kind }); {
		case i >= 0:
			if p.Value < 0 {
				return nil, fmt.Errorf("message %d delivery %d: a %s pin of %d ms", p.Message, p.Delivery, own[i].Name, p.Value)
			}
			kind, v = own[i].Name, dur(p.Value)
		case p.Kind == engine.DecLatency:
			if p.Value < 0 {
				return nil, fmt.Errorf("message %d delivery %d: a latency of %d ms", p.Message, p.Delivery, p.Value)
			}
			v = dur(p.Value)
		case p.Kind == engine.DecWorker:
			v = p.Box
			if v == "" || strings.ContainsAny(v, " \t\n#") || termtext.Clean(v, termtext.Name) != v {
				return nil, fmt.Errorf("message %d delivery %d: box %s cannot be a pin_table field (one word, plain text)", p.Message, p.Delivery, quote(v))
			}
		case p.Kind == engine.DecCrash:
			if p.Value != 0 && p.Value != 1 {
				return nil, fmt.Errorf("message %d delivery %d: crash pin value %d, want 0 or 1", p.Message, p.Delivery, p.Value)
			}
			v = strconv.FormatInt(p.Value, 10)
		default:
			return nil, fmt.Errorf("message %d delivery %d: a %s pin; a pin_table writes latency, worker and crash", p.Message, p.Delivery, p.Kind)
		}
		if p.Message < 0 || p.Delivery < 1 {
			return nil, fmt.Errorf("message %d delivery %d: messages count from 0, deliveries from 1", p.Message, p.Delivery)
		}
		fmt.Fprintf(&b, "  %-7s %*d %*d %s\n", kind, msgW, p.Message, delW, p.Delivery, v)
	}
	return []byte(b.String()), nil
}
