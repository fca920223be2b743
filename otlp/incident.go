package otlp

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
)

// knobSection is where each knob --set may give sits in the incident file.
var knobSection = map[string]string{
	"mode": "broker", "visibility_timeout": "broker", "max_receives": "broker", "late_ack": "broker",
	"ack": "handler", "claim": "handler", "claim_window": "handler", "crash_after_claim": "handler", "heartbeat": "handler",
	"latency_min": "provider", "latency_max": "provider", "wedge_p": "provider",
	"restart_after": "workers",
}

// Knobs lists the knobs --set takes.
func Knobs() []string {
	var ks []string
	for k := range knobSection {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

const day = int64(86400) * 1e9

func ms(ns int64) int64 { return ns / 1e6 }

func clock(ns, dayStart int64) string {
	t := ms(ns - dayStart)
	return fmt.Sprintf("%02d:%02d:%02d.%03d", t/3600000, t/60000%60, t/1000%60, t%1000)
}

func dur(msv int64) string {
	if msv%1000 == 0 {
		return strconv.FormatInt(msv/1000, 10) + "s"
	}
	return strconv.FormatInt(msv, 10) + "ms"
}

func yq(s string) string { return strconv.Quote(termtext.Clean(s, termtext.Name)) }

// Figures are the observed figures that become the file's expectations.
type Figures struct {
	Messages, Deliveries, Effects, DuplicateEffects, LateAcksRefused int
	DLQ, DLQPeak                                                     int // in the dead letter queue at the end, and at most
	MaxAgeS                                                          float64
}

// Observed counts what the spans show.
func (rec *Recording) Observed() Figures {
	var f Figures
	f.Messages = len(rec.Messages)
	type move struct {
		at int64
		d  int
	}
	var moves []move
	for _, m := range rec.Messages {
		f.Deliveries += len(m.Deliveries)
		n := 0
		end := m.Published
		for _, d := range m.Deliveries {
			n += len(d.Effects)
			if d.Settle == "ack_refused" {
				f.LateAcksRefused++
			}
			if d.Settle == "ack" {
				end = max(end, d.SettleAt)
			}
		}
		if m.DeadLetter {
			end = max(end, m.DeadAt)
			moves = append(moves, move{m.DeadAt, 1})
			if at, ok := redriven(m); ok {
				moves = append(moves, move{at, -1})
			} else {
				f.DLQ++
			}
		}
		f.Effects += n
		if n > 1 {
			f.DuplicateEffects += n - 1
		}
		f.MaxAgeS = max(f.MaxAgeS, float64(ms(end-m.Published))/1000)
	}
	// a move out at the same instant as a move in comes after it
	sort.Slice(moves, func(i, j int) bool {
		if moves[i].at != moves[j].at {
			return moves[i].at < moves[j].at
		}
		return moves[i].d > moves[j].d
	})
	n := 0
	for _, mv := range moves {
		n += mv.d
		f.DLQPeak = max(f.DLQPeak, n)
	}
	return f
}

// poison says every delivery before the message's dead letter move raised
// before any effect: the handler could not take it.
func poison(m *Message) bool {
	if !m.DeadLetter {
		return false
	}
	n := 0
	for _, d := range m.Deliveries {
		if d.At > m.DeadAt {
			break
		}
		if d.Settle != "error" || len(d.Effects) > 0 {
			return false
		}
		n++
	}
	return n > 0
}

// redriven says the message was delivered again after its dead letter move.
func redriven(m *Message) (int64, bool) {
	if !m.DeadLetter {
		return 0, false
	}
	for _, d := range m.Deliveries {
		if d.At > m.DeadAt {
			return d.At, true
		}
	}
	return 0, false
}

var boxed = regexp.MustCompile(`^([A-Za-z][A-Za-z_-]*)([0-9]+)$`)

// Incident writes the recording as an incident file, and says on log
// which knob it inferred from what. set overrides knobs (name → value, as
// the file would spell it).
func (rec *Recording) Incident(id string, set map[string]string, log io.Writer) ([]byte, error) {
	if rec.System == System {
		return rec.streamIncident(id, set, log)
	}
	for k := range set {
		if _, ok := knobSection[k]; !ok {
			return nil, fmt.Errorf("--set %s: not a knob the queue takes (knobs: %s)", quote(k), strings.Join(Knobs(), ", "))
		}
	}
	first := rec.Messages[0].Published
	dayStart := first - first%day
	knobs := map[string]string{"mode": "standard", "restart_after": "2s"}
	said := func(k, v, why string) {
		knobs[k] = v
		if _, over := set[k]; !over {
			fmt.Fprintf(log, "inferred %s=%s from %s\n", k, v, why)
		}
	}

	// visibility timeout: the gap between a receive whose delivery was not
	// settled in time and the redelivery that followed
	var gaps, windows []int64
	claims := 0
	var minLat, maxLat int64 = -1, 0
	refused, lateAccepted, before, after := 0, 0, 0, 0
	maxDead, maxDel := 0, 0
	consumers := map[string]bool{}
	for _, m := range rec.Messages {
		maxDel = max(maxDel, len(m.Deliveries))
		if m.DeadLetter {
			n := m.DeadCount
			if n == 0 { // no count on the move: the receives before it
				for _, d := range m.Deliveries {
					if d.At <= m.DeadAt {
						n++
					}
				}
			}
			maxDead = max(maxDead, n)
		}
		for i, d := range m.Deliveries {
			consumers[d.Consumer] = true
			for j, l := range d.Effects {
				lm := ms(l)
				if minLat < 0 || lm < minLat {
					minLat = lm
				}
				maxLat = max(maxLat, lm)
				if d.Settle == "ack" || d.Settle == "ack_refused" {
					if d.SettleAt <= d.EffectAt[j] {
						before++
					} else {
						after++
					}
				}
			}
			if d.Settle == "ack_refused" {
				refused++
			}
			for _, c := range d.Claims {
				if c == "claimed" {
					claims++
				}
			}
			if i+1 < len(m.Deliveries) && d.Settle == "defer" {
				windows = append(windows, ms(m.Deliveries[i+1].At-d.SettleAt))
			}
			if i+1 < len(m.Deliveries) && d.Settle != "nack" && d.Settle != "defer" && !(m.DeadLetter && d.At <= m.DeadAt && m.Deliveries[i+1].At > m.DeadAt) {
				next := m.Deliveries[i+1].At
				if d.Settle == "ack" && d.SettleAt > d.At && d.SettleAt > next {
					lateAccepted++
				}
				if d.Settle == "none" || d.Settle == "ack_refused" || d.Settle == "error" || d.SettleAt > next {
					gaps = append(gaps, ms(next-d.At))
				}
			}
		}
	}
	if len(gaps) > 0 {
		sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
		said("visibility_timeout", dur(gaps[0]), fmt.Sprintf("%d gaps between a receive not settled in time and the redelivery after it (shortest %s, longest %s)", len(gaps), dur(gaps[0]), dur(gaps[len(gaps)-1])))
	} else {
		said("visibility_timeout", "30s", "nothing: no delivery was redelivered; the SQS default")
	}
	if maxDead > 0 {
		said("max_receives", strconv.Itoa(maxDead), fmt.Sprintf("the delivery count at the dead letter moves (at most %d)", maxDead))
	} else {
		said("max_receives", strconv.Itoa(max(maxDel, 1)), fmt.Sprintf("nothing went to a dead letter queue: at least the most deliveries a message had (%d)", maxDel))
	}
	switch {
	case refused > 0:
		said("late_ack", "refuse", fmt.Sprintf("%d acks refused after their lease expired", refused))
	case lateAccepted > 0:
		said("late_ack", "accept", fmt.Sprintf("%d acks taken after the redelivery", lateAccepted))
	default:
		said("late_ack", "refuse", "nothing: no ack came late; SQS refuses an expired receipt handle")
	}
	if strings.HasSuffix(rec.Destination, ".fifo") {
		said("mode", "ordered", fmt.Sprintf("the queue's name %s ending .fifo", yq(rec.Destination)))
	}
	var firstRecv int64 = -1
	poisoned, redrives := 0, 0
	var redriveAt int64 = -1
	for _, m := range rec.Messages {
		if len(m.Deliveries) > 0 && (firstRecv < 0 || m.Deliveries[0].At < firstRecv) {
			firstRecv = m.Deliveries[0].At
		}
		if poison(m) {
			poisoned++
		}
		if at, ok := redriven(m); ok {
			redrives++
			if redriveAt < 0 || at < redriveAt {
				redriveAt = at
			}
		}
	}
	whenDLQ := 0
	if redrives > 0 {
		for _, m := range rec.Messages {
			if m.DeadLetter && m.DeadAt <= redriveAt {
				whenDLQ++
			}
		}
		fmt.Fprintf(log, "inferred an operator's repair and redrive when the dead letter queue held %d, from %d messages delivered again after their dead letter move\n", whenDLQ, redrives)
	}
	if poisoned > 0 {
		fmt.Fprintf(log, "inferred %d poison messages from their deliveries all raising before any effect call until the dead letter move\n", poisoned)
	}
	workersStart := ""
	if firstRecv > first {
		workersStart = clock(firstRecv, dayStart)
		fmt.Fprintf(log, "inferred the consumers start at %s from the first receive, %s after the first send\n", workersStart, dur(ms(firstRecv-first)))
	}
	if claims > 0 {
		said("claim", "true", fmt.Sprintf("%d claims written to the claims table before the effect call", claims))
		if len(windows) > 0 {
			sort.Slice(windows, func(i, j int) bool { return windows[i] < windows[j] })
			said("claim_window", dur(windows[0]), fmt.Sprintf("%d deliveries handed back while a claim was in flight, and the redelivery after each (shortest %s)", len(windows), dur(windows[0])))
		}
	}
	if before > after {
		said("ack", "before", fmt.Sprintf("%d acks before the effect call (%d after)", before, after))
	} else {
		said("ack", "after", fmt.Sprintf("%d acks after the effect call (%d before)", after, before))
	}
	if minLat >= 0 {
		said("latency_min", dur(minLat), "the fastest effect call")
		said("latency_max", dur(maxLat), "the slowest effect call")
	} else {
		said("latency_min", "0", "nothing: no effect call")
		said("latency_max", "0", "nothing: no effect call")
	}
	for k, v := range set {
		knobs[k] = v
		fmt.Fprintf(log, "set %s=%s (--set)\n", k, v)
	}

	// consumers: NAME+digits on a box NAME when every box has as many,
	// else one box each
	names := make([]string, 0, len(consumers))
	for c := range consumers {
		names = append(names, c)
	}
	sort.Strings(names)
	boxOf := map[string]string{}
	perBox := map[string]int{}
	for _, c := range names {
		if mm := boxed.FindStringSubmatch(c); mm != nil {
			boxOf[c] = mm[1]
			perBox[mm[1]]++
		}
	}
	var boxes []string
	per := 0
	same := len(boxOf) == len(names)
	for b, n := range perBox {
		if per == 0 {
			per = n
		}
		same = same && n == per
		boxes = append(boxes, b)
	}
	if !same || len(boxes) == 0 {
		boxes, per = nil, 1
		for i, c := range names {
			b := fmt.Sprintf("C%d", i+1)
			boxOf[c] = b
			boxes = append(boxes, b)
		}
	}
	sort.Strings(boxes)
	if len(boxes)*per > 64 {
		return nil, fmt.Errorf("%d consumers; an incident takes at most 64 workers", len(boxes)*per)
	}
	fmt.Fprintf(log, "consumers: %d (boxes %s, %d each)\n", len(names), strings.Join(boxes, ", "), per)

	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	f := rec.Observed()
	w("# Imported from OpenTelemetry spans (messaging.system %s).\n", termtext.Clean(rec.System, termtext.Name))
	w("id: %s\n", yq(id))
	w("title: %s\n", yq("Imported: "+rec.Destination))
	w("story: %s\n", yq(fmt.Sprintf("%d messages on %s as the spans recorded them: %d deliveries, %d effect calls, %d in the dead letter queue.", f.Messages, rec.Destination, f.Deliveries, f.Effects, f.DLQ)))
	w("label: message\nstart: %q\nseed: 1\n\n", clock(first, dayStart))
	// the publish schedule: runs of equal gaps become one source each
	w("sources:\n")
	ms_ := rec.Messages
	for i, n := 0, 0; i < len(ms_); n++ {
		j := i + 1
		var gap int64
		if j < len(ms_) {
			gap = ms_[j].Published - ms_[i].Published
			for j < len(ms_) && ms_[j].Published-ms_[j-1].Published == gap && gap > 0 && poison(ms_[j]) == poison(ms_[i]) {
				j++
			}
			if gap <= 0 || poison(ms_[i+1]) != poison(ms_[i]) {
				j = i + 1
			}
		}
		every := "1s"
		if j-i > 1 {
			every = dur(ms(gap))
		}
		p := ""
		if poison(ms_[i]) {
			p = ", poison: true"
		}
		w("  - {name: s%d, start: %q, every: %s, count: %d%s}\n", n+1, clock(ms_[i].Published, dayStart), every, j-i, p)
		i = j
	}
	w("\nbroker:\n  mode: %s\n  visibility_timeout: %s\n  max_receives: %s\n  late_ack: %s\n", knobs["mode"], knobs["visibility_timeout"], knobs["max_receives"], knobs["late_ack"])
	w("\nworkers:\n  boxes: [")
	for i, x := range boxes {
		if i > 0 {
			w(", ")
		}
		w("%s", yq(x))
	}
	w("]\n  per_box: %d\n  restart_after: %s\n", per, knobs["restart_after"])
	if workersStart != "" {
		w("  start: %q\n", workersStart)
	}
	if whenDLQ > 0 {
		w("\noperators:\n  - name: repair and redrive\n    action: repair_redrive\n    when_dlq: %d\n    description: %s\n", whenDLQ, yq("someone repaired the dead letters and redrove them, as the spans show"))
	}
	w("\nhandler:\n")
	for _, k := range []string{"ack", "claim", "claim_window", "crash_after_claim", "heartbeat"} {
		if v, ok := knobs[k]; ok {
			w("  %s: %s\n", k, v)
		}
	}
	w("\nprovider:\n")
	for _, k := range []string{"latency_min", "latency_max", "wedge_p"} {
		if v, ok := knobs[k]; ok {
			w("  %s: %s\n", k, v)
		}
	}
	// a pin names a delivery by its count, which a redrive starts again:
	// the first delivery with a count keeps the pin
	type pinKey struct{ kind, msg, n int }
	pinned := map[pinKey]bool{}
	var pins []engine.Pin
	for i, m := range rec.Messages {
		for _, d := range m.Deliveries {
			if len(d.Effects) > 0 && !pinned[pinKey{0, i, d.Count}] {
				pinned[pinKey{0, i, d.Count}] = true
				pins = append(pins, engine.Pin{Kind: engine.DecLatency, Message: int32(i), Delivery: d.Count, Value: ms(d.Effects[0])})
			}
			if !pinned[pinKey{1, i, d.Count}] {
				pinned[pinKey{1, i, d.Count}] = true
				pins = append(pins, engine.Pin{Kind: engine.DecWorker, Message: int32(i), Delivery: d.Count, Box: boxOf[d.Consumer]})
			}
		}
	}
	table, err := PinTable(pins)
	if err != nil {
		return nil, fmt.Errorf("a latency and a worker pin a delivery: %w", err)
	}
	w("\n# each delivery's recorded handler time (latency) and consumer (worker), pinned\n")
	b.Write(table)
	w("\n# the figures the spans show\nexpect:\n")
	w("  messages: %d\n  deliveries: %d\n  effects: %d\n  duplicate_effects: %d\n  dlq: %d\n  late_acks_refused: %d\n", f.Messages, f.Deliveries, f.Effects, f.DuplicateEffects, f.DLQ, f.LateAcksRefused)
	w("  figures.dlq_peak: %d\n", f.DLQPeak)
	w("  max_oldest_age_s: %q\n", "<="+strconv.FormatFloat(f.MaxAgeS, 'f', -1, 64))
	if b.Len() > incidents.MaxFileBytes {
		return nil, fmt.Errorf("the incident would be %d bytes with its %d pins; an incident file is at most %d (%d MiB)", b.Len(), len(pins), incidents.MaxFileBytes, incidents.MaxFileBytes>>20)
	}
	return []byte(b.String()), nil
}
