package otlp

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
)

// streamKnobs are the cashback family's knobs --set may give a Redis
// Streams import.
var streamKnobs = []string{"crash_p", "dedupe", "events", "max_receives", "restart_after"}

// StreamFigures are what Redis Streams spans show.
type StreamFigures struct {
	Messages, Deliveries, Effects, DuplicateEffects, Lost, DLQ int
	Crashes, Handled                                           int
	Credited                                                   int64 // the credits' amounts summed; -1 when a credit shows none
	Amounts                                                    []int64
}

// StreamObserved counts what the spans show.
func (rec *Recording) StreamObserved() StreamFigures {
	var f StreamFigures
	f.Messages = len(rec.Messages)
	seen := map[int64]bool{}
	for _, m := range rec.Messages {
		f.Deliveries += len(m.Deliveries)
		n, acked := 0, false
		for _, d := range m.Deliveries {
			n += len(d.Effects)
			if d.Handled && d.Settle != "dead" {
				f.Handled++
			}
			switch d.Settle {
			case "crash":
				f.Crashes++
			case "ack":
				acked = true
			}
			for _, a := range d.Amounts {
				if a < 0 {
					f.Credited = -1
				} else if f.Credited >= 0 {
					f.Credited += a
				}
				if !seen[a] {
					seen[a] = true
					f.Amounts = append(f.Amounts, a)
				}
			}
		}
		if m.DeadLetter {
			f.DLQ++
		} else if acked && n == 0 {
			f.Lost++ // acknowledged, never credited
		}
		f.Effects += n
		if n > 1 {
			f.DuplicateEffects += n - 1
		}
	}
	sort.Slice(f.Amounts, func(i, j int) bool { return f.Amounts[i] < f.Amounts[j] })
	return f
}

func prob(p float64) string { return strconv.FormatFloat(p, 'g', 4, 64) }

