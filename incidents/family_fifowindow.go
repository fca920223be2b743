package incidents

import (
	"inflight/engine"
	"inflight/engine/families/fifowindow"
)

func init() {
	families["fifo-window"] = &Family{
		New:   fifowindow.New,
		Knobs: []string{"dedup_window", "retry_deadline"},
		Defaults: func(p *engine.Params) {
			p.DedupWindow = 5 * engine.Minute    // SQS FIFO's fixed interval
			p.RetryDeadline = 10 * engine.Minute // the producer's own give-up point
		},
	}
}
