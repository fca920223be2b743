package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MsgFacts is the ground truth about one message, read off its events.
type MsgFacts struct {
	Published   Time
	Deliveries  int
	Effects     int
	FirstEffect Time
	LastEffect  Time
	DLQ         bool
	Gone        Time // when the broker stopped holding it (ack or DLQ), or -1
	DLQAt       Time // when it first reached the dead letter queue, or -1
}

// Probe is a sink that keeps facts per message, for checks and tests on
// small runs ("how many emails did order 14 get").
type Probe struct {
	Msgs map[int32]*MsgFacts
}

// NewProbe makes an empty probe.
func NewProbe() *Probe { return &Probe{Msgs: map[int32]*MsgFacts{}} }

// Event implements Sink.
func (p *Probe) Event(w *World, e *Event, d *Decision) {
	if e.Msg < 0 {
		return
	}
	f := p.Msgs[e.Msg]
	if f == nil {
		f = &MsgFacts{FirstEffect: -1, LastEffect: -1, Gone: -1, DLQAt: -1}
		p.Msgs[e.Msg] = f
	}
	switch e.Kind {
	case EvPublish:
		f.Published = e.T
	case EvDeliver:
		f.Deliveries++
	case EvEffect:
		f.Effects++
		if f.FirstEffect < 0 {
			f.FirstEffect = e.T
		}
		f.LastEffect = e.T
	case EvDLQ:
		f.DLQ = true
		f.Gone = e.T
		if f.DLQAt < 0 {
			f.DLQAt = e.T
		}
	case EvAck:
		if !NoopAck(e.AckHow()) {
			f.Gone = e.T
		}
	}
	if e.Kind == EvRedrive {
		for _, g := range p.Msgs {
			g.DLQ = false
		}
	}
}

// Lookup answers probe keys: "message.N.effects|deliveries|first_effect|
// last_effect|dlq", and "published_before.CLOCK.effects" /
// "published_from.CLOCK.effects": the distinct effect counts of the
// messages published before (or at and after) CLOCK, e.g. "3" or "1,3".
func (p *Probe) Lookup(key string) (string, bool, error) {
	parts := strings.Split(key, ".")
	switch {
	case len(parts) == 3 && parts[0] == "message":
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			return "", true, fmt.Errorf("%s: %q is not a message number", key, parts[1])
		}
		f := p.Msgs[int32(n)]
		if f == nil {
			return "unpublished", true, nil
		}
		switch parts[2] {
		case "effects":
			return strconv.Itoa(f.Effects), true, nil
		case "deliveries":
			return strconv.Itoa(f.Deliveries), true, nil
		case "first_effect":
			return f.FirstEffect.Short(), true, nil
		case "last_effect":
			return f.LastEffect.Short(), true, nil
		case "dlq":
			return strconv.FormatBool(f.DLQ), true, nil
		case "gone":
			return f.Gone.Short(), true, nil
		case "dlq_at":
			return f.DLQAt.Short(), true, nil
		}
		return "", true, fmt.Errorf("%s: want effects, deliveries, first_effect, last_effect, dlq, dlq_at or gone", key)
	case len(parts) >= 3 && (parts[0] == "published_before" || parts[0] == "published_from") && parts[len(parts)-1] == "effects":
		at, err := ParseClock(strings.Join(parts[1:len(parts)-1], "."))
		if err != nil {
			return "", true, fmt.Errorf("%s: %v", key, err)
		}
		seen := map[int]bool{}
		for _, f := range p.Msgs {
			if (parts[0] == "published_before") == (f.Published < at) {
				seen[f.Effects] = true
			}
		}
		var counts []int
		for c := range seen {
			counts = append(counts, c)
		}
		sort.Ints(counts)
		var out []string
		for _, c := range counts {
			out = append(out, strconv.Itoa(c))
		}
		return strings.Join(out, ","), true, nil
	}
	return "", false, nil
}

// CheckResult is one published figure compared with the run.
type CheckResult struct {
	Incident string
	Run      string // "main" or the fork's name
	Key      string
	Want     string
	Got      string
	OK       bool
}

// CheckSpec runs the incident and every fork it lists, and compares each
// published figure with what the engine gives.
func CheckSpec(spec *Spec) ([]CheckResult, error) {
	var out []CheckResult
	runs := append([]ForkSpec{{Name: "main", Expect: spec.Expect}}, spec.Forks...)
	for _, f := range runs {
		o := RunOptions{Seed: spec.Seed}
		if f.HasAt {
			o.HasAt, o.At, o.AtSet = true, f.At, f.Set
		} else {
			o.Set = f.Set
		}
		p := NewProbe()
		sum, err := runWith(spec, o, p)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", spec.ID, f.Name, err)
		}
		flat := sum.Flat()
		for _, e := range f.Expect {
			got, ok := flat[e.Key]
			if !ok {
				var found bool
				got, found, err = p.Lookup(e.Key)
				if err != nil {
					return out, fmt.Errorf("%s %s: %w", spec.ID, f.Name, err)
				}
				if !found {
					got = "(no such figure)"
				}
			}
			out = append(out, CheckResult{spec.ID, f.Name, e.Key, e.Want, got, Matches(e.Want, got)})
		}
	}
	return out, nil
}

// runWith is Run with an extra sink beside the hash.
func runWith(spec *Spec, o RunOptions, extra Sink) (Summary, error) {
	w, err := NewWorld(spec, o.Seed, o.Set)
	if err != nil {
		return Summary{}, err
	}
	if o.HasAt {
		if err := w.ScheduleKnobs(o.At, o.AtSet); err != nil {
			return Summary{}, err
		}
	}
	hs := newHashSink(extra)
	for w.Step(hs) {
		if DefaultBudget.Reached(w.Pos) {
			w.StoppedAt(DefaultBudget)
			break
		}
	}
	return w.Summarize(hs.sum()), nil
}
