package engine

import (
	"fmt"
	"strconv"
)

// Descriptor is everything a family package exports to be run: the name an
// incident file gives under `family:`, one line of doc, the knobs the
// family reads with their starting values, and its constructor. The
// incidents package's registry is one literal list of descriptors; adding
// a system touches its own package and that one line.
type Descriptor struct {
	Name  string
	Doc   string
	Knobs []KnobDefault
	// Actions are the operator actions the family carries out (see
	// OperatorSpec and FamilyOperator): the queue's repair_redrive.
	Actions []OperatorAction
	New     func(p *Params) Family
}

// KnobType is the type of a knob's value.
type KnobType uint8

// The knob types.
const (
	KnobInt         KnobType = iota // a whole number in a range
	KnobDuration                    // a duration, like 30s
	KnobProbability                 // a number between 0 and 1
	KnobChoice                      // one of Knob.Choices (booleans too)
	KnobText                        // a short identifier
)

func (t KnobType) String() string {
	switch t {
	case KnobInt:
		return "int"
	case KnobDuration:
		return "duration"
	case KnobProbability:
		return "probability"
	case KnobChoice:
		return "choice"
	case KnobText:
		return "text"
	}
	return "unknown"
}

// KnobDefault is one knob a family reads and its typed value before an
// incident file's params. Build it with Int, Dur, Prob, Choice or Text,
// or Given for a knob whose starting value the incident file gives.
type KnobDefault struct {
	Knob  string
	Type  KnobType
	Value string // formatted as the knob's Get formats it
	Given bool   // no default: the incident file gives the value
}

// Given declares a knob of type t whose starting value the incident file
// gives (the queue's orders: the count of the source named orders).
func Given(knob string, t KnobType) KnobDefault {
	return KnobDefault{Knob: knob, Type: t, Given: true}
}

// Int declares an int knob and its default.
func Int(knob string, v int) KnobDefault {
	return KnobDefault{Knob: knob, Type: KnobInt, Value: strconv.Itoa(v)}
}

// Dur declares a duration knob and its default.
func Dur(knob string, d Duration) KnobDefault {
	return KnobDefault{Knob: knob, Type: KnobDuration, Value: FormatDuration(d)}
}

// Prob declares a probability knob and its default.
func Prob(knob string, p float64) KnobDefault {
	return KnobDefault{Knob: knob, Type: KnobProbability, Value: strconv.FormatFloat(p, 'g', -1, 64)}
}

// Choice declares a choice knob and its default, one of its choices.
func Choice(knob, choice string) KnobDefault {
	return KnobDefault{Knob: knob, Type: KnobChoice, Value: choice}
}

// Text declares a text knob and its default.
func Text(knob, s string) KnobDefault {
	return KnobDefault{Knob: knob, Type: KnobText, Value: s}
}

// KnobNames lists the knobs the family reads, in its order.
func (d *Descriptor) KnobNames() []string {
	out := make([]string, len(d.Knobs))
	for i, k := range d.Knobs {
		out[i] = k.Knob
	}
	return out
}

// SetDefaults sets the family's defaults on p, in its order.
func (d *Descriptor) SetDefaults(p *Params) error {
	for _, kd := range d.Knobs {
		if kd.Given {
			continue
		}
		k, ok := LookupKnob(kd.Knob)
		if !ok {
			return fmt.Errorf("family %s: unknown knob %q", d.Name, kd.Knob)
		}
		if err := k.Set(p, kd.Value); err != nil {
			return fmt.Errorf("family %s: default %s=%s: %v", d.Name, kd.Knob, kd.Value, err)
		}
	}
	return nil
}

// Check says whether the descriptor is whole: a name, and knobs the
// engine knows, once each, with defaults of the knob's type that its own
// parser takes back unchanged, and a constructor.
func (d *Descriptor) Check() error {
	if d.Name == "" {
		return fmt.Errorf("a family descriptor needs a name")
	}
	if d.New == nil {
		return fmt.Errorf("family %s: no constructor (New)", d.Name)
	}
	if _, err := KnobsNamed(d.KnobNames()); err != nil {
		return fmt.Errorf("family %s: %v", d.Name, err)
	}
	seen := map[string]bool{}
	var p Params
	for _, kd := range d.Knobs {
		if seen[kd.Knob] {
			return fmt.Errorf("family %s: knob %s listed twice", d.Name, kd.Knob)
		}
		seen[kd.Knob] = true
		k, _ := LookupKnob(kd.Knob)
		if kd.Type != k.Type {
			return fmt.Errorf("family %s: knob %s is a %s, its default a %s", d.Name, kd.Knob, k.Type, kd.Type)
		}
		if kd.Given {
			continue
		}
		if err := k.Set(&p, kd.Value); err != nil {
			return fmt.Errorf("family %s: default %s=%s: %v", d.Name, kd.Knob, kd.Value, err)
		}
		if got := k.Get(&p); got != kd.Value {
			return fmt.Errorf("family %s: default %s=%s reads back as %s", d.Name, kd.Knob, kd.Value, got)
		}
	}
	return nil
}
