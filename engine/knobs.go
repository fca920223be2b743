package engine

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"inflight/internal/near"
)

// Params are the knobs in force: the running family's own knob struct
// (its Descriptor's KnobTable declares it), held without naming a field.
// A Params is a value: Apply and Knob.Set copy the struct before writing,
// so a copy of a Params, a checkpoint or a family's cached pointer (see
// KnobBinder) never sees a later change. The zero Params holds no struct:
// a knob reads its zero value from it, and a Set makes one.
type Params struct{ s knobStore }

type knobStore interface {
	clone() knobStore
	table() *KnobTable
	ptr() any
}

type store[T any] struct {
	v T
	t *KnobTable // nil for a probe made by Set on the zero Params
}

func (s *store[T]) clone() knobStore  { c := *s; return &c }
func (s *store[T]) table() *KnobTable { return s.t }
func (s *store[T]) ptr() any          { return &s.v }

// KnobsOf is the family's knob struct T in p, to read only (write through
// Apply or Knob.Set). The zero Params reads as T's zero value; a Params of
// another family's struct is a bug and panics.
func KnobsOf[T any](p *Params) *T {
	switch s := p.s.(type) {
	case *store[T]:
		return &s.v
	case nil:
		return new(T)
	}
	panic(fmt.Sprintf("knobs %T read as %T", p.s.ptr(), new(T)))
}

// MutKnobs is T in p to write: p gets its own copy first, so no other
// Params sees the change. For building a spec's starting knobs.
func MutKnobs[T any](p *Params) *T {
	switch s := p.s.(type) {
	case *store[T]:
		c := *s
		p.s = &c
		return &c.v
	case nil:
		c := &store[T]{}
		p.s = c
		return &c.v
	}
	panic(fmt.Sprintf("knobs %T written as %T", p.s.ptr(), new(T)))
}

// Struct is p's knob struct as a pointer (nil for the zero Params), for
// the optional interfaces the kernel asks of it (KnobCheck, SourceCounter,
// LatencyRange).
func (p *Params) Struct() any {
	if p.s == nil {
		return nil
	}
	return p.s.ptr()
}

// Knobs are the knobs of p's family, in its order (none for the zero
// Params).
func (p *Params) Knobs() []*Knob {
	if p.s == nil || p.s.table() == nil {
		return nil
	}
	return p.s.table().List
}

// KnobCheck is implemented by a knob struct whose knobs must sit with each
// other (the queue's latency_max not below latency_min): Apply calls it
// after its changes, and it returns a *KnobError.
type KnobCheck interface{ CheckKnobs() error }

// KnobBinder is implemented by every family that reads knobs: the world
// hands it the knobs in force when it is made, cloned, and whenever a
// fork's changes take effect, and the family keeps a typed pointer
// (KnobsOf) so that a step reads a knob as a field, with no lookup.
type KnobBinder interface{ BindKnobs(p *Params) }

// KnobTable is a family's knobs over its knob struct: it makes the
// family's Params. Build it with KnobsOver.
type KnobTable struct {
	List  []*Knob // in the family's order
	fresh func(t *KnobTable) knobStore
}

// KnobsOver declares a family's knobs over its knob struct T, in the
// family's order. Each knob's accessors must take a *T (Descriptor.Check
// runs every one).
func KnobsOver[T any](ks ...*Knob) *KnobTable {
	return &KnobTable{List: ks, fresh: func(t *KnobTable) knobStore { return &store[T]{t: t} }}
}

// Names lists the knobs, in the family's order.
func (t *KnobTable) Names() []string {
	out := make([]string, len(t.List))
	for i, k := range t.List {
		out[i] = k.Name
	}
	return out
}

// Zero is a Params of the table's struct with every field zero.
func (t *KnobTable) Zero() Params { return Params{t.fresh(t)} }

// Defaults is a Params of the table's struct with each knob at its
// default (a Given knob left zero for the incident file to give).
func (t *KnobTable) Defaults() (Params, error) {
	p := t.Zero()
	for _, k := range t.List {
		if k.given {
			continue
		}
		if err := k.set(&p, k.def); err != nil {
			return p, fmt.Errorf("default %s=%s: %v", k.Name, k.def, err)
		}
	}
	return p, nil
}

