package incidents

import "inflight/engine/families/cashback"

func init() {
	families["cashback"] = &Family{New: cashback.New, Knobs: cashback.Knobs, Defaults: cashback.Defaults}
}
