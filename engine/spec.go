package engine

import "strconv"

// Spec is one incident as the engine runs it: the story's traffic, the
// broker, workers, handler and dependency, and what the lesson says the
// run must show. The incidents package builds it from a file; the engine
// never parses anything but knob values.
type Spec struct {
	ID    string
	Title string
	Story string // one paragraph, the picker's subtitle

	Start    Time   // the incident's clock when the run begins
	Seed     uint64 // the default seed, the lesson's run
	Featured int32  // the message the story follows, or -1
	// FeaturedKnobs are the knobs the lesson is about: the fork form shows
	// them first, its focus on the first.
	FeaturedKnobs []string
	Label         string // what a message is called on screen: "order"

	Sources   []Source
	Params    Params // knob values at the start: the family's knob struct
	Workers   WorkerSetup
	Alerts    []AlertSpec // configured: they fire and appear in `alerts`
	WouldHave []AlertSpec // what the lesson says was missing
	Operators []OperatorSpec
	Pins      []Pin
	// Publish is a publish schedule for a family that brings its own
	// producer (cashback): an imported incident's recorded publish times.
	// Nil: the family's own timing.
	Publish []PublishRun

	// NewFamily makes the incident's system (see Family) from the knobs:
	// a family's Descriptor.New, sqs.New for the SQS-like queue. NewWorld
	// refuses a spec without one.
	NewFamily func(p *Params) Family
	// Knobs lists the knobs this incident reads, of its family's (those
	// of Params); --set refuses others. Empty: all of its family's.
	Knobs []string

	Bookmarks []Bookmark
	Expect    []Expectation
	Forks     []ForkSpec
	Exercises []Exercise
	// Properties are the promises the lesson says the system keeps or
	// breaks, for `hunt` to search for a run that breaks one.
	Properties []Property

	pinIdx *pinIndex // IndexPins
}

// Property is one promise: a short name, the words a person would say
// ("every order gets exactly one email"), and its checks, all of which a
// run must pass to keep it. Checks read the summary as Expect does;
// Every are checks on each message's facts (Key: "effects",
// "deliveries", "dlq"), all messages' at once.
type Property struct {
	Name   string
	Words  string
	Checks []Expectation
	Every  []Expectation
}

// Source publishes Count messages at Start + Every×k; a source with
// OrdersKnob takes its count from the `orders` knob instead (the incidents
// package sets it on the source named "orders").
type Source struct {
	Name       string
	Start      Time
	Every      Duration
	Count      int
	Poison     bool // written by the old producer: the new handler raises on it
	OrdersKnob bool // the orders knob is its count
}

// CountUnder is how many messages the source publishes under knobs p.
func (s *Source) CountUnder(p *Params) int {
	if s.OrdersKnob {
		if c, ok := p.Struct().(SourceCounter); ok {
			return c.SourceCount()
		}
	}
	return s.Count
}

// SourceCounter is implemented by a knob struct with a knob that is a
// source's count (the queue's orders, for a source with OrdersKnob).
type SourceCounter interface{ SourceCount() int }

// WorkerSetup places single-threaded workers on boxes.
type WorkerSetup struct {
	Boxes  []string
	PerBox int
	Start  Time // when the consumers begin polling
}

// AlertKind says what an alert watches.
type AlertKind uint8

// The alert kinds.
const (
	AlertOldestAge   AlertKind = iota // oldest held message older than Threshold
	AlertDLQNonEmpty                  // anything in the dead letter queue
)

func (k AlertKind) String() string {
	switch k {
	case AlertOldestAge:
		return "oldest_age"
	case AlertDLQNonEmpty:
		return "dlq_nonempty"
	}
	return "unknown"
}