func (t *KnobTable) lookup(name string) *Knob {
	for _, k := range t.List {
		if k.Name == name {
			return k
		}
	}
	return nil
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

// Knob describes one --set key of one family: its type, doc, default and
// accessors over the family's knob struct. Build it with IntKnob, DurKnob,
// ProbKnob, ChoiceKnob or TextKnob.
type Knob struct {
	Name    string
	Help    string
	Type    KnobType
	Choices []string // for enumerations and booleans
	def     string   // formatted as get formats it
	given   bool     // no default: the incident file gives the value
	get     func(*Params) string
	set     func(*Params, string) error
}

// Get formats the knob's current value in p.
func (k *Knob) Get(p *Params) string { return k.get(p) }

// Set parses v into p, checking this knob's value alone (not how it sits
// with others, as Apply does).
func (k *Knob) Set(p *Params, v string) error { return k.set(p, v) }

// Default is the knob's starting value, formatted as Get formats it, and
// whether the incident file gives it instead.
func (k *Knob) Default() (v string, given bool) { return k.def, k.given }

// Given marks the knob's starting value as the incident file's (the
// queue's orders: the count of the source named orders).
func (k *Knob) Given() *Knob { k.given, k.def = true, ""; return k }

// DurKnob declares a duration knob over T's field f, with its default; a
// zero duration is refused unless allowZero, a negative one always.
func DurKnob[T any](name, help string, f func(*T) *Duration, allowZero bool, def Duration) *Knob {
	return durKnob(name, help, f, allowZero, false, def)
}

// SignedDurKnob is DurKnob for a duration that may be negative.
func SignedDurKnob[T any](name, help string, f func(*T) *Duration, def Duration) *Knob {
	return durKnob(name, help, f, true, true, def)
}

func durKnob[T any](name, help string, f func(*T) *Duration, allowZero, allowNeg bool, def Duration) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobDuration, def: FormatDuration(def),
		get: func(p *Params) string { return FormatDuration(*f(KnobsOf[T](p))) },
		set: func(p *Params, s string) error {
			d, err := ParseDuration(s, allowNeg)
			if err != nil {
				return err
			}
			if d == 0 && !allowZero {
				return fmt.Errorf("must be more than 0s")
			}
			*f(MutKnobs[T](p)) = d
			return nil
		}}
}

// IntKnob declares a whole-number knob in lo…hi over T's field f.
func IntKnob[T any](name, help string, f func(*T) *int, lo, hi, def int) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobInt, def: strconv.Itoa(def),
		get: func(p *Params) string { return strconv.Itoa(*f(KnobsOf[T](p))) },
		set: func(p *Params, s string) error {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("%q is not a whole number", clip(s))
			}
			if n < lo || n > hi {
				return fmt.Errorf("%d is outside %d…%d", n, lo, hi)
			}
			*f(MutKnobs[T](p)) = n
			return nil
		}}
}

// ChoiceKnob declares a knob that is one of choices, read and written as
// the choice's index over T (BoolChoice for a bool field); def is one of
// the choices.
func ChoiceKnob[T any](name, help string, choices []string, get func(*T) int, set func(*T, int), def string) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobChoice, Choices: choices, def: def,
		get: func(p *Params) string { return choices[get(KnobsOf[T](p))] },
		set: func(p *Params, s string) error {
			for i, c := range choices {
				if strings.TrimSpace(s) == c {
					set(MutKnobs[T](p), i)
					return nil
				}
			}
			return fmt.Errorf("%q is not one of %s", clip(s), strings.Join(choices, ", "))
		}}
}

// BoolChoice declares a two-choice knob over T's bool field f: choices[1]
// is true.
func BoolChoice[T any](name, help string, choices [2]string, f func(*T) *bool, def string) *Knob {
	return ChoiceKnob(name, help, choices[:],
		func(k *T) int {
			if *f(k) {
				return 1
			}
			return 0
		},
		func(k *T, i int) { *f(k) = i == 1 }, def)
}

