package incidents

import "inflight/engine/families/dbdown"

func init() {
	families["db-down"] = &Family{New: dbdown.New, Knobs: dbdown.Knobs, Defaults: dbdown.Defaults}
}
