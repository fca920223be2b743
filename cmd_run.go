package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
)

var runCommand = command{
	name:     "run",
	synopsis: "inflight run ID [flags]",
	summary:  "run to the end, print the summary",
	help:     "Usage of inflight run ID [flags]:\n\n" + engine.FiguresHelp() + "Flags:\n",
	options:  func() options { return &runOptions{} },
}

// runFlags are run's and sweep's: the incident, and a fork moment.
type runFlags struct {
	incidentFlags
	at     string
	format string
	mem    memoryFlag
}

func (f *runFlags) add(fs *pflag.FlagSet) {
	f.incidentFlags.add(fs)
	fs.StringVar(&f.at, "at", "", "apply the changes from this clock on (e.g. 19:52:00), as a fork of the incident; run takes a moment partway through a clock too, as the explorer's / does ('19:52:00 #181': after the run's first 181 events)")
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
}

// checkFormat checks --format.
func (f *runFlags) checkFormat() error {
	if f.format != "text" && f.format != "json" {
		return usageErr("--format %q: want text or json", f.format)
	}
	return nil
}

// check checks --format and --at, and returns the fork moment if --at
// gives one: a clock, the fork before every event at it.
func (f *runFlags) check(spec *engine.Spec) (engine.Time, bool, error) {
	m, ok, err := f.moment(spec)
	if err == nil && ok && m.Pos >= 0 {
		return 0, false, usageErr("--at %s: this command forks at a clock (like 19:52:00); a moment with #N is run's", f.at)
	}
	return m.At, ok, err
}

// moment checks --format and --at, and returns the fork moment if --at
// gives one: a clock, or a clock and the events behind the fork, as the
// explorer's '/' takes it ("19:52:00 #181").
func (f *runFlags) moment(spec *engine.Spec) (engine.ForkMoment, bool, error) {
	if err := f.checkFormat(); err != nil {
		return engine.ForkMoment{}, false, err
	}
	if f.at == "" {
		return engine.ForkMoment{}, false, nil
	}
	m, err := engine.ParseForkMoment(f.at)
	if err != nil {
		return engine.ForkMoment{}, false, usageErr("--at: %v", err)
	}
	if m.At < spec.Start {
		return engine.ForkMoment{}, false, usageErr("--at %s is before the incident starts (%s)", f.at, spec.Start.Short())
	}
	return m, true, nil
}

type runOptions struct {
	runFlags
	do        []string
	trace     bool
	code      string
	compare   string
	maxEvents int64
	otlp      string
	sink      *otlpSink
}

func (o *runOptions) flags(fs *pflag.FlagSet) {
	o.runFlags.add(fs)
	o.mem.add(fs, "the run's world")
	fs.Int64Var(&o.maxEvents, "max-events", engine.DefaultBudget.Events, "stop a run that has not ended after this many events (the summary says so)")
	fs.BoolVar(&o.trace, "trace", false, "write every event as a JSON line to stdout (the summary then goes to stderr)")
	fs.StringVar(&o.otlp, "otlp", "", "also write the run as OTLP JSON to this file (messaging spans, one export request a line)")
	fs.StringVar(&o.code, "code", "", "reproduce the run a share code names")
	fs.StringVar(&o.compare, "compare", "", "compare the run (B) with the branch a share code names, or main (A): figures in all and since the fork, and the first divergence")
	fs.StringArrayVar(&o.do, "do", nil, "with --at, take an operator action then: ACTION or ACTION=ARG (repeatable; e.g. redrive, redrive=unfinished, crash=B2, workers=+2)")
}

// parseDo reads --do's actions and checks them against the incident
// (its world at the start, with set from the start).
func parseDo(do []string, spec *engine.Spec, seed uint64, set []engine.Setting) ([]engine.Action, error) {
	if len(do) == 0 {
		return nil, nil
	}
	var acts []engine.Action
	for _, d := range do {
		a, err := engine.ParseAction(d)
		if err != nil {
			return nil, usageErr("--do: %v", err)
		}
		acts = append(acts, a)
	}
	w, err := engine.NewWorld(spec, seed, set)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if err := w.CheckActions(acts); err != nil {
		return nil, usageErr("--do: %v", err)
	}
	return acts, nil
}

