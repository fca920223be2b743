package stage

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
)

// A state or question from another process (serve --stage carries them
// through Redis, where anyone who reaches the Redis may write) is held to
// what a presenter of this build could have sent, as an incident file is
// held to what the incident format allows: Check refuses the rest, and
// Stage.Receive and Poll.Receive drop what Check refuses, so a forged
// message is never shown and opens no question. The texts a presenter
// types (the jump clock, the fork form) are cleaned rather than refused:
// a paste is not an attack on the room.

// A question's choices, as incident files allow (incidents/questions.go)
// and the overlay's keys (1–5, a–e) can answer.
const (
	minQuestionChoices = 2
	maxQuestionChoices = 5
)

// Bounds on a state's small numbers: far above any screen's rows and
// scroll offsets, low enough that no number makes a frame do real work.
const (
	maxStageRow  = 1 << 16
	maxStageOff  = 1 << 24
	maxStageWall = 1 << 53 // Unix ms, as exact in JSON's float64
	maxForkKnobs = 256
)

// bundledIDs are the bundled incidents a state may show, parsed once per
// process on first use (a check per message must not parse them).
var bundledIDs = sync.OnceValue(incidents.IDs)

var screens = []string{"", "help", "story", "compare", "exercises", "branches", "fork", "code", "jump", "picker"}

// Check says why st is not a state a presenter of this build sends: a
// code or branch line that does not parse as a share code of a bundled
// incident, a speed the stage does not offer, an unknown screen, a number
// out of range.
func (st State) Check() error {
	c, err := engine.ParseCode(st.Code)
	if err != nil {
		return fmt.Errorf("code: %w", err)
	}
	if ids := bundledIDs(); !slices.Contains(ids, c.Incident) {
		return fmt.Errorf("code: unknown incident %q (incidents: %s)", c.Incident, strings.Join(ids, ", "))
	}
	for i, l := range st.Branches {
		lc, err := engine.ParseCode(l)
		if err != nil {
			return fmt.Errorf("branch %d: %w", i+1, err)
		}
		if lc.Incident != c.Incident || lc.Seed != c.Seed {
			return fmt.Errorf("branch %d is of %s@%d, the code of %s@%d", i+1, clipped(lc.Incident), lc.Seed, clipped(c.Incident), c.Seed)
		}
	}
	if !slices.Contains(Speeds[:], st.Speed) {
		return fmt.Errorf("speed %v is not one the stage offers", st.Speed)
	}
	if c := st.Clock; c != nil && (c.Wall <= 0 || c.Wall > maxStageWall || c.Until < 0 || c.Until > maxStageWall) {
		return fmt.Errorf("clock %d..%d is not a moment", c.Wall, c.Until)
	}
	if err := st.Beat.check(); err != nil {
		return err
	}
	if !fits(st.Question, termtext.Name) {
		return errors.New("the question's key is not a key")
	}
	s := st.Screen
	if !slices.Contains(screens, s.Kind) {
		return fmt.Errorf("unknown screen %q", clipped(s.Kind))
	}
	n := max(1, len(st.Branches))
	switch {
	case s.Msg < -1:
		return fmt.Errorf("message %d", s.Msg)
	case s.A < 0 || s.A >= n || s.B < 0 || s.B >= n:
		return fmt.Errorf("compare %d with %d: the state has %d branches", s.A, s.B, n)
	case s.Row < 0 || s.Row > maxStageRow || s.Off < 0 || s.Off > maxStageOff:
		return fmt.Errorf("row %d, offset %d out of range", s.Row, s.Off)
	case s.Fork != nil && (s.Fork.Row < 0 || s.Fork.Row > maxForkKnobs+1 || s.Fork.Pick < -2 || s.Fork.Pick > maxStageRow || len(s.Fork.Values) > maxForkKnobs):
		return fmt.Errorf("fork form row %d, pick %d, %d values out of range", s.Fork.Row, s.Fork.Pick, len(s.Fork.Values))
	case s.Fork != nil && s.Kind != "fork":
		return errors.New("a fork form on another screen")
	}
	return nil
}

// clean is st with every text a presenter typed passed through the guard.
func (st State) clean() State {
	st.Screen.Text = termtext.Clean(st.Screen.Text, termtext.Line)
	if b := st.Beat; b != nil {
		c := *b
		c.Title = termtext.Clean(c.Title, termtext.Line)
		st.Beat = &c
	}
	if f := st.Screen.Fork; f != nil {
		g := *f
		g.Dec = termtext.Clean(g.Dec, termtext.Name)
		g.Name = termtext.Clean(g.Name, termtext.Name)
		g.Filter = termtext.Clean(g.Filter, termtext.Line)
		g.Values = slices.Clone(g.Values)
		for i, v := range g.Values {
			g.Values[i] = termtext.Clean(v, termtext.Name)
		}
		st.Screen.Fork = &g
	}
	return st
}

// Check says why q is not a question a presenter of this build asks: one
// of an incident's questions, with 2 to 5 choices (none once dropped
// before any was asked), its texts plain and within the guard's lengths,
// its answer one of the choices.
func (q PollShared) Check() error {
	pq := q.Question
	n := len(pq.Choices)
	switch {
	case q.Seq == 0 && (q.Open || q.Revealed || n > 0):
		return errors.New("a question without a number")
	case n == 0 && (q.Open || q.Revealed):
		return errors.New("a question without choices")
	case n != 0 && (n < minQuestionChoices || n > maxQuestionChoices):
		return fmt.Errorf("%d choices: a question has %d to %d", n, minQuestionChoices, maxQuestionChoices)
	case n != 0 && (pq.Answer < 0 || pq.Answer >= n):
		return fmt.Errorf("answer %d is not one of the %d choices", pq.Answer, n)
	case !fits(pq.Incident, termtext.Name) || !fits(pq.Key, termtext.Name):
		return errors.New("the incident or key is not plain text within its length")
	case !fits(pq.Text, termtext.Text):
		return fmt.Errorf("the question's text (%d bytes) is not plain text of at most %d characters", len(pq.Text), termtext.Text.Max)
	}
	for i, c := range pq.Choices {
		if strings.TrimSpace(c) == "" || !fits(c, termtext.Choice) {
			return fmt.Errorf("choice %d (%d bytes) is not one line of plain text of at most %d characters", i+1, len(c), termtext.Choice.Max)
		}
	}
	return nil
}

// clean is q with its texts passed through the guard (a checked
// question's come back as they were).
func (q PollShared) clean() PollShared {
	pq := &q.Question
	pq.Incident = termtext.Clean(pq.Incident, termtext.Name)
	pq.Key = termtext.Clean(pq.Key, termtext.Name)
	pq.Text = termtext.Clean(pq.Text, termtext.Text)
	pq.Choices = slices.Clone(pq.Choices)
	for i, c := range pq.Choices {
		pq.Choices[i] = termtext.Clean(c, termtext.Choice)
	}
	return q
}

// fits says the guard leaves s as it is under k.
func fits(s string, k termtext.Kind) bool { return termtext.Clean(s, k) == s }

// clipped is a value from another process as an error may quote it.
func clipped(s string) string { return termtext.Clean(s, termtext.Quote) }
