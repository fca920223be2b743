package engine

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
)

// AlertFiring is an alert and the first time it fired.
type AlertFiring struct {
	Name string `json:"name"`
	At   string `json:"at"`
}

// Summary is the run summary. Its JSON keys are a published interface:
// incident files' expect sections and users' scripts read them, so a key
// is never renamed. Each key's definition is SummaryFigures' (figures.go).
type Summary struct {
	Incident         string `json:"incident"`
	Seed             uint64 `json:"seed"`
	Messages         int64  `json:"messages"`
	Deliveries       int64  `json:"deliveries"`
	Effects          int64  `json:"effects"`
	DuplicateEffects int64  `json:"duplicate_effects"`
	// Every message is in one state at the end (see World.States).
	Done            int64          `json:"done"`
	HeldAtEnd       int64          `json:"held_at_end"`
	Lost            int64          `json:"lost"`
	DLQ             int64          `json:"dlq"`
	LateAcksRefused int64          `json:"late_acks_refused"`
	MaxOldestAgeS   float64        `json:"max_oldest_age_s"`
	Busy            float64        `json:"busy"`
	Alerts          []AlertFiring  `json:"alerts"`
	WouldHaveFired  []AlertFiring  `json:"would_have_fired"`
	End             string         `json:"end"`
	Events          int64          `json:"events"`
	Decisions       int64          `json:"decisions"`
	TraceSHA256     string         `json:"trace_sha256"`
	Figures         map[string]any `json:"figures"`
	Code            string         `json:"code"`
	// Forks are the run's forks (run --at, a code's), each where it
	// stands exactly; absent on the incident's own run.
	Forks []ForkPlace `json:"forks,omitempty"`
	// Unfinished says in one line why a run ended with work left: every
	// worker wedged, no consumer, the event budget. Empty when it finished.
	Unfinished string `json:"unfinished,omitempty"`
	// PinsGaveWay lists the incident's pins that gave way to an ordinary
	// draw because the knobs in force put their value out of range.
	PinsGaveWay []PinGaveWay `json:"pins_gave_way,omitempty"`
	// WorstRecovery is the longest a crashed or wedged worker's message
	// waited for its next delivery (recovery.go); absent when no worker
	// crashed or wedged holding one.
	WorstRecovery *RecoveryFigure `json:"worst_recovery,omitempty"`
}

// Summarize reads the summary off a world; traceHash is the hex digest of
// the trace that produced it.
func (w *World) Summarize(traceHash string) Summary {
	st := w.States()
	s := Summary{
		Incident: w.spec.ID, Seed: w.seed,
		Messages: w.Stats.Published, Deliveries: w.Stats.Deliveries, Effects: w.Stats.Effects,
		DuplicateEffects: w.Stats.Duplicates, Done: st.Done, HeldAtEnd: st.Held, Lost: st.Lost,
		DLQ: st.DLQ, LateAcksRefused: w.Stats.LateRefused,
		End: w.Stats.LastEvent.Short(), Events: w.Pos, Decisions: w.Decisions, TraceSHA256: traceHash,
		Alerts: []AlertFiring{}, WouldHaveFired: []AlertFiring{},
	}
	end := w.Stats.LastEvent
	maxAge := w.Stats.MaxOldestAge
	if p, ok := w.truth.oldestPublished(); ok {
		maxAge = max(maxAge, end-p)
	}
	s.MaxOldestAgeS = maxAge.Seconds()
	busy := w.Stats.BusyMs
	stuck, retried := 0, 0
	if fs, ok := w.fam.(FamilySummary); ok {
		var running int64
		running, stuck, retried = fs.Running(w, end)
		busy += running
	}
	if span := int64(end-max(w.spec.Workers.Start, w.spec.Start)) * int64(w.spec.Workers.count()); span > 0 {
		s.Busy = math.Round(float64(busy)/float64(span)*10000) / 10000
	}
	for i, a := range w.spec.Alerts {
		if w.AlertAt[i] >= 0 {
			s.Alerts = append(s.Alerts, AlertFiring{a.Name, w.AlertAt[i].Short()})
		}
	}
	for i, a := range w.spec.WouldHave {
		if w.WouldAt[i] >= 0 {
			s.WouldHaveFired = append(s.WouldHaveFired, AlertFiring{a.Name, w.WouldAt[i].Short()})
		}
	}
	s.Figures = map[string]any{
		"dlq_peak":           w.Stats.DLQPeak,
		"crashes":            w.Stats.Crashes,
		"redriven":           w.Stats.Redriven,
		"late_acks_accepted": w.Stats.LateAccepted,
		"held_at_end":        st.Held, // also at the top level; kept for scripts
		"wedged":             stuck,
		"wedged_retried":     retried,
		"last_effect":        w.Stats.LastEffect.Short(),
	}
	for k, v := range w.fam.Figures(w) {
		s.Figures[k] = v
	}
	// why a run ended with work left, or "" when it did not
	switch fs, ok := w.fam.(FamilySummary); {
	case w.budgetHit > 0:
		s.Unfinished = Budget{Events: w.budgetHit}.StopLine()
	case st.Held == 0 || !w.Settled():
	case ok:
		s.Unfinished = fs.Stalled(w, st)
	default:
		s.Unfinished = fmt.Sprintf("stopped with work left: %s still held", w.spec.Count(st.Held))
	}
	s.PinsGaveWay = append([]PinGaveWay(nil), w.PinsGaveWay...)
	return s
}

