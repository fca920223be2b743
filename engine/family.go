package engine

// Family is the model of an incident's system: a queue, a stream and its
// consumers, a database, producers. A family owns its system's state
// (plain data, deep-copied by Clone), its steps, its own event kinds and
// the words its events and panes are told in. The world keeps everything
// shared: the clock, the event queue, the trace and its hash, decisions,
// the ground truth per message, alerts, checkpoints and forks. Families live in engine/families/<name>, each
// exporting a Descriptor; the incidents package's registry lists them and
// picks one from an incident file's `family:` key.
type Family interface {
	// Clone deep-copies the family's state for a checkpoint or a fork.
	Clone() Family
	// Start schedules the family's first steps, at the world's start.
	Start(w *World)
	// Step runs one step the family scheduled. It emits at most one event
	// (World.Emit) and makes at most one decision (World.Decide).
	Step(w *World, s FamilyStep)
	// Figures are the family's own summary figures ("balance", "crashes").
	Figures(w *World) map[string]any
	// KindName names one of the family's event kinds (any kind not the
	// kernel's, see Kind.Kernel) for the trace: "xack", "produce", "reject".
	KindName(k Kind) string
	// Caption tells an event in one line; ok false falls back to the
	// kernel's caption of a kernel kind.
	Caption(w *World, e *Event, d *Decision) (string, bool)
	// DecisionText describes a family decision kind (FamilyDecision and
	// above) with its alternatives.
	DecisionText(w *World, d *Decision) string
	// Panes lists what the explorer's panes show at its cursor, in the
	// system's terms, in the order the explorer places them.
	Panes(w *World, c Cursor) []Pane
	// Counts are the chart's numbers, cheaply: messages waiting, and
	// messages taken but not finished.
	Counts(w *World) (waiting, taken int)
}

// FamilyChoices is implemented by a family that labels its decisions'
// outcomes for the fork form ("the database answers" / "it times out")
// instead of the generic numbers.
type FamilyChoices interface {
	DecisionChoices(w *World, d *Decision) (values []int64, labels []string)
}

// FamilyActors is implemented by a family that names who acted in each of
// its events for the trace's `actor` ("consumer-1", "producer", "db");
// without it every family event's actor is "broker".
type FamilyActors interface {
	ActorName(w *World, e *Event) string
}

// FamilyOperator is implemented by a family that carries out operator
// actions (it lists them in Descriptor.Actions): the world runs operator i's
// action a when its condition first holds.
type FamilyOperator interface {
	Operate(w *World, i int, a OperatorAction)
}

// FamilyKnobs is implemented by a family whose state depends on knobs a
// fork may change: KnobsChanged runs when the changes take effect, before
// the knob event (was: the knobs before); KnobsApplied right after it.
type FamilyKnobs interface {
	KnobsChanged(w *World, was *Params)
	KnobsApplied(w *World)
}

// FamilyGuard is implemented by a family whose messages move only when a
// step of its own moves them (a dispatcher): the settled-state
// guard. Stranded reports a message that could move now while no step
// will move it; the world then calls Revive, which schedules the step. A
// model that never forgets that step never strands anything.
type FamilyGuard interface {
	Stranded(w *World) bool
	Revive(w *World)
}

// FamilySummary is implemented by a family whose workers the summary
// reads: Running is the handler time still running at end (for `busy`),
// the workers wedged and how many of those saw their message delivered
// again; Stalled words why a settled run still holds messages.
type FamilySummary interface {
	Running(w *World, end Time) (busyMs int64, wedged, retried int)
	Stalled(w *World, st States) string
}

// FamilyFootprint is implemented by a family whose state is worth counting
// in a checkpoint's estimated size (see the explorer's memory budget).
type FamilyFootprint interface {
	Footprint() int64
}

// FamilyWords is implemented by a family whose screens name its effects
// and its own kinds in its system's words; without it the explorer uses
// PlainWords.
type FamilyWords interface {
	Words() Words
}