// streamIncident writes a Redis Streams recording as a cashback incident.
func (rec *Recording) streamIncident(id string, set map[string]string, log io.Writer) ([]byte, error) {
	for k := range set {
		if !contains(streamKnobs, k) {
			return nil, fmt.Errorf("--set %s: not a knob the cashback family takes (knobs: %s)", quote(k), strings.Join(streamKnobs, ", "))
		}
	}
	f := rec.StreamObserved()
	knobs := map[string]string{}
	said := func(k, v, why string) {
		knobs[k] = v
		if _, over := set[k]; !over {
			fmt.Fprintf(log, "inferred %s=%s from %s\n", k, v, why)
		}
	}
	said("events", strconv.Itoa(f.Messages), fmt.Sprintf("the %d XADD spans", f.Messages))
	first, repeat := 0, 0
	maxCount := 0
	dead := -1
	// the processed records' store beside the wallet's: a store of its
	// own is pitfall 2, dedupe=separate
	wallet, store, apart := "", "", 0
	for _, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if wallet == "" {
				wallet = d.CreditStore
			}
			if len(d.Claims) > 0 && store == "" {
				store = d.ClaimStore
			}
		}
	}
	for _, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if len(d.Claims) > 0 && wallet != "" && d.ClaimStore != wallet {
				apart++
			}
			for _, c := range d.Claims {
				switch c {
				case "first":
					first++
				case "repeat":
					repeat++
				}
			}
			if d.Handled && d.Settle != "dead" {
				maxCount = max(maxCount, d.Count)
			}
		}
		if m.DeadLetter && (dead < 0 || m.DeadCount < dead) {
			dead = m.DeadCount
		}
	}
	separate := apart > 0
	switch {
	case separate && apart < first+repeat:
		return nil, fmt.Errorf("processed records both in the wallet's store (%s) and outside it: the cashback family keeps them in one", quote(wallet))
	case separate:
		said("dedupe", "separate", fmt.Sprintf("%d processed records (%d first, %d repeat) in %s, a store apart from the wallet's %s", first+repeat, first, repeat, quote(store), quote(wallet)))
	case first+repeat > 0:
		said("dedupe", "true", fmt.Sprintf("%d processed-row INSERTs in the credit's transaction (%d first, %d repeat)", first+repeat, first, repeat))
	default:
		said("dedupe", "false", "no processed-row INSERT (inflight.dedupe.outcome) under any process span")
	}
	p := 0.0
	if f.Handled > 0 {
		p = float64(f.Crashes) / float64(f.Handled)
	}
	said("crash_p", prob(p), fmt.Sprintf("%d crashes in %d handled deliveries (the draws a branch makes where no pin stands)", f.Crashes, f.Handled))
	if len(rec.Restarts) > 0 {
		gaps := append([]int64(nil), rec.Restarts...)
		sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
		med := ms(gaps[len(gaps)/2])
		// the model's consumer reads 1 ms after it is back
		said("restart_after", dur(max(med-1, 0)), fmt.Sprintf("%d gaps from a dead instance's last span to the next instance's first (median %s, shortest %s, longest %s), less the model's 1 ms to its first read", len(gaps), dur(med), dur(ms(gaps[0])), dur(ms(gaps[len(gaps)-1]))))
	} else {
		said("restart_after", "1s", "nothing: no instance died and another took over; the family's default")
	}
	switch {
	case dead > 1:
		said("max_receives", strconv.Itoa(dead-1), fmt.Sprintf("the delivery count at the dead letter moves (smallest %d: given up on past %d deliveries)", dead, dead-1))
	case maxCount > defaultMaxReceives:
		said("max_receives", strconv.Itoa(maxCount), fmt.Sprintf("nothing went to a dead stream: at least the most deliveries a handled entry had (%d)", maxCount))
	}
	for k, v := range set {
		knobs[k] = v
		fmt.Fprintf(log, "set %s=%s (--set)\n", k, v)
	}
	balance := f.Credited >= 0 && len(f.Amounts) == 1 && f.Amounts[0] == creditAmount
	switch {
	case f.Effects == 0:
		fmt.Fprintf(log, "figures.balance not expected: no credit span\n")
	case balance:
		fmt.Fprintf(log, "figures.balance expected from the credits' query text: ₹%d each, the model's amount\n", creditAmount)
	case f.Credited < 0:
		fmt.Fprintf(log, "figures.balance not expected: a credit's db.query.text shows no amount (the model credits ₹%d)\n", creditAmount)
	default:
		fmt.Fprintf(log, "figures.balance not expected: the credits' amounts %v are not the model's ₹%d\n", f.Amounts, creditAmount)
	}
	if rec.ShortReads > 0 {
		fmt.Fprintf(log, "note: %d new-entry reads returned fewer than %d entries before the last: the model reads a full stream COUNT %d, so its delivery counts may differ from these and check says where\n", rec.ShortReads, streamCount, streamCount)
	}

	first0 := rec.Messages[0].Published
	dayStart := first0 - first0%day
	last := first0
	for _, m := range rec.Messages {
		last = max(last, m.Published)
	}
	if span := ms(last-dayStart) - ms(first0-dayStart); span > int64(incidents.MaxPublishOffset) {
		return nil, fmt.Errorf("the entries are published over %s; an incident's publish schedule spans at most %s", dur(span), dur(int64(incidents.MaxPublishOffset)))
	}
	sched, back := publishRows(rec.Messages, dayStart)
	fmt.Fprintf(log, "publish schedule: the %d XADD spans' start times, in %s\n", f.Messages, plural(len(sched), "row"))
	if back > 0 {
		fmt.Fprintf(log, "note: %d XADD spans start before the entry before them in the stream: each is published with the one before (stream order is XADD's)\n", back)
	}
	handler := rec.handlerTimes(knobs["dedupe"] == "separate")
	fmt.Fprintf(log, "%s\n", handler.said)
	fmt.Fprintf(log, "consumer: %s in group %s on stream %s, %d instances\n", termtext.Clean(rec.Client, termtext.Name), termtext.Clean(rec.Group, termtext.Name), termtext.Clean(rec.Destination, termtext.Name), len(rec.Restarts)+1)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Imported from OpenTelemetry spans (messaging.system redis): stream %s,\n", termtext.Clean(rec.Destination, termtext.Name))
	w("# group %s, consumer %s.\n", termtext.Clean(rec.Group, termtext.Name), termtext.Clean(rec.Client, termtext.Name))
	w("#\n# Replayed: each entry's publish time (publish:, the XADD spans' starts),\n")
	w("# and, pinned by (entry, delivery count), each handled delivery's crash\n")
	w("# decision and handler time (its first write to its crash point: the\n")
	w("# XACK, the credit with dedupe separate, a crash's last write; not\n")
	w("# pinned when every one took the model's own 1 ms). The model's own\n")
	w("# timing: the consumer starts 1 ms after the last XADD, on the full\n")
	w("# stream, and reads COUNT 10; a handler starts 1 ms after its read or the\n")
	w("# XACK before; XACK takes 1 ms. A delivery with no pin (a branch's new\n")
	w("# one) draws its crash from crash_p and its handler time from the pinned\n")
	w("# ones; at crash_p 0 the crash pins give way.\n")
	w("id: %s\n", yq(id))
	w("title: %s\n", yq("Imported: "+rec.Destination))
	w("story: %s\n", yq(fmt.Sprintf("%d entries on stream %s as the spans recorded them: %d deliveries, %d credits, %d crashes, %d dead letters.", f.Messages, rec.Destination, f.Deliveries, f.Effects, f.Crashes, f.DLQ)))
	w("label: event\nstart: %q\nseed: 1\nfamily: cashback\n\n", clock(first0, dayStart))
	w("params:\n  events: %s\n  crash_p: %s\n  dedupe: %q\n  restart_after: %s\n", knobs["events"], knobs["crash_p"], knobs["dedupe"], knobs["restart_after"])
	if v, ok := knobs["max_receives"]; ok {
		w("  max_receives: %s\n", v)
	}
	w("\n# each entry's publish time: rows AT [xCOUNT [+EVERY]], ms from start\npublish: |\n")
	for _, r := range sched {
		w("  %s\n", r)
	}
	w("\n# each handled delivery's crash decision: 1 where the consumer died\n# before its XACK, 0 where it settled")
	if handler.pins > 0 {
		w("; and its handler time")
	}
	w("\n")
	own := cashbackPins()
	handle := slices.IndexFunc(own, func(k engine.PinKind) bool { return k.Name == "handle" })
	if handler.pins > 0 && handle < 0 {
		return nil, fmt.Errorf("the cashback family has no handler-time pin")
	}
	var pins []engine.Pin
	for i, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if !d.Handled || d.Settle == "dead" {
				continue
			}
			var v int64
			if d.Settle == "crash" {
				v = 1
			}
			pins = append(pins, engine.Pin{Kind: engine.DecCrash, Message: int32(i), Delivery: int(d.Count), Value: v})
			if h, ok := d.HandlerTime(knobs["dedupe"] == "separate"); ok && handler.pins > 0 {
				pins = append(pins, engine.Pin{Kind: own[handle].Kind, Message: int32(i), Delivery: int(d.Count), Value: roundMs(h)})
			}
		}
	}
	table, err := PinTable(pins, own...)
	if err != nil {
		return nil, err
	}
	b.Write(table)
	w("\n# the figures the spans show\nexpect:\n")
	w("  messages: %d\n  deliveries: %d\n  effects: %d\n  duplicate_effects: %d\n  lost: %d\n  dlq: %d\n  figures.crashes: %d\n", f.Messages, f.Deliveries, f.Effects, f.DuplicateEffects, f.Lost, f.DLQ, f.Crashes)
	if balance {
		w("  figures.balance: %d\n  figures.expected_balance: %d\n", f.Credited, int64(f.Messages)*creditAmount)
	}
	return []byte(b.String()), nil
}

