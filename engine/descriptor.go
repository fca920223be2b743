package engine

import "fmt"

// Descriptor is everything a family package exports to be run: the name an
// incident file gives under `family:`, one line of doc, the knobs the
// family reads with their starting values, and its constructor. The
// incidents package's registry is one literal list of descriptors; adding
// a system touches its own package and that one line.
type Descriptor struct {
	Name string
	Doc  string
	// Knobs are the family's knobs over its own knob struct (KnobsOver),
	// each with its type, doc and default.
	Knobs *KnobTable
	// Actions are the operator actions the family carries out (see
	// OperatorSpec and FamilyOperator): the queue's repair_redrive.
	Actions []OperatorAction
	// ExploreMax caps, by knob name, the probabilities worth drawing for
	// random runs (the random suite): a fault rate applied to a run of
	// fixed, large size (stagefront's 200,000 sales) takes it past any
	// event budget long before 1. Nil: a knob's whole range.
	ExploreMax map[string]float64
	New        func(p *Params) Family
	// Pins are the family's own decision kinds an incident may pin
	// (pins: decision: NAME), each pin's value a duration.
	Pins []PinKind
	// Publish: the family replays an incident's publish schedule
	// (Spec.Publish, the file's publish:).
	Publish bool
	// File is how an incident file of the family is written, where that
	// differs from the usual (the zero File).
	File FileSchema
}

// PinKind names a family decision kind for an incident's pins.
type PinKind struct {
	Name string
	Kind DecisionKind
}

// FileSchema is what an incident file of a family writes beyond the keys
// every incident has. The zero value is the usual schema: the family's
// knobs under params:, sources and workers optional (a family may bring
// its own traffic and consumers). A knob declared Given is the count of
// the source named after it; without that source no fork may set it.
type FileSchema struct {
	// Sections are top-level sections that hold the family's knobs
	// instead of params:, each with the knobs it may set, read in this
	// order.
	Sections []KnobSection
	// Default: a file without `family:` is the family's (the queue's
	// files predate the key).
	Default bool
	// NeedsSources and NeedsWorkers make sources: and workers: required.
	NeedsSources, NeedsWorkers bool
	// Called names the family in a file's error messages ("the queue");
	// empty: "family <Name>".
	Called string
}

// KnobSection is a top-level section of an incident file and the knobs it
// may set, in the order its errors list them.
type KnobSection struct {
	Name  string
	Knobs []string
}

// Called names the family in an incident file's error messages.
func (d *Descriptor) Called() string {
	if d.File.Called != "" {
		return d.File.Called
	}
	return "family " + d.Name
}

// KnobNames lists the knobs the family reads, in its order.
func (d *Descriptor) KnobNames() []string { return d.Knobs.Names() }

// Params are the family's knobs at their defaults, before an incident
// file's params.
func (d *Descriptor) Params() (Params, error) {
	p, err := d.Knobs.Defaults()
	if err != nil {
		return p, fmt.Errorf("family %s: %v", d.Name, err)
	}
	return p, nil
}

// Check says whether the descriptor is whole: a name, a constructor, and
// knobs over its own struct, once each, with defaults that their own
// parser takes back unchanged.
func (d *Descriptor) Check() error {
	if d.Name == "" {
		return fmt.Errorf("a family descriptor needs a name")
	}
	if d.New == nil {
		return fmt.Errorf("family %s: no constructor (New)", d.Name)
	}
	if d.Knobs == nil {
		return fmt.Errorf("family %s: no knob table (KnobsOver)", d.Name)
	}
	seen := map[string]bool{}
	for _, sec := range d.File.Sections {
		for _, n := range sec.Knobs {
			if d.Knobs.lookup(n) == nil {
				return fmt.Errorf("family %s: section %s names knob %s, which it does not declare", d.Name, sec.Name, n)
			}
		}
	}
	for _, k := range d.Knobs.List {
		if seen[k.Name] {
			return fmt.Errorf("family %s: knob %s listed twice", d.Name, k.Name)
		}
		seen[k.Name] = true
		if err := d.checkKnob(k); err != nil {
			return fmt.Errorf("family %s: %v", d.Name, err)
		}
	}
	return nil
}

// checkKnob runs k's accessors on the family's struct: a knob declared over
// another struct panics there, which Check reports.
func (d *Descriptor) checkKnob(k *Knob) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("knob %s: %v", k.Name, r)
		}
	}()
	p := d.Knobs.Zero()
	v := k.Get(&p)
	if !k.given {
		if err := k.Set(&p, k.def); err != nil {
			return fmt.Errorf("default %s=%s: %v", k.Name, k.def, err)
		}
		if got := k.Get(&p); got != k.def {
			return fmt.Errorf("default %s=%s reads back as %s", k.Name, k.def, got)
		}
		return nil
	}
	return k.Set(&p, v)
}