// ProbKnob declares a probability knob over T's field f.
func ProbKnob[T any](name, help string, f func(*T) *float64, def float64) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobProbability, def: strconv.FormatFloat(def, 'g', -1, 64),
		get: func(p *Params) string { return strconv.FormatFloat(*f(KnobsOf[T](p)), 'g', -1, 64) },
		set: func(p *Params, s string) error {
			// NaN passes every comparison's "else": refuse it by name
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
				return fmt.Errorf("%q is not a probability between 0 and 1", clip(s))
			}
			*f(MutKnobs[T](p)) = v
			return nil
		}}
}

// TextKnob declares a short identifier knob over T's field f: letters,
// digits, '-' and '_', at most 64 (it is shown on screen and written into
// share codes).
func TextKnob[T any](name, help string, f func(*T) *string, def string) *Knob {
	return &Knob{Name: name, Help: help, Type: KnobText, def: def,
		get: func(p *Params) string { return *f(KnobsOf[T](p)) },
		set: func(p *Params, s string) error {
			// a whitelist, not a blacklist
			if len(s) > 64 || strings.IndexFunc(s, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
			}) >= 0 {
				return fmt.Errorf("%q: use letters, digits, '-' and '_' (at most 64)", clip(s))
			}
			*f(MutKnobs[T](p)) = s
			return nil
		}}
}

// registered are the families the incidents package registers (Register):
// the knob names --set knows and its error messages list.
var registered []*Descriptor

// Register makes the families' knobs the ones ParseSetting, LookupKnob
// and Knobs know, and returns ds. The incidents package calls it once,
// on its registry literal.
func Register(ds ...*Descriptor) []*Descriptor {
	registered = ds
	return ds
}

// KnobsFor lists the knobs an incident reads, sorted: those of its
// family's knob table that Spec.Knobs names (all of them when it names
// none). Spec.Knobs comes from a family's descriptor, so a name the
// family does not declare is a bug: it panics rather than drop the name.
func KnobsFor(spec *Spec) []*Knob {
	own := spec.Params.Knobs()
	if len(spec.Knobs) == 0 {
		return sortKnobs(append([]*Knob(nil), own...))
	}
	var out []*Knob
	for _, n := range spec.Knobs {
		k := knobIn(own, n)
		if k == nil {
			panic(fmt.Sprintf("incident %s: its family has no knob %q", spec.ID, n))
		}
		out = append(out, k)
	}
	return sortKnobs(out)
}

func knobIn(ks []*Knob, name string) *Knob {
	for _, k := range ks {
		if k.Name == name {
			return k
		}
	}
	return nil
}

func sortKnobs(ks []*Knob) []*Knob {
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].Name < ks[j].Name })
	return ks
}

// KnobsNamed finds the named knobs among the registered families', sorted
// by name; a name no knob has is an error.
func KnobsNamed(names []string) ([]*Knob, error) {
	var out []*Knob
	for _, n := range names {
		k, ok := LookupKnob(n)
		if !ok {
			return nil, unknownKnob(n, nil, "")
		}
		out = append(out, k)
	}
	return sortKnobs(out), nil
}

// unknownKnob words a knob name no family has: the knobs of own (whose,
// the incident's) or, without any, every family's, and the one or two of
// them the user likely meant ("timeout": visibility_timeout).
func unknownKnob(name string, own []*Knob, whose string) error {
	names, which := KnobNames(), "knobs"
	if len(own) > 0 {
		names, which = nil, whose+"'s knobs"
		for _, k := range sortKnobs(slices.Clone(own)) {
			names = append(names, k.Name)
		}
	}
	hint := ""
	if m := near.Meant(name, names); len(m) > 0 {
		hint = "; did you mean " + strings.Join(m, " or ") + "?"
	}
	return fmt.Errorf("unknown knob %q%s (%s: %s)", clip(name), hint, which, strings.Join(names, ", "))
}

// KnobScopeError is a setting for a knob the incident does not read.
type KnobScopeError struct{ Err error }

func (e *KnobScopeError) Error() string { return e.Err.Error() }
func (e *KnobScopeError) Unwrap() error { return e.Err }

