package hunt

import (
	"testing"

	"inflight/engine"
)

func propertyNamed(tb testing.TB, spec *engine.Spec, name string) *engine.Property {
	tb.Helper()
	for i := range spec.Properties {
		if spec.Properties[i].Name == name {
			return &spec.Properties[i]
		}
	}
	tb.Fatalf("%s has no property %s", spec.ID, name)
	return nil
}
