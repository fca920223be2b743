package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/hunt"
	"inflight/incidents"
)

var huntCommand = command{
	name:     "hunt",
	synopsis: "inflight hunt ID --property NAME [flags] | --code CODE --property NAME",
	summary:  "search decisions and faults for a run that breaks a property",
	help: `Usage of inflight hunt ID --property NAME:
Forces every single decision and fault in turn (depth 1), then pairs and
deeper within --budget branches, then seeded random schedules, looking
for a run that breaks the incident's property NAME. Exit 1 when one is
found (its share code reproduces it), 0 when none is, 2 on bad input.
Its memory (checkpoints, branches in play, the frontier) is bounded by
--max-memory-mb: a hunt past it is refused or stopped in one line, exit 1.
With --code it hunts the branch a share code names, as the explorer's x
does: only what happens from the branch's last fork on is judged (a
duplicate from before the fork does not count), and only decisions after
it are forced.
With --actions crash,redrive (names of the incident's operator actions)
the hunt also takes those actions as moves, at the moments it forces
decisions from (not in the random schedules), at most 2 in one branch
(each counted in --depth); it chooses their arguments: each worker in
service for crash and wedge, redrive and redrive=unfinished, workers=+1 and -1. A
find's share code carries them (;do=) and replays with inflight run
--code.
`,
	options: func() options { return &huntOptions{} },
}

type huntOptions struct {
	runFlags
	property  string
	depth     int
	budget    int
	faults    string
	decisions string
	code      string
	actions   []string
}

func (o *huntOptions) flags(fs *pflag.FlagSet) {
	o.runFlags.add(fs)
	o.mem.add(fs, "the hunt's checkpoints, branches in play and frontier")
	fs.StringVar(&o.property, "property", "", "the property to break (the incident's properties: section)")
	fs.IntVar(&o.depth, "depth", 2, "force at most this many decisions in one branch")
	fs.IntVar(&o.budget, "budget", 20000, "try at most this many branches")
	fs.StringVar(&o.faults, "faults", "on", "force crashes and wedged calls too: on or off")
	fs.StringVar(&o.decisions, "decisions", "env", "which decisions: env (faults, workers, latencies) or all (the handler's and broker's too)")
	fs.StringVar(&o.code, "code", "", "hunt the branch this share code names, judged from its last fork on")
	fs.StringSliceVar(&o.actions, "actions", nil, "operator actions the hunt may take, by name (crash,redrive): at most 2 a branch")
}

