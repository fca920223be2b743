package incidents

import (
	"sort"

	"inflight/engine"
)

// Family is an incident family an incident file can name with `family:`:
// how to build its system from the knobs, which knobs it reads, and their
// defaults (a file's `params:` section overrides them).
type Family struct {
	New      func(p *engine.Params) engine.Family
	Knobs    []string
	Defaults func(p *engine.Params)
}

// families is filled by the family_*.go files' init functions, one line
// each, and never changed after: the registry of incident families.
var families = map[string]*Family{}

func familyNames() []string {
	var names []string
	for n := range families {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