// Words are how the explorer names what a family's system does, where the
// kernel's plain words would not say it.
type Words struct {
	Waiting, Taken  string // the chart's bands for Counts: "waiting", "taken"
	Effect, Effects string // one effect and many: "effect", "effects"
	AnEffect        string // what an effect was, in a comparison: "an effect"
	EffectMark      string // an effect's mark in a life story: "+"
	// the comparison's rows: effects, duplicates, messages with none
	Sent, Duplicates, Lost string
	// the selected message's effects, after its name: "'s effects"
	Inbox, NoEffect string
	// Did is what each of the family's own kinds did, for a comparison
	// ("deferred"); a kind not listed is told by its caption
	Did map[Kind]string
}

// PlainWords are the words of a family without its own.
var PlainWords = Words{
	Waiting: "waiting", Taken: "taken", Effect: "effect", Effects: "effects", AnEffect: "an effect", EffectMark: "+",
	Sent: "effects", Duplicates: "duplicate effects", Lost: "lost (no effect)", Inbox: "'s effects", NoEffect: "none",
}

// WordsOf is f's words: its own, or PlainWords.
func WordsOf(f Family) Words {
	if fw, ok := f.(FamilyWords); ok {
		return fw.Words()
	}
	return PlainWords
}

// FamilyLegend is implemented by a family whose panes use short tokens a
// newcomer cannot decode ("LEO", "3× recv", "p1@12", "COPY 2"): the help
// screen lists them for the incident on screen. Declared beside the
// panes, so that a new token and its meaning are written together.
type FamilyLegend interface {
	Legend() []Term
}

// Term is one short token a pane uses and what it means.
type Term struct {
	Short, Means string
}

// LegendOf is f's legend, if it declares one.
func LegendOf(f Family) []Term {
	if fl, ok := f.(FamilyLegend); ok {
		return fl.Legend()
	}
	return nil
}

// FamilyStatus is implemented by a family with figures of its own for the
// explorer's status line ("busy 3/8").
type FamilyStatus interface {
	Status(w *World) []Gauge
}

// Gauge is one figure of the status line: N of Of, named ("busy").
type Gauge struct {
	Name  string
	N, Of int
}

// StatusOf is f's own status figures on w, if any.
func StatusOf(f Family, w *World) []Gauge {
	if fs, ok := f.(FamilyStatus); ok {
		return fs.Status(w)
	}
	return nil
}

// FamilyStep is a step a family scheduled: an op of its own and three
// small operands, each the family's to interpret.
type FamilyStep struct {
	Op    uint8
	Item  int32  // what the step is about: a message, record or entry
	Actor int16  // who takes it: a worker, consumer or producer index
	Gen   uint16 // a delivery or generation number, so a stale step can tell
}

// FamilyKind is where a family's own event kinds start; a family may also
// use the numbers the kernel leaves free below it (Kind.Kernel).
const FamilyKind Kind = 64

// FamilyDecision is the first decision kind a family may define.
const FamilyDecision DecisionKind = 64

// Cursor is what the explorer shows besides the world's state: its
// displayed clock (at or after the world's), its selection, and the
// effects it read from the trace up to its cursor.
type Cursor struct {
	At      Time
	Sel     int32   // the selected message, -1 none
	Inbox   []Entry // the selected message's effects, oldest first
	Effects []Entry // every message's latest effects, newest first
}

// CursorOf is the cursor at w's own clock with nothing selected.
func CursorOf(w *World) Cursor { return Cursor{At: w.Now, Sel: -1} }

// Pane is one list the explorer shows for a family: its title and its
// rows, each already worded in the system's terms ("p3  LEO 120
// committed 96"). Where the panes go on screen is the explorer's choice.
type Pane struct {
	Title string
	Rows  []PaneRow
}

// PaneRow is one line of a pane. Msg (or -1) lets the explorer select the
// message; Bar in [0,1] draws a countdown (negative: none); Mark is a word
// that must survive without colour ("COPY 2", "LOST").
//
// A lease's countdown is drawn exactly instead: when Of > 0 the bar is
// Left of Of, between Text and Tail, and Bar is not read. Tone colours
// the whole row.
type PaneRow struct {
	Msg  int32
	Text string
	Mark string
	Bar  float64
	Left Duration
	Of   Duration
	Tail string
	Tone Tone
}

