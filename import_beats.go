package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/internal/termtext"
)

// beatBudget bounds the import's one run of its incident: an imported
// file is small (at most 2,000 messages or 5,400 entries), and a --set
// that keeps a run going only costs it its later beats.
var beatBudget = engine.Budget{Events: 5_000_000}

// beat is one bookmark the importer writes: the first event of its kind.
type beat struct {
	e       engine.Event
	title   string
	caption string
}

// beatSink keeps the first redelivery, refused ack, crash and dead letter.
type beatSink struct {
	label string
	got   map[string]*beat
}

func (s *beatSink) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	var key, title string
	switch {
	case e.Kind == engine.EvDeliver && e.Delivery == 2:
		key, title = "redeliver", fmt.Sprintf("The first redelivery: %s %d, delivery 2", s.label, e.Msg)
	case e.Kind == engine.EvAckRefused:
		key, title = "refused", fmt.Sprintf("The first refused ack: %s %d", s.label, e.Msg)
	case e.Kind == engine.EvCrash:
		key, title = "crash", "The first crash"
		if e.Msg >= 0 {
			title = fmt.Sprintf("The first crash: %s %d", s.label, e.Msg)
		}
	case e.Kind == engine.EvDLQ:
		key, title = "dlq", fmt.Sprintf("The first dead letter: %s %d", s.label, e.Msg)
	default:
		return
	}
	if s.got[key] == nil {
		s.got[key] = &beat{e: *e, title: title, caption: w.Caption(e, d)}
	}
}

// importBeats plays the imported incident once and words its first
// redelivery, refused ack, crash and dead letter as bookmarks, so the
// explorer's timeline has beats. It reads the model's run, not the spans:
// the cashback family keeps its own timing, and a bookmark stands at the
// model's clock. "" when the run shows none of them.
func importBeats(spec *engine.Spec) (string, error) {
	w, err := engine.NewWorld(spec, spec.Seed, nil)
	if err != nil {
		return "", err
	}
	label := spec.Label
	if label == "" {
		label = "message"
	}
	s := &beatSink{label: label, got: map[string]*beat{}}
	w.RunWithin(s, beatBudget)
	var bs []*beat
	for _, b := range s.got {
		bs = append(bs, b)
	}
	if len(bs) == 0 {
		return "", nil
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].e.Pos < bs[j].e.Pos })
	var b strings.Builder
	b.WriteString("\n# the first of each beat in the model's run of this file\nbookmarks:\n")
	for _, x := range bs {
		fmt.Fprintf(&b, "  - at: %q\n    event: %s\n", x.e.T.Clock(), w.KindName(x.e.Kind))
		if x.e.Msg >= 0 {
			fmt.Fprintf(&b, "    message: %d\n", x.e.Msg)
		}
		fmt.Fprintf(&b, "    title: %s\n    words: %s\n", q(x.title), q(x.caption))
	}
	return b.String(), nil
}

func q(s string) string { return strconv.Quote(termtext.Clean(s, termtext.Line)) }
