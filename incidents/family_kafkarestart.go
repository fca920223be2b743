package incidents

import (
	"inflight/engine"
	"inflight/engine/families/kafkarestart"
)

func init() {
	families["kafka-restart"] = &Family{
		New:   kafkarestart.New,
		Knobs: []string{"transactional_id", "batch", "email_crash"},
		Defaults: func(p *engine.Params) {
			p.TransactionalID = ""
			p.Batch = 100
			p.EmailCrash = false
		},
	}
}