// cashbackPins are the cashback family's own pin kinds (its handler
// time), from the registry: only incidents names the families.
func cashbackPins() []engine.PinKind {
	for _, d := range incidents.Families() {
		if d.Name == "cashback" {
			return d.Pins
		}
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// roundMs is ns to the nearest millisecond, the model's clock.
func roundMs(ns int64) int64 { return (ns + 500_000) / 1e6 }

// publishRows is the entries' publish schedule, in stream order: each
// one's offset from the first's millisecond, run-length rows "AT",
// "AT xCOUNT" or "AT xCOUNT +EVERY". A span that starts before the one
// before it is published with it (back counts those).
func publishRows(msgs []*Message, dayStart int64) (rows []string, back int) {
	at := make([]int64, len(msgs))
	base := ms(msgs[0].Published - dayStart)
	for i, m := range msgs {
		at[i] = ms(m.Published-dayStart) - base
		if i > 0 && at[i] < at[i-1] {
			at[i], back = at[i-1], back+1
		}
	}
	for i := 0; i < len(at); {
		j := i + 1
		if j < len(at) {
			every := at[j] - at[i]
			for j+1 < len(at) && at[j+1]-at[j] == every {
				j++
			}
			j++
		}
		switch n := j - i; {
		case n == 1:
			rows = append(rows, strconv.FormatInt(at[i], 10))
		case at[i+1] == at[i]:
			rows = append(rows, fmt.Sprintf("%d x%d", at[i], n))
		default:
			rows = append(rows, fmt.Sprintf("%d x%d +%d", at[i], n, at[i+1]-at[i]))
		}
		i = j
	}
	return rows, back
}

// handlerSummary is what the import says of the handler times, and how
// many it pins (none when every one is the model's 1 ms, which the
// family takes without pins).
type handlerSummary struct {
	pins   int
	said   string
	spread string // "0–9 ms, median 1 ms"
}

func (rec *Recording) handlerTimes(separate bool) handlerSummary {
	var hs []int64
	for _, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if d.Settle == "dead" {
				continue
			}
			if h, ok := d.HandlerTime(separate); ok {
				hs = append(hs, roundMs(h))
			}
		}
	}
	if len(hs) == 0 {
		return handlerSummary{said: "handler times: no handled delivery shows a write; each takes the model's 1 ms"}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
	if hs[0] == 1 && hs[len(hs)-1] == 1 {
		return handlerSummary{said: fmt.Sprintf("handler times: all %d handled deliveries take 1 ms from their first write to their crash point (the XACK, or the credit with the processed record apart; a crash: its last write's end), the model's own: not pinned", len(hs))}
	}
	spread := fmt.Sprintf("%d–%d ms, median %d ms", hs[0], hs[len(hs)-1], hs[len(hs)/2])
	return handlerSummary{pins: len(hs), spread: "the spans' " + spread, said: fmt.Sprintf("handler times: %d pinned, from each handled delivery's first write to its crash point (the XACK, or the credit with the processed record apart; a crash: its last write's end), %s; a delivery with no pin draws one of them", len(hs), spread)}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
