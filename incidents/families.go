package incidents

import (
	"inflight/engine"
	"inflight/engine/families/cashback"
	"inflight/engine/families/dbdown"
	"inflight/engine/families/fifowindow"
	"inflight/engine/families/galewatch"
	"inflight/engine/families/kafkarestart"
	"inflight/engine/families/ordering"
	"inflight/engine/families/sqs"
	"inflight/engine/families/stagefront"
)

// families is the registry of incident families an incident file can name
// with `family:`, sorted by name: one line per family, each its package's
// descriptor (its knobs, typed, with their defaults, and its constructor).
// A file's `params:` section (or the sections its family's File schema
// declares) overrides the defaults; a file without `family:` runs the
// family whose schema is the Default (sqs, the queue). The engine learns
// the knobs from it (--set and its errors know every family's).
var families = engine.Register(
	&cashback.Descriptor,
	&dbdown.Descriptor,
	&fifowindow.Descriptor,
	&galewatch.Descriptor,
	&kafkarestart.Descriptor,
	&ordering.Descriptor,
	&sqs.Descriptor,
	&stagefront.Descriptor,
)

// family finds a family by name.
func family(name string) (*engine.Descriptor, bool) {
	for _, d := range families {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// defaultFamily is the family of a file without `family:`.
func defaultFamily() *engine.Descriptor {
	for _, d := range families {
		if d.File.Default {
			return d
		}
	}
	panic("incidents: no family is the default")
}

// familySections are the knob sections the families declare, in the
// registry's order: the top-level keys a file may have besides its own.
var familySections = func() []string {
	var out []string
	for _, d := range families {
		for _, sec := range d.File.Sections {
			out = append(out, sec.Name)
		}
	}
	return out
}()

// sectionOwner is the family that declares the knob section name.
func sectionOwner(name string) *engine.Descriptor {
	for _, d := range families {
		for _, sec := range d.File.Sections {
			if sec.Name == name {
				return d
			}
		}
	}
	return nil
}

func familyNames() []string {
	names := make([]string, len(families))
	for i, d := range families {
		names[i] = d.Name
	}
	return names
}

// Families lists the registry's descriptors, sorted by name: for tools
// that go through the registry instead of importing the families.
func Families() []*engine.Descriptor { return append([]*engine.Descriptor(nil), families...) }

// FamilyOf is the descriptor of the family spec runs, or nil for a spec
// whose knobs are no registered family's.
func FamilyOf(spec *engine.Spec) *engine.Descriptor {
	own := spec.Params.Knobs()
	for _, d := range families {
		// a spec's knobs are its family's table (Descriptor.Params)
		if len(own) > 0 && len(d.Knobs.List) > 0 && own[0] == d.Knobs.List[0] {
			return d
		}
	}
	return nil
}

// OwnFigures are the keys of spec's family's own summary figures found in
// figs, in the order of its figure table (engine.OwnFigures): the rows a
// comparison adds beside the kernel's.
func OwnFigures(spec *engine.Spec, figs ...map[string]any) []string {
	var family string
	if d := FamilyOf(spec); d != nil {
		family = d.Name
	}
	return engine.OwnFigures(family, figs...)
}
