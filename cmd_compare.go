package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"inflight/engine"
	"inflight/incidents"
)

// comparison is `run --compare`'s output: the branch the flag names (A)
// and the run (B), each played to its end, their figures since their
// histories part, and the first event where they differ. Its JSON keys
// are a published interface, like the summary's.
type comparison struct {
	A      engine.Summary `json:"a"`
	B      engine.Summary `json:"b"`
	From   int64          `json:"from_event"` // where A and B part
	At     string         `json:"from"`       // that fork's clock
	SinceA engine.Since   `json:"since_fork_a"`
	SinceB engine.Since   `json:"since_fork_b"`
	First  *divergence    `json:"first_divergence"` // null: they never differ
	own    []string       // the family's own figures' keys (in A's and B's figures)
}

// divergence is the first event that differs, each side's in words.
type divergence struct {
	Event int64  `json:"event"`
	A     string `json:"a"` // "" where A has ended
	B     string `json:"b"`
}

// compareRun compares the run code b names with the one a names ("main":
// the incident's run with b's seed and settings, no fork) on one
// explorer, under the run's budget.
func compareRun(spec *engine.Spec, a string, b engine.Code, budget engine.Budget) (comparison, error) {
	var ac engine.Code
	if a != "main" {
		var err error
		if ac, err = engine.ParseCode(a); err != nil {
			return comparison{}, usageErr("--compare: %v", err)
		}
		if ac.Incident != b.Incident || ac.Seed != b.Seed || fmt.Sprint(ac.Set) != fmt.Sprint(b.Set) {
			return comparison{}, usageErr("--compare: the code is for another run (%s seed %d), not %s seed %d with the same settings: only branches of one run compare", ac.Incident, ac.Seed, b.Incident, b.Seed)
		}
	}
	x, err := engine.NewExplorer(spec, b.Seed, b.Set)
	if err != nil {
		return comparison{}, usageErr("%v", err)
	}
	x.Limit(engine.Limits{Events: budget.Events, Bytes: budget.Bytes, EventsFlag: "--max-events", BytesFlag: budget.BytesFlag}, nil)
	main := x.Branch()
	var out comparison
	var cerr error
	err = x.Run(nil, func() {
		if cerr = x.ForkPath(b.Forks); cerr != nil {
			return
		}
		bb := x.Branch()
		ab := main
		if a != "main" {
			x.Switch(main)
			if cerr = x.ForkPath(ac.Forks); cerr != nil {
				cerr = fmt.Errorf("--compare: %w", cerr)
				return
			}
			ab = x.Branch()
		}
		c := x.CompareBranches(ab, bb)
		out = comparison{A: c.A, B: c.B, From: c.From, At: c.At.Short(), SinceA: c.SinceA, SinceB: c.SinceB, own: incidents.OwnFigures(spec, c.A.Figures, c.B.Figures)}
		// each side's code, of its end
		for _, s := range []struct {
			br  *engine.Branch
			sum *engine.Summary
		}{{ab, &out.A}, {bb, &out.B}} {
			x.Switch(s.br)
			x.End()
			s.sum.Code = x.Code().String()
		}
		if c.Parted {
			d := &divergence{Event: c.Div.Pos}
			if c.Div.A != nil {
				d.A = c.Div.A.Event.T.Clock() + " " + c.Div.A.Caption
			}
			if c.Div.B != nil {
				d.B = c.Div.B.Event.T.Clock() + " " + c.Div.B.Caption
			}
			out.First = d
		}
	})
	if err != nil {
		return out, budgetStop(err)
	}
	var be *engine.BudgetError
	if errors.As(cerr, &be) {
		return out, budgetStop(cerr)
	}
	if cerr != nil {
		return out, usageErr("%v", cerr)
	}
	return out, nil
}

// printComparison writes c as JSON, or as a table: each figure in all and
// since the fork on A and on B, then the first divergence.
func printComparison(w io.Writer, format string, c comparison) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	fmt.Fprintf(w, "A: %s\nB: %s\nsince fork: from event %d (%s) on, where A and B part\n\n", c.A.Code, c.B.Code, c.From, c.At)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "figure\tA in all\tA since fork\tB in all\tB since fork\t")
	n := func(label string, a, sa, b, sb any) { fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t\n", label, a, sa, b, sb) }
	a, b, sa, sb := c.A, c.B, c.SinceA, c.SinceB
	n("messages", a.Messages, sa.Messages, b.Messages, sb.Messages)
	n("deliveries", a.Deliveries, sa.Deliveries, b.Deliveries, sb.Deliveries)
	n("effects", a.Effects, sa.Effects, b.Effects, sb.Effects)
	n("duplicate_effects", a.DuplicateEffects, sa.DuplicateEffects, b.DuplicateEffects, sb.DuplicateEffects)
	n("lost", a.Lost, sa.Lost, b.Lost, sb.Lost)
	n("dlq (since: dead-lettered)", a.DLQ, sa.DeadLettered, b.DLQ, sb.DeadLettered)
	n("late_acks_refused", a.LateAcksRefused, sa.LateAcksRefused, b.LateAcksRefused, sb.LateAcksRefused)
	n("max_oldest_age_s", a.MaxOldestAgeS, sa.MaxOldestAgeS, b.MaxOldestAgeS, sb.MaxOldestAgeS)
	for _, k := range c.own { // the family's own, in all (none counts since the fork)
		if engine.ZeroFigure(a.Figures[k]) && engine.ZeroFigure(b.Figures[k]) {
			continue // 0 on both sides, as the explorer's c leaves it out; the JSON has it
		}
		n("figures."+k, a.Figures[k], "", b.Figures[k], "")
	}
	n("end", a.End, "", b.End, "")
	if a.WorstRecovery != nil || b.WorstRecovery != nil {
		rec := func(r *engine.RecoveryFigure) any {
			if r == nil {
				return "none"
			}
			return r.WaitS
		}
		n("worst_recovery_s", rec(a.WorstRecovery), "", rec(b.WorstRecovery), "")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c.First == nil {
		_, err := fmt.Fprintln(w, "\nA and B never differ.")
		return err
	}
	side := func(s string) string {
		if s == "" {
			return "(the branch has ended)"
		}
		return s
	}
	_, err := fmt.Fprintf(w, "\nfirst divergence at event %d:\n  A %s\n  B %s\n", c.First.Event, side(c.First.A), side(c.First.B))
	return err
}
