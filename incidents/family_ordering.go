package incidents

import (
	"inflight/engine"
	"inflight/engine/families/ordering"
)

func init() {
	families["ordering"] = &Family{
		New:   ordering.New,
		Knobs: []string{"key", "consumer_threads", "repartition", "retry", "versions"},
		Defaults: func(p *engine.Params) {
			p.KeyNone = false
			p.ConsumerThreads = 1
			p.Repartition = 0
			p.RetryToTail = false
			p.Versions = false
		},
	}
}