func (o *runOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	id, err := oneArg(fs)
	if err != nil {
		return err
	}
	var spec *engine.Spec
	var ro engine.RunOptions
	var c engine.Code
	if o.code != "" {
		if id != "" || fs.Changed("set") || fs.Changed("at") || fs.Changed("seed") || fs.Changed("do") {
			return usageErr("run --code: the code names the incident, seed and changes; give nothing else")
		}
		if spec, c, err = specForCode(o.code, o.file); err != nil {
			return err
		}
		if err := o.checkFormat(); err != nil {
			return err
		}
	} else {
		if id == "" && o.file == "" {
			return usageErr("run: which incident? (incidents: %s)", strings.Join(incidents.IDs(), ", "))
		}
		var set []engine.Setting
		if spec, ro.Seed, set, err = o.resolve(fs, id); err != nil {
			return err
		}
		mo, hasAt, err := o.moment(spec)
		if err != nil {
			return err
		}
		at := mo.At
		if len(o.do) > 0 && !hasAt {
			return usageErr("--do %s: at what moment? give it with --at CLOCK", o.do[0])
		}
		if hasAt {
			if len(set) == 0 && len(o.do) == 0 {
				return usageErr("--at %s: which change? give it with --set or --do", o.at)
			}
			if ro.AtDo, err = parseDo(o.do, spec, ro.Seed, nil); err != nil {
				return err
			}
			ro.HasAt, ro.At, ro.AtSet = true, at, set
			ro.AtMid, ro.AtPos = mo.Pos >= 0, mo.Pos
		} else {
			ro.Set = set
		}
	}
	if o.maxEvents <= 0 {
		return usageErr("--max-events %d: want a positive number of events", o.maxEvents)
	}
	if ro.Budget.Bytes, err = o.mem.bytes(); err != nil {
		return err
	}
	defer backstop(ro.Budget.Bytes)()
	ro.Budget.Events, ro.Budget.BytesFlag = o.maxEvents, "--max-memory-mb"
	if o.compare != "" {
		if o.otlp != "" {
			return usageErr("--compare prints a comparison, not a run: give one of --compare and --otlp")
		}
		if o.trace {
			return usageErr("--compare prints a comparison, not a trace: give one of --compare and --trace")
		}
		b := c
		if o.code == "" {
			b = engine.Code{Incident: spec.ID, Seed: ro.Seed, Set: ro.Set}
			if ro.HasAt {
				pos := int64(-1)
				if ro.AtMid {
					pos = ro.AtPos
				}
				b.Forks = []engine.CodeFork{{Pos: pos, At: ro.At, Set: ro.AtSet, Actions: ro.AtDo}}
			}
		}
		cmp, err := compareRun(spec, o.compare, b, ro.Budget)
		if err != nil {
			return err
		}
		return printComparison(stdout, o.format, cmp)
	}
	out := stdout
	if o.trace {
		ro.Trace = stdout
		out = stderr
	}
	if ro.Trace, err = o.otlpTrace(ro.Trace); err != nil {
		return err
	}
	ro.Budget.Events = o.maxEvents
	var sum engine.Summary
	if o.code != "" {
		sum, err = runCode(spec, c, ro.Trace, ro.Budget)
		if err == nil {
			var forks [][]engine.Setting
			for _, f := range c.Forks {
				forks = append(forks, f.Set)
			}
			err = o.writeOTLP(spec, c.Seed, c.Set, forks, sum)
		}
	} else {
		var w *engine.World
		sum, w, err = engine.Run(spec, ro)
		var me *engine.MomentError
		if errors.As(err, &me) {
			return usageErr("--at: %v", err)
		}
		// refused before the trace's first line (a traced run checks first)
		// or after the run, before --otlp's file
		var ae *engine.AfterEndError
		if err == nil && ro.HasAt && ro.At > w.Stats.LastEvent {
			ae = &engine.AfterEndError{LastEvent: w.Stats.LastEvent, Stopped: sum.Unfinished == ro.Budget.StopLine()}
		}
		if ae == nil {
			errors.As(err, &ae)
		}
		switch {
		case ae == nil:
		case ae.Stopped:
			return usageErr("--at %s is after --max-events %d stops the run (%s): raise it for the change to act", o.at, o.maxEvents, ae.LastEvent.Short())
		default:
			return usageErr("--at %s is after the run ends (%s): the change would act on nothing", o.at, ae.LastEvent.Short())
		}
		if err == nil {
			err = o.writeOTLP(spec, ro.Seed, ro.Set, [][]engine.Setting{ro.AtSet}, sum)
		}
		if err != nil {
			return budgetStop(err)
		}
		sum.Code = engine.RunCode(spec, ro, w).String()
	}
	if err != nil {
		return err
	}
	return printSummary(out, o.format, sum)
}

