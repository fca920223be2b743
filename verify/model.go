package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"inflight/engine"
	"inflight/incidents"
)

// Crash is one delivery the consumer dies on: delivery number Delivery
// (1 for the first) of the stream entry Entry (0-based, in publish order).
type Crash struct {
	Entry    int `json:"entry"`
	Delivery int `json:"delivery"`
}

// ModelRun is what the model says for one setting of dedupe: which
// deliveries crash (the schedule reality is then driven with) and its
// figures.
type ModelRun struct {
	Crashes []Crash
	Balance int64 // the wallet at the end, in rupees
	NCrash  int64 // the model's crash count
}

// Model is the simulator's side of the comparison.
type Model interface {
	// Describe names the model in the report.
	Describe() string
	// Run plays the lesson's test with or without dedupe.
	Run(dedupe bool) (ModelRun, error)
}

// Batch is the consumer's XREADGROUP COUNT, the cashback family's too:
// entries after a crashed one in the same batch stay pending and are
// re-read (delivery 2) after the restart, so both sides must read the same
// batches for the delivery numbers, and so the crash schedule, to line up
// (TestCashbackReal fails if they do not). Stated here, not imported:
// only the registry imports a family.
const Batch = 10

// NewModel returns the simulator's cashback incident as the model, with
// its own seed unless seedSet.
func NewModel(events int, crashP float64, seed uint64, seedSet bool) (Model, uint64, error) {
	spec, err := incidents.Get("cashback")
	if err != nil {
		return nil, 0, err
	}
	if !seedSet {
		seed = spec.Seed
	}
	return &simModel{spec: spec, seed: seed, events: events, crashP: crashP}, seed, nil
}

// simModel is the simulator: incidents/cashback.yaml on its family.
type simModel struct {
	spec   *engine.Spec
	seed   uint64
	events int
	crashP float64
}

func (m *simModel) Describe() string {
	return fmt.Sprintf("simulator incident %s, seed %d", m.spec.ID, m.seed)
}

func (m *simModel) Run(dedupe bool) (ModelRun, error) {
	set := []engine.Setting{
		{Knob: "events", Value: strconv.Itoa(m.events)},
		{Knob: "crash_p", Value: strconv.FormatFloat(m.crashP, 'g', -1, 64)},
		{Knob: "dedupe", Value: strconv.FormatBool(dedupe)},
	}
	cw := &crashWriter{}
	sum, _, err := engine.Run(m.spec, engine.RunOptions{Seed: m.seed, Set: set, Trace: cw})
	if err != nil {
		return ModelRun{}, fmt.Errorf("simulator: %w", err)
	}
	if err := cw.close(); err != nil {
		return ModelRun{}, fmt.Errorf("simulator trace: %w", err)
	}
	run := ModelRun{Crashes: cw.crashes}
	var ok bool
	if run.Balance, ok = figure(sum.Figures["balance"]); !ok {
		return ModelRun{}, fmt.Errorf("simulator: summary has no figures.balance (figures: %v)", sum.Figures)
	}
	if run.NCrash, ok = figure(sum.Figures["crashes"]); !ok {
		return ModelRun{}, fmt.Errorf("simulator: summary has no figures.crashes (figures: %v)", sum.Figures)
	}
	return run, nil
}

func figure(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case uint64:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) {
			return int64(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// crashWriter reads the trace's JSON lines as the simulator writes them
// and keeps the crash events: message = entry index, delivery = its
// delivery number.
type crashWriter struct {
	buf     []byte
	crashes []Crash
	err     error
}

var crashKind = []byte(`"kind":"crash"`)

func (w *crashWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) == 0 {
		w.buf = nil // let the block go
	}
	return len(p), w.err
}

func (w *crashWriter) line(l []byte) {
	if w.err != nil || !bytes.Contains(l, crashKind) {
		return
	}
	var t engine.TraceLine
	if err := json.Unmarshal(l, &t); err != nil {
		w.err = err
		return
	}
	if t.Kind != "crash" {
		return
	}
	if t.Message == nil || t.Delivery == 0 {
		w.err = fmt.Errorf("crash event at pos %d names no message and delivery: %s", t.Pos, l)
		return
	}
	w.crashes = append(w.crashes, Crash{Entry: int(*t.Message), Delivery: int(t.Delivery)})
}

func (w *crashWriter) close() error {
	if w.err == nil && len(bytes.TrimSpace(w.buf)) > 0 {
		w.line(w.buf)
	}
	return w.err
}

var _ io.Writer = (*crashWriter)(nil)
