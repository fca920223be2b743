package incidents

import (
	"fmt"

	"inflight/engine"
)

// DefaultValidateEvents is the event budget of the run Validate plays:
// four times the largest bundled incident's (stagefront's 800,975 events)
// and at most about 100 bytes of memory a message.
const DefaultValidateEvents = 4_000_000

// RunCheck says how far Validate checked a file against its run.
type RunCheck struct {
	Played bool        // the run was played to its end and checked against
	Events int64       // events played
	End    engine.Time // the run's last event, when Played
	// Skipped says why the file was not checked against its run (the
	// budget), when not Played: one line, naming the flag.
	Skipped string
}

// Validate reads an incident file as Parse does and, when it has no
// problems, plays its run once, headless, within maxEvents events, to
// check what only the run knows: every bookmark, fork and exercise is at
// a moment of the run (a bookmark after its last event would move the
// explorer's clock past the end; a fork there acts on nothing), and the
// featured message and every message.N an expectation reads are messages
// it publishes. A run that would pass the budget is not played (or stops
// at it), and RunCheck.Skipped says so.
func Validate(name string, data []byte, maxEvents int64) (*engine.Spec, RunCheck, error) {
	var rc RunCheck
	spec, err := parse(name, data, func(r *reader, spec *engine.Spec) { rc = r.againstRun(spec, maxEvents) })
	return spec, rc, err
}

// ValidateFile is Validate on the file at path, read as Load reads it.
func ValidateFile(path string, maxEvents int64) (*engine.Spec, RunCheck, error) {
	data, err := readCapped(path)
	if err != nil {
		return nil, RunCheck{}, err
	}
	return Validate(path, data, maxEvents)
}

func (r *reader) againstRun(spec *engine.Spec, maxEvents int64) RunCheck {
	skip := func(format string, args ...any) RunCheck {
		return RunCheck{Skipped: fmt.Sprintf(format, args...) + " (raise with --max-events)"}
	}
	msgs := sourceMessages(spec)
	if int64(msgs) > maxEvents {
		// each message is published by an event of its own: refuse before
		// any memory is spent on them
		return skip("the run publishes %d messages, more than the budget of %d events", msgs, maxEvents)
	}
	sum, w, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, MaxSteps: maxEvents})
	if err != nil {
		return RunCheck{} // NewWorld refused it: Parse has said why
	}
	if w.Pos >= maxEvents && !w.Settled() {
		return skip("the run passed the budget of %d events before it ended", maxEvents)
	}
	end := w.Stats.LastEvent
	past := func(path, what string, at engine.Time) {
		if at > end {
			r.at(path, "%s at %s is after the run ends (%s): %s", what, at.Short(), end.Short(), map[string]string{
				"bookmark": "] would move the clock past the end",
				"fork":     "its change would act on nothing",
				"exercise": "its change would act on nothing",
			}[what])
		}
	}
	for i, b := range spec.Bookmarks {
		past(fmt.Sprintf("$.bookmarks[%d].at", i), "bookmark", b.At)
	}
	for i, f := range spec.Forks {
		if f.HasAt {
			past(fmt.Sprintf("$.forks[%d].at", i), "fork", f.At)
		}
	}
	for i, ex := range spec.Exercises {
		if len(ex.Do) == 0 || ex.DoAt != nil {
			// an operator's action acts on a run that has gone quiet (a
			// redrive of the full DLQ); a knob alone would not
			past(fmt.Sprintf("$.exercises[%d].at", i), "exercise", ex.At)
		}
		if ex.DoAt != nil {
			past(fmt.Sprintf("$.exercises[%d].do_at", i), "exercise", ex.DoAt.At)
		}
	}
	if msgs == 0 {
		// a family that makes its own traffic: only now is its count known
		published := int(sum.Messages)
		r.featuredIn(spec, published)
		if fs, ok := figuresOf(spec, published); ok {
			for _, e := range spec.Expect {
				if why := fs.check(e.Key, probeFields); why != "" {
					r.atKey("$.expect."+e.Key, "expect: %s", why)
				}
			}
		}
	}
	return RunCheck{Played: true, Events: w.Pos, End: end}
}