// hashSink feeds every event to SHA-256 as four fixed words (see Event):
// the trace hash.
type hashSink struct {
	h    hash.Hash // a SHA-256
	buf  []byte    // filled up to n; handed to h a block at a time
	n    int
	last Time
	next Sink
}

// hashBlock is what the sink gathers before it hashes: enough that the
// SHA-256 runs over long stretches (16 KiB hashes a million orders as fast
// as 256 KiB did), small enough that a process's start-up does not pay
// for touching pages it barely uses (every parse of an incident and every
// explorer branch makes a sink).
const hashBlock = 16 << 10

func newHashSink(next Sink) *hashSink {
	return &hashSink{h: sha256.New(), buf: make([]byte, hashBlock), next: next}
}

func (s *hashSink) Event(w *World, e *Event, d *Decision) {
	// Four fixed words an event: cheaper to write than varints, and SHA-NI
	// hashes the extra bytes faster than varints could save. A decision's
	// value shows in the event it shapes (the worker, the latency, the
	// kind of ack), so it needs no word of its own.
	var dk uint64
	if d != nil {
		dk = uint64(d.Kind)
	}
	s.put(e.T, e.Kind, e.Msg, int(e.Worker), e.Delivery, e.Value, e.Aux, dk)
	if s.next != nil {
		s.next.Event(w, e, d)
	}
}

// put writes one event's four words (World.Emit calls it directly when
// the hash is the only sink).
func (s *hashSink) put(t Time, k Kind, msg int32, wk int, delivery uint16, val, aux int64, dk uint64) {
	b := s.buf[s.n : s.n+32 : s.n+32]
	binary.LittleEndian.PutUint64(b[0:], uint64(t-s.last)<<24|uint64(k)<<16|uint64(delivery))
	binary.LittleEndian.PutUint64(b[8:], uint64(uint32(msg))<<32|uint64(uint16(int16(wk)))<<16|dk)
	binary.LittleEndian.PutUint64(b[16:], uint64(val))
	binary.LittleEndian.PutUint64(b[24:], uint64(aux))
	s.last = t
	s.n += 32
	if s.n == hashBlock {
		s.flush()
	}
}

func (s *hashSink) flush() {
	s.h.Write(s.buf[:s.n])
	s.n = 0
}

func (s *hashSink) sum() string {
	s.flush()
	return hex.EncodeToString(s.h.Sum(nil))
}

