package otlp

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

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
	for _, m := range rec.Messages {
		for _, d := range m.Deliveries {
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
	if first+repeat > 0 {
		said("dedupe", "true", fmt.Sprintf("%d processed-row INSERTs in the credit's transaction (%d first, %d repeat)", first+repeat, first, repeat))
	} else {
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
	fmt.Fprintf(log, "consumer: %s in group %s on stream %s, %d instances\n", termtext.Clean(rec.Client, termtext.Name), termtext.Clean(rec.Group, termtext.Name), termtext.Clean(rec.Destination, termtext.Name), len(rec.Restarts)+1)

	first0 := rec.Messages[0].Published
	dayStart := first0 - first0%day
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Imported from OpenTelemetry spans (messaging.system redis): stream %s,\n", termtext.Clean(rec.Destination, termtext.Name))
	w("# group %s, consumer %s.\n", termtext.Clean(rec.Group, termtext.Name), termtext.Clean(rec.Client, termtext.Name))
	w("#\n# The cashback family keeps its own timing: the producer writes one entry\n")
	w("# a millisecond from start, the consumer starts on the full stream and\n")
	w("# reads COUNT 10, each write and the XACK take 1 ms. The spans' publish\n")
	w("# and handler times are not replayed; each handled delivery's crash\n")
	w("# decision is, pinned by (entry, delivery count). crash_p is for the\n")
	w("# draws a branch makes where no pin stands; at crash_p 0 the pins give way.\n")
	w("id: %s\n", yq(id))
	w("title: %s\n", yq("Imported: "+rec.Destination))
	w("story: %s\n", yq(fmt.Sprintf("%d entries on stream %s as the spans recorded them: %d deliveries, %d credits, %d crashes, %d dead letters.", f.Messages, rec.Destination, f.Deliveries, f.Effects, f.Crashes, f.DLQ)))
	w("label: event\nstart: %q\nseed: 1\nfamily: cashback\n\n", clock(first0, dayStart))
	w("params:\n  events: %s\n  crash_p: %s\n  dedupe: %q\n  restart_after: %s\n", knobs["events"], knobs["crash_p"], knobs["dedupe"], knobs["restart_after"])
	if v, ok := knobs["max_receives"]; ok {
		w("  max_receives: %s\n", v)
	}
	w("\n# each handled delivery's crash decision: 1 where the consumer died\n# before its XACK, 0 where it settled\npins:\n")
	for i, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if !d.Handled || d.Settle == "dead" {
				continue
			}
			v := 0
			if d.Settle == "crash" {
				v = 1
			}
			w("  - {decision: crash, message: %d, delivery: %d, value: %d}\n", i, d.Count, v)
		}
	}
	w("\n# the figures the spans show\nexpect:\n")
	w("  messages: %d\n  deliveries: %d\n  effects: %d\n  duplicate_effects: %d\n  lost: %d\n  dlq: %d\n  figures.crashes: %d\n", f.Messages, f.Deliveries, f.Effects, f.DuplicateEffects, f.Lost, f.DLQ, f.Crashes)
	if balance {
		w("  figures.balance: %d\n  figures.expected_balance: %d\n", f.Credited, int64(f.Messages)*creditAmount)
	}
	return []byte(b.String()), nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