// runCode reproduces a share code's run to its end on the lean path (one
// world, no explorer history), checking its fingerprint as it passes the
// cursor. A wrong code is a usage error (exit 2); a trace that cannot be
// written is a failure (exit 1).
func runCode(spec *engine.Spec, c engine.Code, trace io.Writer, b engine.Budget) (engine.Summary, error) {
	o := engine.ReplayOptions{Trace: trace, Budget: b}
	sum, _, err := engine.ReplayCode(spec, c, o)
	var ce *engine.CodeError
	var be *engine.BudgetError
	if errors.As(err, &be) {
		return sum, budgetStop(err)
	}
	if errors.Is(err, engine.ErrCodeMismatch) || errors.As(err, &ce) {
		return sum, usageErr("%v", err)
	}
	if err != nil {
		return sum, err
	}
	sum.Code = c.String()
	return sum, nil
}

func printSummary(w io.Writer, format string, s engine.Summary) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	alerts := func(fs []engine.AlertFiring) string {
		if len(fs) == 0 {
			return "none"
		}
		var parts []string
		for _, f := range fs {
			parts = append(parts, f.Name+" at "+f.At)
		}
		return strings.Join(parts, ", ")
	}
	rows := [][2]string{
		{"incident", s.Incident}, {"seed", fmt.Sprint(s.Seed)},
		{"messages", fmt.Sprint(s.Messages)}, {"deliveries", fmt.Sprint(s.Deliveries)},
		{"effects", fmt.Sprint(s.Effects)}, {"duplicate_effects", fmt.Sprint(s.DuplicateEffects)},
		{"done", fmt.Sprint(s.Done)}, {"held_at_end", fmt.Sprint(s.HeldAtEnd)},
		{"lost", fmt.Sprint(s.Lost)}, {"dlq", fmt.Sprint(s.DLQ)},
		{"late_acks_refused", fmt.Sprint(s.LateAcksRefused)},
		{"max_oldest_age_s", fmt.Sprint(s.MaxOldestAgeS)}, {"busy", fmt.Sprint(s.Busy)},
		{"alerts", alerts(s.Alerts)}, {"would_have_fired", alerts(s.WouldHaveFired)},
		{"end", s.End}, {"events", fmt.Sprint(s.Events)}, {"decisions", fmt.Sprint(s.Decisions)},
	}
	var keys []string
	for k := range s.Figures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rows = append(rows, [2]string{"figures." + k, fmt.Sprint(s.Figures[k])})
	}
	if r := s.WorstRecovery; r != nil { // only when a worker crashed or wedged holding a message
		rows = append(rows, [2]string{"worst_recovery", r.Words})
	}
	rows = append(rows, [2]string{"trace_sha256", s.TraceSHA256}, [2]string{"code", s.Code})
	for i, f := range s.Forks { // where each fork stands: its name's moment, and the events behind it
		rows = append(rows, [2]string{fmt.Sprintf("forks.%d", i+1), fmt.Sprintf("%s · after %d events", f.Name, f.Pos)})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, g := range s.PinsGaveWay {
		if _, err := fmt.Fprintln(w, g.Line); err != nil {
			return err
		}
	}
	if s.Unfinished != "" {
		// the run ended with work left: say why, last, where it is seen
		_, err := fmt.Fprintln(w, s.Unfinished)
		return err
	}
	return nil
}