// TraceLine is one line of `inflight run --trace`.
type TraceLine struct {
	Pos      int64          `json:"pos"`
	T        string         `json:"t"`
	Kind     string         `json:"kind"`
	Message  *int32         `json:"message,omitempty"`
	Delivery uint16         `json:"delivery,omitempty"`
	Actor    string         `json:"actor"`
	Caption  string         `json:"caption"`
	Decision *TraceDecision `json:"decision,omitempty"`
}

// TraceDecision is a decision as the trace shows it.
type TraceDecision struct {
	Index        int64   `json:"index"`
	Kind         string  `json:"kind"`
	Chosen       int64   `json:"chosen"`
	ChosenLabel  string  `json:"chosen_label"`
	Alternatives []int64 `json:"alternatives,omitempty"`
	Min          *int64  `json:"min,omitempty"`
	Max          *int64  `json:"max,omitempty"`
	Forced       bool    `json:"forced,omitempty"`
	Text         string  `json:"text"`
}

// Line renders e (just emitted on w) as a trace line.
func (w *World) Line(e *Event, d *Decision) TraceLine {
	l := TraceLine{Pos: e.Pos, T: e.T.Clock(), Kind: w.KindName(e.Kind), Delivery: e.Delivery, Caption: w.Caption(e, d), Actor: "broker"}
	if e.Msg >= 0 {
		m := e.Msg
		l.Message = &m
	}
	if fa, ok := w.fam.(FamilyActors); ok {
		if name := fa.ActorName(w, e); name != "" {
			l.Actor = name
		}
	} else if e.Worker >= 0 && int(e.Worker) < w.spec.Workers.count() {
		l.Actor, _ = w.spec.Workers.name(int(e.Worker))
	} else if name := addedWorker(w, e); name != "" {
		l.Actor = name // a worker an operator added (workers=+N)
	} else if e.Kind == EvRedrive || e.Kind == EvKnob || w.acting {
		l.Actor = "operator" // an actions step's events are an operator's
	}
	if d != nil {
		td := &TraceDecision{Index: d.Index, Kind: d.Kind.String(), Chosen: d.Value, Forced: d.Forced, Text: w.DecisionText(d)}
		vals, labels := w.DecisionChoices(d)
		td.ChosenLabel = labelFor(d.Value, vals, labels)
		if d.Kind >= FamilyDecision && w.fam != nil {
			td.Kind = "family"
		}
		if d.Kind == DecLatency {
			lo, hi := d.Lo, d.Hi
			td.Min, td.Max = &lo, &hi
			td.ChosenLabel = FormatSeconds(Duration(d.Value))
		} else {
			td.Alternatives = vals
		}
		l.Decision = td
	}
	return l
}

func labelFor(v int64, vals []int64, labels []string) string {
	for i, x := range vals {
		if x == v {
			return labels[i]
		}
	}
	return ""
}

type traceSink struct {
	enc *json.Encoder
	err error
}

func (s *traceSink) Event(w *World, e *Event, d *Decision) {
	if s.err == nil {
		s.err = s.enc.Encode(w.Line(e, d))
	}
}

// RunOptions configure a headless run.
type RunOptions struct {
	Seed  uint64
	Set   []Setting // from the start
	At    Time      // with HasAt: AtSet applies from this clock on
	HasAt bool
	AtSet []Setting
	AtDo  []Action // with HasAt: operator actions taken at At
	// AtMid: the fork stands after the run's first AtPos events, partway
	// through the clock At (ForkMoment's "@19:52:00 #181"), not before
	// every event at At
	AtMid    bool
	AtPos    int64
	Trace    io.Writer // every event as a JSON line, or nil
	MaxSteps int64     // stop after this many events (0: run to the end)
	// Budget stops a run that could go on for ever; the summary's
	// unfinished line then says so. Zero: DefaultBudget.
	Budget Budget
}