func (o *huntOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	id, err := oneArg(fs)
	if err != nil {
		return err
	}
	var spec *engine.Spec
	var seed uint64
	var set []engine.Setting
	var code engine.Code
	if o.code != "" {
		if id != "" || fs.Changed("set") || fs.Changed("seed") {
			return usageErr("hunt --code: the code names the incident, seed and changes; give no ID, --set or --seed")
		}
		if spec, code, err = specForCode(o.code, o.file); err != nil {
			return err
		}
		seed, set = code.Seed, code.Set
	} else {
		if id == "" && o.file == "" {
			return usageErr("hunt: which incident? (incidents: %s)", strings.Join(incidents.IDs(), ", "))
		}
		if spec, seed, set, err = o.resolve(fs, id); err != nil {
			return err
		}
	}
	at, hasAt, err := o.check(spec)
	if err != nil {
		return err
	}
	if n := len(code.Forks); n > 0 && !hasAt {
		at = code.Forks[n-1].At // from the branch's own fork
	}
	prop, err := propertyOf(spec, o.property)
	if err != nil {
		return err
	}
	switch {
	case o.depth < 1 || o.depth > 8:
		return usageErr("--depth %d: want 1 to 8", o.depth)
	case o.budget < 1:
		return usageErr("--budget %d: want a positive number of branches", o.budget)
	case o.faults != "on" && o.faults != "off":
		return usageErr("--faults %q: want on or off", o.faults)
	case o.decisions != "env" && o.decisions != "all":
		return usageErr("--decisions %q: want env or all", o.decisions)
	}
	if len(o.actions) > 8 {
		return usageErr("--actions: %d names, more than any family declares (at most 8)", len(o.actions))
	}
	mem, err := o.mem.bytes()
	if err != nil {
		return err
	}
	defer backstop(mem)()
	acct := engine.NewAccount(engine.Limits{Bytes: mem, BytesFlag: "--max-memory-mb"}, nil)
	acct.Of = "the hunt"
	if o.code != "" {
		// a code that does not reproduce its incident would hunt another run
		if _, err := runCode(spec, code, nil, engine.Budget{Events: engine.DefaultBudget.Events, Bytes: mem, BytesFlag: "--max-memory-mb"}); err != nil {
			return err
		}
	}
	opts := hunt.Options{Spec: spec, Seed: seed, Set: set, Forks: code.Forks, From: at, Property: prop,
		Depth: o.depth, Budget: o.budget, Faults: o.faults == "on", All: o.decisions == "all", Account: acct,
		Actions: o.actions}
	var prog *progressLine
	if o.format == "text" {
		prog = &progressLine{w: stderr, start: time.Now()}
		opts.Progress = prog.update
	}
	res, err := hunt.Hunt(opts)
	prog.done()
	var be *engine.BudgetError
	if errors.As(err, &be) {
		return budgetStop(err)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := printHunt(stdout, res, o.depth); err != nil {
		return err
	}
	if res.Found {
		return &exitError{code: 1} // the report said it
	}
	return nil
}

// propertyOf finds the incident's property called name; a missing or
// unknown name is a usage error listing the ones it has.
func propertyOf(spec *engine.Spec, name string) (*engine.Property, error) {
	var names []string
	for i := range spec.Properties {
		if spec.Properties[i].Name == name {
			return &spec.Properties[i], nil
		}
		names = append(names, spec.Properties[i].Name)
	}
	have := spec.ID + " names none"
	if len(names) > 0 {
		have = spec.ID + "'s properties: " + strings.Join(names, ", ")
	}
	if name == "" {
		return nil, usageErr("hunt: which --property? (%s)", have)
	}
	return nil, usageErr("--property %q: no such property (%s)", clipArg(name), have)
}

// printHunt words a hunt's answer.
func printHunt(w io.Writer, r *hunt.Result, depth int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "property  %s: %s\n", r.Property, r.Words)
	if r.After != "" {
		fmt.Fprintf(&b, "judged    after %s, the branch's fork: what went wrong before it does not count\n", r.After)
	}
	switch {
	case r.Unforced && r.After != "":
		fmt.Fprintf(&b, "broken    by the branch as it stands, after its fork, nothing forced (no search needed)\n")
	case r.Unforced:
		fmt.Fprintf(&b, "broken    by the run as it stands, nothing forced (no search needed)\n")
	case r.Found:
		fmt.Fprintf(&b, "broken    by a branch forcing %s\n", forcedCount(r.Forced))
	}
	for _, c := range r.Broken {
		fmt.Fprintf(&b, "  check   %s  — got %s\n", c.Check, c.Got)
	}
	for _, f := range r.Forced {
		fmt.Fprintf(&b, "  forced  %s  %s\n", f.Clock, f.Words)
	}
	if r.Code != "" {
		fmt.Fprintf(&b, "code      %s\n", r.Code)
	}
	space := ""
	switch {
	case r.Found:
	case r.Exhausted:
		space = fmt.Sprintf("; the depth-%d space (%d branches) was exhausted", r.Depth, r.Space)
	default:
		space = fmt.Sprintf("; the budget ran out before the depth-%d space was exhausted", r.Depth)
	}
	if r.Random > 0 {
		space += fmt.Sprintf("; %d random schedule%s", r.Random, plural(r.Random))
	}
	fmt.Fprintf(&b, "branches  %d tried%s\n", r.Tried, space)
	if !r.Found && r.After != "" {
		fmt.Fprintf(&b, "not found: no branch up to depth %d breaks %s after %s\n", depth, r.Property, r.After)
	} else if !r.Found {
		fmt.Fprintf(&b, "not found: no branch up to depth %d breaks %s\n", depth, r.Property)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// forcedCount words what a branch forces: "1 fault", "2 decisions and 1
// fault".
func forcedCount(fs []hunt.Forced) string {
	faults, acts := 0, 0
	for _, f := range fs {
		if f.Fault != nil {
			faults++
		} else if f.Act != nil {
			acts++
		}
	}
	var parts []string
	if n := len(fs) - faults - acts; n > 0 {
		parts = append(parts, fmt.Sprintf("%d decision%s", n, plural(n)))
	}
	if faults > 0 {
		parts = append(parts, fmt.Sprintf("%d fault%s", faults, plural(faults)))
	}
	if acts > 0 {
		parts = append(parts, fmt.Sprintf("%d action%s", acts, plural(acts)))
	}
	return strings.Join(parts, " and ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// progressLine is hunt's progress on stderr, once the hunt has taken
// more than a second: branches tried and branches per second.
type progressLine struct {
	w     io.Writer
	start time.Time
	last  time.Time
	shown bool
}

func (p *progressLine) update(pr hunt.Progress) {
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	rate := float64(pr.Tried) / now.Sub(p.start).Seconds()
	at := fmt.Sprintf("depth %d", pr.Depth)
	if pr.Depth == 0 {
		at = "random schedules"
	}
	fmt.Fprintf(p.w, "\rhunt: %d branches, %.0f/s, %s ", pr.Tried, rate, at)
	p.shown = true
}

func (p *progressLine) done() {
	if p != nil && p.shown {
		fmt.Fprintln(p.w)
	}
}
