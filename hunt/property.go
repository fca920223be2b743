package hunt

import (
	"fmt"
	"strconv"
	"strings"

	"inflight/engine"
)

// facts are what the property's message checks read: each message's
// effects, deliveries and whether it sits in the dead letter queue. They
// are kept per line as it plays (a fork copies its parent's), only when
// the property has a message check.
type facts struct {
	effects    []int32
	deliveries []int32
	dlq        []bool
}

func (f *facts) grow(m int32) {
	for int(m) >= len(f.effects) {
		f.effects = append(f.effects, 0)
		f.deliveries = append(f.deliveries, 0)
		f.dlq = append(f.dlq, false)
	}
}

func (f *facts) clone() *facts {
	return &facts{
		effects:    append([]int32(nil), f.effects...),
		deliveries: append([]int32(nil), f.deliveries...),
		dlq:        append([]bool(nil), f.dlq...),
	}
}

// event reads one event as engine.Probe does.
func (f *facts) event(e *engine.Event) {
	if e.Kind == engine.EvRedrive {
		for i := range f.dlq {
			f.dlq[i] = false
		}
	}
	if e.Msg < 0 {
		return
	}
	switch e.Kind {
	case engine.EvPublish:
		f.grow(e.Msg)
	case engine.EvDeliver:
		f.grow(e.Msg)
		f.deliveries[e.Msg]++
	case engine.EvEffect:
		f.grow(e.Msg)
		f.effects[e.Msg]++
	case engine.EvDLQ:
		f.grow(e.Msg)
		f.dlq[e.Msg] = true
	}
}

func (f *facts) field(m int, k string) string {
	switch k {
	case "effects":
		return strconv.Itoa(int(f.effects[m]))
	case "deliveries":
		return strconv.Itoa(int(f.deliveries[m]))
	case "dlq":
		return strconv.FormatBool(f.dlq[m])
	}
	return ""
}

// Broken is one check a run failed: the check as written, and what the
// run gave.
type Broken struct {
	Check string `json:"check"` // "duplicate_effects: 0", "every message: effects >=1"
	Got   string `json:"got"`   // "1", "order 14: effects 0"
	Msg   int32  `json:"message"`
}

// verdict checks property p against a run's summary and facts (nil when
// p has no message check), returning the checks it broke, in p's order.
func verdict(w *engine.World, p *engine.Property, s *engine.Summary, f *facts) []Broken {
	var out []Broken
	var flat map[string]string
	for _, c := range p.Checks {
		got, ok := quick(s, c.Key)
		if !ok {
			if flat == nil {
				flat = s.Flat()
			}
			got = flat[c.Key]
			if strings.HasPrefix(c.Key, "message.") && f != nil {
				got = messageKey(f, c.Key)
			}
		}
		if !engine.Matches(c.Want, got) {
			out = append(out, Broken{Check: c.Key + ": " + c.Want, Got: got, Msg: -1})
		}
	}
	for _, c := range p.Every {
		for m := range f.effects {
			if got := f.field(m, c.Key); !engine.Matches(c.Want, got) {
				out = append(out, Broken{Check: "every message: " + c.Key + " " + c.Want,
					Got: fmt.Sprintf("%s: %s %s", w.MsgName(int32(m)), c.Key, got), Msg: int32(m)})
				break
			}
		}
	}
	return out
}

// quick reads the summary keys properties use most without flattening it.
func quick(s *engine.Summary, k string) (string, bool) {
	n := int64(-1)
	switch k {
	case "messages":
		n = s.Messages
	case "deliveries":
		n = s.Deliveries
	case "effects":
		n = s.Effects
	case "duplicate_effects":
		n = s.DuplicateEffects
	case "done":
		n = s.Done
	case "held_at_end":
		n = s.HeldAtEnd
	case "lost":
		n = s.Lost
	case "dlq":
		n = s.DLQ
	default:
		if fk, ok := strings.CutPrefix(k, "figures."); ok {
			if v, ok := s.Figures[fk]; ok {
				return fmt.Sprint(v), true
			}
		}
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// messageKey answers "message.N.FIELD" from the facts.
func messageKey(f *facts, key string) string {
	parts := strings.Split(key, ".")
	if len(parts) != 3 {
		return ""
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 0 || m >= len(f.effects) {
		return "unpublished"
	}
	return f.field(m, parts[2])
}

// needsFacts says whether p reads any message's facts.
func needsFacts(p *engine.Property) bool {
	if len(p.Every) > 0 {
		return true
	}
	for _, c := range p.Checks {
		if strings.HasPrefix(c.Key, "message.") {
			return true
		}
	}
	return false
}