// AlertKindByName finds an alert kind by its name in incident files.
// Both kinds read the ground truth the world keeps for every system (the
// oldest message still held; the dead letters), so every family may use
// them; the world schedules their checks and records their firings.
func AlertKindByName(name string) (AlertKind, bool) {
	for _, k := range AlertKinds() {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// AlertKinds lists the alert kinds, in their order.
func AlertKinds() []AlertKind { return []AlertKind{AlertOldestAge, AlertDLQNonEmpty} }

// AlertSpec is one alert rule.
type AlertSpec struct {
	Name      string
	Kind      AlertKind
	Threshold Duration
}

// OperatorSpec is a person acting on the system when a condition holds:
// Christmas Friday's repair script redrives the drawer once it holds 40.
// The world schedules the action and records it; the system that declares
// the action (QueueActions for the SQS-like queue) carries it out.
type OperatorSpec struct {
	Name        string
	Action      OperatorAction
	WhenDLQ     int // act when the DLQ first holds this many
	Description string
}

// OperatorAction is what an operator does.
type OperatorAction uint8

// The operator actions.
const (
	// ActionRepairRedrive gives every dead letter its missing field and
	// redrives it to the tail of the SQS-like queue.
	ActionRepairRedrive OperatorAction = iota + 1
)

func (a OperatorAction) String() string {
	switch a {
	case ActionRepairRedrive:
		return "repair_redrive"
	}
	return "unknown"
}

// QueueActions are the operator actions the SQS-like queue carries out.
// A family declares its own in Descriptor.Actions.
var QueueActions = []OperatorAction{ActionRepairRedrive}

// OperatorActionByName finds one of actions by its name in incident files.
func OperatorActionByName(actions []OperatorAction, name string) (OperatorAction, bool) {
	for _, a := range actions {
		if a.String() == name {
			return a, true
		}
	}
	return 0, false
}

// Pin fixes one decision of the lesson's run ("the featured order's first
// call takes 34 s"), so the story's beats land where the lesson puts them.
// A pin holds only while its value lies inside what the knobs in force
// allow (a latency within [latency_min, latency_max], an idle worker on
// its box); outside, it gives way to the decision's ordinary draw and the
// world records it (World.PinsGaveWay).
type Pin struct {
	Kind     DecisionKind
	Message  int32
	Delivery int
	Value    int64  // latency in ms
	Box      string // for worker choice: prefer an idle worker on this box
}

// PublishRun is Count messages published at At, At+Every, …, offsets
// from the incident's start, one after another: a publish schedule is
// its runs in order, message k the schedule's k-th.
type PublishRun struct {
	At, Every Duration
	Count     int
}

// PublishCount is how many messages runs schedule.
func PublishCount(runs []PublishRun) int {
	n := 0
	for _, r := range runs {
		n += r.Count
	}
	return n
}

// Bookmark is a beat of the story with the lesson's words.
type Bookmark struct {
	At    Time
	Title string
	Words string
	// Event, when set, names an event kind: the bookmark's moment ends
	// just after the last event of that kind at At, for a beat that
	// shares its clock with what follows it (the fortieth dead letter
	// and the redrive that empties the drawer, both at 17:50:00).
	Event string
	// Msg, with Event, narrows it to one message's event (-1: any).
	Msg int32
}

// Expectation is one published figure: Key is a summary key
// ("duplicate_effects", "figures.dlq_peak", "message.14.effects",
// "alert.oldest_age"), Want an exact value, a range or a bound.
type Expectation struct {
	Key  string
	Want string
}

// ForkSpec is a fork the lesson asks for, with the figures it must give.
type ForkSpec struct {
	Name   string
	At     Time // 0: from the start
	HasAt  bool
	Set    []Setting
	Expect []Expectation
}

// Exercise is a "Check your understanding" question this incident can
// answer, as a preset fork at the right moment.
type Exercise struct {
	Key      string
	Question string
	At       Time
	Set      []Setting
	Override *DecisionOverride // force the decision at At instead of a knob
	// Do are operator actions the exercise takes: at At, in the fork
	// with Set, or, with DoAt, in a fork of that fork at the later moment
	// DoAt ("raise the timeout, then lose a worker").
	Do      []Action
	DoAt    *ForkMoment
	Explain string
	// FromLesson: the question is one of the lesson's own "Check your
	// understanding"; otherwise it was written for the incident.
	FromLesson bool

	// Choices (two to five), when given, make the exercise a question to
	// predict, or to put to a room, before the answer is shown: Answer is
	// the right one's index. Ask is the bookmark it is asked at (nil: the
	// exercise's own moment, At); Proof is the later moment that shows the
	// answer, a bookmark or a clock with everything at it happened.
	Choices []string
	Answer  int
	Ask     *Bookmark
	Proof   *Bookmark
}

// AskAt is the clock a question is asked at: its bookmark's, or the
// exercise's own moment.
func (e *Exercise) AskAt() Time {
	if e.Ask != nil {
		return e.Ask.At
	}
	return e.At
}

// Branch is the name of the fork that answers the exercise.
func (e *Exercise) Branch() string {
	if len(e.Do) > 0 && e.DoAt == nil {
		return "exercise " + e.Key + ": " + actName(e.Do, e.Set, e.Override, ForkMoment{At: e.At, Pos: -1})
	}
	return "exercise " + e.Key + ": " + ForkName(e.Set, e.Override, e.At)
}

// Changes reports whether the exercise forks the lesson's run (a knob or
// a forced decision) rather than asking about the run itself.
func (e *Exercise) Changes() bool { return len(e.Set) > 0 || e.Override != nil || len(e.Do) > 0 }

// SeekAsk puts x where the question is asked: on the lesson's run (the
// first branch) or, when the exercise changes something, on its fork (an
// existing one of that name and place, else a new one; Open), at the
// question's bookmark or, without one, at the exercise's moment (its
// actions' fork, with DoAt).
func (e *Exercise) SeekAsk(x *Explorer) error {
	if err := e.Open(x); err != nil {
		return err
	}
	if e.Ask != nil {
		x.SeekBookmark(*e.Ask)
	} else if e.DoAt == nil {
		x.SeekTime(e.At)
	}
	return nil
}

// SeekProof moves x, on the branch SeekAsk chose, to the moment that
// shows the answer.
func (e *Exercise) SeekProof(x *Explorer) {
	if e.Proof != nil {
		x.SeekBookmark(*e.Proof)
	}
}

// Setting is one knob=value pair, in the order the user gave it.
type Setting struct {
	Knob  string
	Value string
}

// Count words n of the incident's messages in its own word: "1 order",
// "99 orders" ("message" when the file names none).
func (s *Spec) Count(n int64) string {
	label := s.Label
	if label == "" {
		label = "message"
	}
	if n == 1 {
		return "1 " + label
	}
	return strconv.FormatInt(n, 10) + " " + label + "s"
}
