// Package sqs is the SQS-like queue of the Marlow Books incidents
// (thursday, thursday-fixed, christmas-friday): a standard queue or one
// strictly ordered FIFO group, leases, a dead letter queue, single-threaded
// workers on boxes and a provider behind them.
//
// The package holds the queue's descriptor (its knobs, typed, with their
// defaults), its model (model.go), captions and panes (Panes, drawn with
// the explorer's cursor).
package sqs

import (
	"fmt"

	"inflight/engine"
)

// Mode is the broker's delivery discipline.
type Mode uint8

// The broker modes.
const (
	ModeStandard Mode = iota // SQS standard: any visible message to any idle worker
	ModeOrdered              // one FIFO message group: only the head can be in flight
)

// AckPlace is where the handler acknowledges: the whole guarantee.
type AckPlace uint8

// The two places an ack can go.
const (
	AckAfter  AckPlace = iota // at-least-once
	AckBefore                 // at-most-once
)

// Knobs are the queue's knobs: every value a user can change with --set,
// from the start or from a fork onward.
type Knobs struct {
	Orders            int // the count of the source named orders
	Mode              Mode
	VisibilityTimeout engine.Duration
	MaxReceives       int
	LateAckAccept     bool
	Ack               AckPlace
	Claim             bool            // the sent_at claim handler (thursday-fixed)
	ClaimWindow       engine.Duration // a claim younger than this is "in flight"
	CrashAfterClaim   engine.Duration // featured order's first worker dies this long after its claim; 0 = off
	Heartbeat         engine.Duration // renew the lease this often while handling; 0 = off
	WedgeP            float64         // chance a provider call never returns
	LatencyMin        engine.Duration
	LatencyMax        engine.Duration
	RestartAfter      engine.Duration // supervisor's delay before a dead worker is back
}

// KnobsOf is the queue's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// SourceCount is the orders knob: the source named orders publishes that
// many (engine.SourceCounter).
func (k *Knobs) SourceCount() int { return k.Orders }

// Thresholds are the knobs a provider's latency can fall either side of:
// the lease and the claim window (hunt tries latencies just around them).
func (k *Knobs) Thresholds() []engine.Duration {
	return []engine.Duration{k.VisibilityTimeout, k.ClaimWindow}
}

// Latency is the provider's range (engine.LatencyRange).
func (k *Knobs) Latency() (lo, hi engine.Duration) { return k.LatencyMin, k.LatencyMax }

// CheckKnobs refuses a latency range upside down (engine.KnobCheck).
func (k *Knobs) CheckKnobs() error {
	if k.LatencyMax < k.LatencyMin {
		return &engine.KnobError{Knob: "latency_max", Other: "latency_min",
			Err: fmt.Errorf("latency_max (%s) is below latency_min (%s)", engine.FormatDuration(k.LatencyMax), engine.FormatDuration(k.LatencyMin))}
	}
	return nil
}

type dur = engine.Duration

var knobs = engine.KnobsOver[Knobs](
	engine.IntKnob("orders", "messages the main source publishes (same spacing)", func(k *Knobs) *int { return &k.Orders }, 0, 50_000_000, 0).Given(),
	engine.ChoiceKnob("mode", "standard queue, or one strictly ordered FIFO group", []string{"standard", "ordered"},
		func(k *Knobs) int { return int(k.Mode) }, func(k *Knobs, i int) { k.Mode = Mode(i) }, "standard"),
	engine.DurKnob("visibility_timeout", "the broker's lease on a delivered message", func(k *Knobs) *dur { return &k.VisibilityTimeout }, false, 30*engine.Second),
	engine.IntKnob("max_receives", "deliveries before a message goes to the DLQ; every delivery counts, a redelivery or re-read after a crash included", func(k *Knobs) *int { return &k.MaxReceives }, 1, 1000, 1000),
	engine.BoolChoice("late_ack", "what the broker does with an ack quoting an expired lease", [2]string{"refuse", "accept"},
		func(k *Knobs) *bool { return &k.LateAckAccept }, "refuse"),
	engine.ChoiceKnob("ack", "where the handler acks: after the work or before it", []string{"after", "before"},
		func(k *Knobs) int { return int(k.Ack) }, func(k *Knobs, i int) { k.Ack = AckPlace(i) }, "after"),
	engine.BoolChoice("claim", "check a sent_at claims table before sending", [2]string{"false", "true"},
		func(k *Knobs) *bool { return &k.Claim }, "false"),
	engine.DurKnob("claim_window", "a claim younger than this is taken to be in flight", func(k *Knobs) *dur { return &k.ClaimWindow }, false, 2*engine.Minute),
	engine.DurKnob("crash_after_claim", "the featured order's first worker dies this long after its claim (0s: never)", func(k *Knobs) *dur { return &k.CrashAfterClaim }, true, 0),
	engine.DurKnob("heartbeat", "renew the lease this often while the handler runs (0s: never)", func(k *Knobs) *dur { return &k.Heartbeat }, true, 0),
	engine.ProbKnob("wedge_p", "chance that a provider call never returns", func(k *Knobs) *float64 { return &k.WedgeP }, 0),
	engine.DurKnob("latency_min", "the provider's fastest answer", func(k *Knobs) *dur { return &k.LatencyMin }, true, 0),
	engine.DurKnob("latency_max", "the provider's slowest answer", func(k *Knobs) *dur { return &k.LatencyMax }, true, 0),
	engine.DurKnob("restart_after", "the supervisor's delay before a dead worker is back", func(k *Knobs) *dur { return &k.RestartAfter }, true, 0),
)

// Descriptor is the queue as the incidents package builds it, for every
// incident file without a `family:` key; its knobs are written in the
// sections broker, handler and provider, and workers.restart_after.
var Descriptor = engine.Descriptor{
	Name:    "sqs",
	Doc:     "an SQS-like queue: leases, redelivery, a dead letter queue, workers calling a provider",
	Knobs:   knobs,
	Actions: engine.QueueActions,
	New:     New,
	File: engine.FileSchema{
		// broker, handler and provider (the dependency) as the lesson
		// tells the system, each with the knobs of its part
		Sections: []engine.KnobSection{
			{Name: "broker", Knobs: []string{"mode", "visibility_timeout", "max_receives", "late_ack"}},
			{Name: "handler", Knobs: []string{"ack", "claim", "claim_window", "crash_after_claim", "heartbeat"}},
			{Name: "provider", Knobs: []string{"latency_min", "latency_max", "wedge_p"}},
		},
		Default:      true,
		NeedsSources: true,
		NeedsWorkers: true,
		Called:       "the queue",
	},
}
