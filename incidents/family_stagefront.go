package incidents

import "inflight/engine/families/stagefront"

func init() {
	families["stagefront"] = &Family{New: stagefront.New, Knobs: stagefront.Knobs, Defaults: stagefront.Defaults}
}
