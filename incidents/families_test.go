package incidents

import (
	"sort"
	"testing"
)

// TestFamilyDescriptors checks every registered family's descriptor: its
// knobs exist, once each, and its defaults are of the knob's type and read
// back unchanged; the registry is sorted and names each family once.
func TestFamilyDescriptors(t *testing.T) {
	names := familyNames()
	if !sort.StringsAreSorted(names) {
		t.Errorf("registry not sorted: %v", names)
	}
	seen := map[string]bool{}
	for _, d := range families {
		if err := d.Check(); err != nil {
			t.Error(err)
		}
		if seen[d.Name] {
			t.Errorf("family %s registered twice", d.Name)
		}
		seen[d.Name] = true
		if d.Doc == "" {
			t.Errorf("family %s: no doc", d.Name)
		}
	}
}