// Run plays an incident to the end without keeping any history: memory
// stays flat however many messages it publishes.
func Run(spec *Spec, o RunOptions) (Summary, *World, error) {
	w, err := NewWorld(spec, o.Seed, o.Set)
	if err != nil {
		return Summary{}, nil, err
	}
	if o.HasAt && o.AtMid && o.Trace != nil {
		if err := checkMidClock(spec, o); err != nil {
			return Summary{}, nil, err // before a line of the trace is written
		}
	}
	if o.HasAt && !o.AtMid && o.Trace != nil {
		if err := checkClockFork(spec, o); err != nil {
			return Summary{}, nil, err // before a line of the trace is written
		}
	}
	if o.HasAt && !o.AtMid {
		if len(o.AtSet) > 0 {
			if err := w.ScheduleKnobs(o.At, o.AtSet); err != nil {
				return Summary{}, nil, err
			}
		}
		if err := w.ScheduleActions(o.At, o.AtDo); err != nil {
			return Summary{}, nil, err
		}
	}
	var rec RecoveryScan
	w.scanWhile(&rec)
	tr := newTraceOut(o.Trace)
	w.truth.countOnly = len(spec.Operators) == 0 && len(o.AtDo) == 0
	hs := newHashSink(tr.next())
	var sink Sink = hs
	var spy *knobSpy
	var mid ForkPlace
	switch {
	case o.HasAt && o.AtMid:
		if mid, err = forkMidClock(w, sink, o); err != nil {
			return Summary{}, nil, err
		}
	case o.HasAt:
		spy = &knobSpy{next: hs, at: o.At, pos: -1}
		sink = spy
	}
	var over error
	if o.MaxSteps > 0 && !o.Budget.Reached(o.MaxSteps) {
		w.RunTo(sink, o.MaxSteps)
	} else {
		_, over = budgetRun{w, sink, o.Budget}.run()
	}
	if err := tr.flush(); err != nil {
		return Summary{}, nil, err
	}
	if err := w.ActionRefused(); err != nil {
		return Summary{}, nil, &MomentError{err.Error()}
	}
	s := w.Summarize(hs.sum())
	if spy != nil && spy.pos >= 0 {
		s.Forks = clockPlace(o.AtSet, w.acted, o.At, spy)
	}
	if o.AtMid && o.HasAt {
		s.Forks = []ForkPlace{mid}
	}
	w.rec, w.recMask = nil, 0
	if RecoveryWanted(w) {
		// read from the events as they happened, only when a worker
		// crashed or wedged
		s.WorstRecovery = rec.Figure(w.Pos, w.Stats.LastEvent)
	}
	return s, w, over
}

// traceOut is where a run writes its trace: JSON lines, buffered. A nil
// traceOut writes nothing.
type traceOut struct {
	sink *traceSink
	bw   *bufio.Writer
}

func newTraceOut(w io.Writer) *traceOut {
	if w == nil {
		return nil
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	return &traceOut{sink: &traceSink{enc: json.NewEncoder(bw)}, bw: bw}
}

// next is the sink the trace hash hands events on to (nil: none).
func (t *traceOut) next() Sink {
	if t == nil {
		return nil
	}
	return t.sink
}

// flush writes what is buffered and returns the writer's first error.
func (t *traceOut) flush() error {
	if t == nil {
		return nil
	}
	if t.sink.err == nil {
		t.sink.err = t.bw.Flush()
	}
	return t.sink.err
}

// RunWithin plays until the run settles or the budget's events have been
// emitted, and reports whether it settled. A run the budget stopped says
// so in its summary (Summary.Unfinished).
func (w *World) RunWithin(sink Sink, b Budget) bool {
	ok, _ := budgetRun{w, sink, b}.run()
	return ok
}

// StoppedAt records that the run was stopped, unsettled, by budget b: a
// driver that steps the world itself (the explorer) calls it when it gives
// up, so that the summary carries the budget's line.
func (w *World) StoppedAt(b Budget) {
	if !w.Settled() {
		w.budgetHit = b.Limit()
	}
}
