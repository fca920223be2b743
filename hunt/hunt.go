// Package hunt searches an incident's decisions and faults for a run that
// breaks one of its properties: every single forced decision first, then
// pairs and deeper within a budget of branches, then seeded random
// schedules, each branch forked from a checkpoint of the line it leaves.
// The answer depends only on the options: branches are tried in a fixed
// order, in chunks that may run on every core, and a chunk's results are
// read in branch order, never in order of arrival.
package hunt

import (
	"errors"

	"inflight/engine"
)

// Options are one hunt.
type Options struct {
	Spec *engine.Spec
	Seed uint64
	Set  []engine.Setting // knob changes, from the start
	// Forks are the branch hunted: the forks from the incident's own line
	// to it (a share code's), each applied at its event as the explorer
	// does. From must not come before the last of them. On a branch the
	// property is judged from the last fork's event on: what went wrong
	// before it (a duplicate the fix came too late for) does not count.
	Forks    []engine.CodeFork
	From     engine.Time // decisions before this moment are not forced
	Property *engine.Property
	Depth    int // the most decisions forced in one branch
	Budget   int // branches tried at most
	// Events, when positive, bounds the branches too: no more than
	// Events / the run's length (a branch plays at most about one run).
	// The explorer under a server passes the session's event budget.
	Events int64
	Faults bool // force crashes and wedged calls too
	All    bool // also the handler's and the broker's own decisions
	// Actions names operator actions (the family's: "crash", "redrive")
	// the hunt may take as moves, before each decision it may force, at
	// most MaxActions a branch; their arguments are chosen by the
	// searcher (actionCandidates).
	Actions []string
	// Workers is how many goroutines play branches (0: GOMAXPROCS). It
	// changes how fast, never what is found.
	Workers int
	// Progress, when set, is called after every chunk of branches.
	Progress func(Progress)
	// Stop, when set, is asked before every chunk of branches: an error
	// ends the hunt, and Hunt returns it (the explorer's esc, a server's
	// wait for a work slot that was cancelled).
	Stop func() error
	// Cancel, when closed, ends the hunt at the next branch (the rest of
	// a chunk is skipped): Hunt returns ErrCancelled.
	Cancel <-chan struct{}
	// Account is the memory the hunt may take (nil: no bound): the base
	// line's checkpoints are spaced to fit it, the lines in play and the
	// frontier of a deep search are charged to it, and a hunt that would
	// pass it is refused once the base line is known, or stopped, with a
	// *engine.BudgetError. Everything charged is released when Hunt returns.
	Account *engine.Account

	// for tests: reach is the budget reach starts a level with (0: the
	// budget left, see newReach); replays counts the parents played
	// again because their decisions were dropped
	reach   int
	replays *int
}

// ErrCancelled is Hunt's error when Options.Cancel was closed.
var ErrCancelled = errors.New("hunt cancelled")

// Progress is how far a hunt has got.
type Progress struct {
	Tried int // branches played
	Depth int // the depth being searched (0: random schedules)
	// Best is the branch so far that moved the figures a violation needs
	// most, in words ("+2 deliveries, +1 in the DLQ"); empty while none
	// moved them.
	Best string
}

// Forced is one decision or fault a counterexample forces, in the
// lesson's words.
type Forced struct {
	Index    int64       `json:"index"`
	Pos      int64       `json:"event"`
	At       engine.Time `json:"-"`
	Clock    string      `json:"at"`
	Kind     string      `json:"kind"`
	Msg      int32       `json:"message"`
	Delivery uint16      `json:"delivery"`
	Value    int64       `json:"value"`
	Words    string      `json:"words"` // the decision as the timeline says it, with the forced value
	// Fault is the forced fault; nil for a decision (and Index is -1 for
	// a fault, which is named by where it strikes, not by an index).
	Fault     *engine.Fault `json:"-"`
	FaultCode string        `json:"fault,omitempty"` // as share codes write it: "after_claim:14.1"
	// Act is the operator action taken (Kind "action", Msg -1), nil for
	// a decision or fault; taken before the event at Pos.
	Act        *engine.Action `json:"-"`
	ActionCode string         `json:"action,omitempty"` // as share codes write it: "crash=B1"
}

