package dbdown

import (
	"fmt"

	"inflight/engine"
)

// The consumer's operator actions (engine.FamilyActions): the lesson's
// "pause consumption (or apply a circuit breaker) for infrastructure
// failures", done by hand. A pause is not the breaker: nothing trips it,
// nothing probes, and nothing is forgiven — a message keeps its attempts
// and a retry on its timer keeps its backoff. A retry that falls due while
// paused waits at the head of the line (RETRY DUE) and goes first when
// consumption resumes. The write in hand when the pause comes finishes:
// pausing a consumer stops it taking, not working.
var actionSpecs = []engine.ActionSpec{
	{Name: "pause", Arg: "DURATION",
		Doc: "pause consumption now: the consumer takes nothing more (the write in hand finishes), messages keep their attempts and retries their timers, and new messages wait in the line; until resume, or with =DURATION (pause=10m) for that long, 1s to 1h"},
	{Name: "resume",
		Doc: "resume consumption now: the consumer takes the retries that fell due while it was paused, then the line"},
}

// Bounds on a timed pause.
const (
	minPause = engine.Second
	maxPause = engine.Hour
)

// ActionSpecs lists the consumer's operator actions.
func (f *Family) ActionSpecs() []engine.ActionSpec { return actionSpecs }

// CheckAction refuses a pause whose length is not a duration in bounds.
func (f *Family) CheckAction(w *engine.World, a engine.Action) error {
	if a.Name == "pause" && a.Arg != "" {
		_, err := pauseFor(a.Arg)
		return err
	}
	return nil
}

func pauseFor(arg string) (engine.Duration, error) {
	d, err := engine.ParseDuration(arg, false)
	if err != nil {
		return 0, fmt.Errorf("action \"pause=%s\": %v", arg, err)
	}
	if d < minPause || d > maxPause {
		return 0, fmt.Errorf("action \"pause=%s\": a pause lasts from %s to %s (or give pause alone, until resume)", arg, engine.SpanText(minPause), engine.SpanText(maxPause))
	}
	return d, nil
}

// ActionWords tell what an action does, for a fork's name.
func (f *Family) ActionWords(w *engine.World, a engine.Action) string {
	switch a.Name {
	case "pause":
		if d, err := pauseFor(a.Arg); a.Arg != "" && err == nil {
			return "pause consumption for " + engine.SpanText(d)
		}
		return "pause consumption"
	case "resume":
		return "resume consumption"
	}
	return a.String()
}

// Act carries out an action now. Each emits one event, a pause or resume
// that changes nothing included: the fork's place is that event.
func (f *Family) Act(w *engine.World, a engine.Action) {
	s := &f.s
	switch a.Name {
	case "pause":
		var d engine.Duration
		if a.Arg != "" {
			d, _ = pauseFor(a.Arg)
		}
		again := s.paused
		if !again {
			s.paused, s.pausedAt = true, w.Now
		}
		s.pauseGen++ // a later pause replaces an earlier one's end
		s.resumeAt = 0
		if d > 0 {
			s.resumeAt = w.Now + d
			w.Schedule(s.resumeAt, engine.FamilyStep{Op: opResume, Gen: s.pauseGen}, false)
		}
		w.Emit(KindPause, -1, -1, 0, int64(s.resumeAt), int64(boolInt(again)))
	case "resume":
		if !s.paused {
			w.Emit(KindResume, -1, -1, 0, 0, resumeIdle)
			return
		}
		f.resume(w, resumeByHand)
	}
}

// How consumption resumed, as KindResume's Aux.
const (
	resumeByHand = 0
	resumeTimed  = 1 // a timed pause ended
	resumeIdle   = 2 // it was not paused: nothing changes
)

func (f *Family) resume(w *engine.World, how int64) {
	s := &f.s
	s.paused = false
	s.pauseGen++
	s.resumeAt = 0
	w.Emit(KindResume, -1, -1, 0, int64(s.pausedAt), how)
	f.kick(w)
}

// timedResume ends a timed pause, unless a later pause or resume has
// replaced it.
func (f *Family) timedResume(w *engine.World, gen uint16) {
	if s := &f.s; s.paused && gen == s.pauseGen {
		f.resume(w, resumeTimed)
	}
}

// actionCaption tells the actions' events.
func (f *Family) actionCaption(w *engine.World, e *engine.Event) string {
	s := &f.s
	switch e.Kind {
	case KindPause:
		until := "until an operator resumes it"
		if e.Value > 0 {
			until = "until " + engine.Time(e.Value).Short()
		}
		if e.Aux == 1 {
			return "consumption stays paused, now " + until
		}
		held := ""
		if s.busy >= 0 {
			held = fmt.Sprintf(" (the write of %s in hand finishes)", w.MsgName(s.busy))
		}
		kept := ""
		if waiting, _ := f.Counts(w); waiting+len(s.waits) > 0 {
			kept = fmt.Sprintf(" — %d waiting, %d retries on their timers", waiting, len(s.waits))
		}
		return fmt.Sprintf("an operator pauses consumption %s: the consumer takes nothing more%s; messages keep their attempts and retries their timers%s",
			until, held, kept)
	case KindResume:
		if e.Aux == resumeIdle {
			return "resume: consumption was not paused, so nothing changes"
		}
		who := "an operator resumes consumption"
		if e.Aux == resumeTimed {
			who = "the pause ends: consumption resumes"
		}
		db := "the database is up"
		if !s.dbUp {
			db = "the database is still down — the retries will burn again"
		}
		return fmt.Sprintf("%s after %s paused; %s; the consumer takes %d due retries first, then the line", who, span(w.Now-engine.Time(e.Value)), db, len(s.lane))
	}
	return ""
}