// Tone is how a pane row reads.
type Tone uint8

const (
	// TonePlain is an ordinary row.
	TonePlain Tone = iota
	// ToneDim is a quiet row: a remark in the list ("no email yet").
	ToneDim
	// ToneWarn is a row to notice: work done for a dead letter.
	ToneWarn
	// ToneBad is a row that shows the failure: a superseded handler, a
	// duplicate email.
	ToneBad
	// ToneNote is a dim remark drawn from the pane's left edge, outside
	// the column that marks the selected message ("nothing leased").
	ToneNote
)

// Family returns the world's family: the system its incident runs.
func (w *World) Family() Family { return w.fam }

// familyBytes is what family f adds to a checkpoint's estimated size.
func familyBytes(fam Family) int64 {
	if f, ok := fam.(FamilyFootprint); ok {
		return f.Footprint()
	}
	return 0
}

// Schedule queues a family step at t (not before now). A background step
// does not keep the run alive.
func (w *World) Schedule(t Time, s FamilyStep, background bool) {
	// the agenda's put written out: calling it costs a call more on the
	// hot path (1.05x the CPU of a million-order run, 16 alternated pairs,
	// when the profile-guided build did not inline it)
	q := &w.q
	q.seq++
	key := mkKey(q.seq, opFamily, background, s.Op)
	switch {
	case background:
		q.heapPut(max(t, w.Now), key, s.Item, s.Actor, s.Gen)
	case t <= w.Now:
		q.live++
		q.soonPut(w.Now, key, s.Item, s.Actor, s.Gen)
	default:
		q.live++
		q.heapPut(t, key, s.Item, s.Actor, s.Gen)
	}
}

// Decide records a decision and returns its value (natural unless a fork
// overrides it); see DecideAmong.
func (w *World) Decide(k DecisionKind, msg int32, worker int, delivery uint16, natural, lo, hi int64) int64 {
	return w.DecideAmong(k, msg, worker, delivery, natural, lo, hi, 0)
}

// Draw returns 64 random bits for (stream, a, b) under the world's seed:
// counter-based, so one kind of draw never shifts another.
func (w *World) Draw(s Stream, a, b uint64) uint64 {
	// the hot streams' first round is the world's (seedStreams)
	switch s {
	case StreamLatency:
		return mix(mix(w.streams[0]^a) ^ b)
	case StreamWorker:
		return mix(mix(w.streams[1]^a) ^ b)
	}
	return draw(w.seed, s, a, b)
}

// Uniform maps a draw to [lo, hi].
func Uniform(x uint64, lo, hi int64) int64 { return uniform(x, lo, hi) }

// Chance is true with probability p for a draw.
func Chance(x uint64, p float64) bool { return chance(x, p) }

// Seed is the run's seed.
func (w *World) Seed() uint64 { return w.seed }

// KindName names an event kind as the trace does; a family names its own
// kinds (those outside the kernel's).
func (w *World) KindName(k Kind) string {
	if !k.Kernel() && w.fam != nil {
		return w.fam.KindName(k)
	}
	return k.String()
}

// NextScheduled is the clock of the first step the family has scheduled
// that match takes, ok false for none. It reads every step queued, so it
// is for words (a refusal saying when a worker is back), not for a
// model's steps.
func (w *World) NextScheduled(match func(FamilyStep) bool) (t Time, ok bool) {
	see := func(it *item) {
		if it.op() != opFamily || ok && it.t >= t {
			return
		}
		if match(FamilyStep{Op: it.fop(), Item: it.msg, Actor: it.who, Gen: it.delivery}) {
			t, ok = it.t, true
		}
	}
	for i := range w.q.heap {
		see(&w.q.heap[i])
	}
	for i := w.q.soonHead; i < len(w.q.soon); i++ {
		see(&w.q.soon[i])
	}
	return t, ok
}