// Result is what a hunt found, or that it found nothing.
type Result struct {
	Property string `json:"property"`
	Words    string `json:"words"`
	Found    bool   `json:"found"`
	Unforced bool   `json:"unforced"` // the run as it stands breaks it: nothing was searched
	// After, on a branch, is its fork's moment ("19:52:00 #178"): the
	// property was judged on what happened from there on, the forced
	// decisions all come after it. Empty: the whole run was judged.
	After     string   `json:"after,omitempty"`
	Broken    []Broken `json:"broken,omitempty"`
	Forced    []Forced `json:"forced,omitempty"`
	Code      string   `json:"code,omitempty"`
	Tried     int      `json:"branches"`
	Depth     int      `json:"depth"`     // the deepest depth searched
	Space     int      `json:"space"`     // branches at Depth, when known (exhausted)
	Exhausted bool     `json:"exhausted"` // every branch at Depth was tried
	Random    int      `json:"random"`    // random schedules tried
}

// Hunt searches for a run that breaks o.Property.
func Hunt(o Options) (*Result, error) {
	if a := o.Account; a != nil {
		held := a.Held()
		defer func() { a.Release(a.Held() - held) }()
	}
	s, err := newSearcher(o)
	if err != nil {
		return nil, err
	}
	o = s.o
	decs := s.decs
	res := &Result{Property: o.Property.Name, Words: o.Property.Words}
	if s.judge != nil {
		res.After = s.judge.moment()
	}
	if b := verdict(s.decWorld, o.Property, &s.baseSum, s.baseFacts(), s.judge, len(s.redrives) > 0); len(b) > 0 {
		res.Found, res.Unforced, res.Broken = true, true, b
		res.Code = s.code(nil)
		return res, nil
	}
	// depth 1: every forcible decision of the base line, every value
	var level []node
	n1 := 0
	for _, d := range decs {
		n1 += len(d.alt)
	}
	if err := s.mem.nodes(n1); err != nil {
		return nil, err
	}
	for _, d := range decs {
		for _, v := range d.alt {
			level = append(level, node{from: d.cp, root: d.cp, force: []choice{d.choice(v, s.points)}})
		}
	}
	// then each action at every moment those fork at (charged already)
	if s.actErr != nil {
		return nil, s.actErr
	}
	level = append(level, s.actKids...)
	s.actKids = nil
	res.Depth = 1
	var outs []outcome
	hit, complete := s.try(level, 1, &outs, s.newReach(&outs))
	if s.err != nil {
		return nil, s.err
	}
	if hit >= 0 {
		return s.found(res, outs[hit])
	}
	s.mem.levelDone()
	res.Exhausted = complete
	if complete {
		res.Space = len(level)
	}
	for depth := 2; depth <= o.Depth && complete && s.tried < o.Budget; depth++ {
		// each parent's children fork from checkpoints of its own line,
		// parents that moved the figures most first
		order := s.byScore(level, outs)
		var next []node
		var nextOuts, last []outcome
		r := s.newReach(&nextOuts)
		space := 0
		res.Depth = depth
		// first every parent's children on a message it already forces
		// (a second crash of the same order), then all the others
	passes:
		for _, same := range []bool{true, false} {
			for _, i := range order {
				kids := s.expand(level[i], &outs[i], same)
				if s.err != nil {
					return nil, s.err
				}
				space += len(kids)
				into := &nextOuts // kept for the next depth
				if depth == o.Depth {
					last, into = last[:0], &last
				}
				hit, done := s.try(kids, depth, into, r)
				s.mem.dropLine()
				if s.err != nil {
					return nil, s.err
				}
				if hit >= 0 {
					return s.found(res, (*into)[hit])
				}
				if !done {
					complete = false
					break passes
				}
				if depth < o.Depth {
					if err := s.mem.nodes(len(kids)); err != nil {
						return nil, err
					}
					for _, k := range kids {
						next = append(next, k.rooted())
					}
				}
			}
		}
		res.Exhausted, res.Space = complete, 0
		if complete {
			res.Space = space
		}
		s.mem.levelDone()
		level, outs = next, nextOuts
	}
	// random schedules until the budget is spent
	if s.tried < o.Budget && len(decs) > 0 {
		r, n := s.random(decs, res)
		if s.err != nil {
			return nil, s.err
		}
		if r != nil {
			return r, nil
		}
		res.Random = n
	}
	res.Tried = s.tried
	return res, nil
}