// CheckKnobsFor refuses settings for knobs the incident does not read
// (a *KnobScopeError).
func CheckKnobsFor(spec *Spec, set []Setting) error {
	ks := KnobsFor(spec)
	for _, s := range set {
		if knobIn(ks, s.Knob) == nil {
			var names []string
			for _, k := range ks {
				names = append(names, k.Name)
			}
			return &KnobScopeError{fmt.Errorf("knob %q does not apply to incident %s (its knobs: %s)", clip(s.Knob), spec.ID, strings.Join(names, ", "))}
		}
	}
	return nil
}

// Knobs lists the registered families' knobs, one per name (the first
// family's to declare it), sorted by name.
func Knobs() []*Knob {
	var out []*Knob
	for _, d := range registered {
		for _, k := range d.Knobs.List {
			if knobIn(out, k.Name) == nil {
				out = append(out, k)
			}
		}
	}
	return sortKnobs(out)
}

// KnobNames lists the knob names, sorted, for error messages.
func KnobNames() []string {
	var names []string
	for _, k := range Knobs() {
		names = append(names, k.Name)
	}
	return names
}

// LookupKnob finds a knob by name among the registered families'.
func LookupKnob(name string) (*Knob, bool) {
	for _, d := range registered {
		if k := d.Knobs.lookup(name); k != nil {
			return k, true
		}
	}
	return nil, false
}

// Apply sets each knob in order on p, naming the knob and value that fail.
// A knob of another family is checked by its own parser and left out:
// CheckKnobsFor says it does not apply.
func (p *Params) Apply(settings []Setting) error {
	own := p.Knobs()
	for _, s := range settings {
		k := knobIn(own, s.Knob)
		target := p
		if k == nil {
			var ok bool
			if k, ok = LookupKnob(s.Knob); !ok {
				return unknownKnob(s.Knob, own, "this incident")
			}
			target = &Params{} // a probe
		}
		if err := k.set(target, s.Value); err != nil {
			return &KnobError{Knob: s.Knob, Err: fmt.Errorf("knob %s=%s: %v", s.Knob, shown(s.Value), err)}
		}
	}
	if c, ok := p.Struct().(KnobCheck); ok {
		return c.CheckKnobs()
	}
	return nil
}

// KnobError is an Apply error about one knob's value, or about how it sits
// with Other, so that an incident file can point at the line that set it.
type KnobError struct {
	Knob, Other string
	Err         error
}

func (e *KnobError) Error() string { return e.Err.Error() }
func (e *KnobError) Unwrap() error { return e.Err }

// ParseSetting reads "key=value", key any family's knob.
func ParseSetting(s string) (Setting, error) { return parseSetting(s, nil, "") }

// ParseSettingFor is ParseSetting for a change to spec: a key that is no
// knob at all is worded with spec's knobs, not every family's (a knob of
// another family is CheckKnobsFor's to refuse).
func ParseSettingFor(spec *Spec, s string) (Setting, error) {
	return parseSetting(s, KnobsFor(spec), spec.ID)
}

// UnknownKnobFor is nil when name is a knob of any family, and otherwise
// the error ParseSettingFor words for it, without the --set it would name.
func UnknownKnobFor(spec *Spec, name string) error {
	if _, found := LookupKnob(strings.TrimSpace(name)); found {
		return nil
	}
	return unknownKnob(strings.TrimSpace(name), KnobsFor(spec), spec.ID)
}

func parseSetting(s string, own []*Knob, whose string) (Setting, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return Setting{}, fmt.Errorf("--set %q: want key=value", clip(s))
	}
	if _, found := LookupKnob(k); !found {
		return Setting{}, fmt.Errorf("--set %q: %w", clip(s), unknownKnob(k, own, whose))
	}
	return Setting{Knob: k, Value: strings.TrimSpace(v)}, nil
}

// Diff lists the knobs whose values differ between a and b, as settings
// that turn a into b: the knobs of b's family, sorted by name.
func (a *Params) Diff(b *Params) []Setting {
	var out []Setting
	for _, k := range sortKnobs(append([]*Knob(nil), b.Knobs()...)) {
		if va, vb := k.get(a), k.get(b); va != vb {
			out = append(out, Setting{Knob: k.Name, Value: vb})
		}
	}
	return out
}
