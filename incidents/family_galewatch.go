package incidents

import "inflight/engine/families/galewatch"

func init() {
	families["galewatch"] = &Family{New: galewatch.New, Knobs: galewatch.Knobs, Defaults: galewatch.Defaults}
}
