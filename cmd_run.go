package main

import (
	"errors"
	"github.com/spf13/pflag"

	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"inflight/engine"
	"inflight/incidents"
)

// runFlags are run's and sweep's: the incident, and a fork moment.
type runFlags struct {
	incidentFlags
	at     string
	format string
}

func (f *runFlags) add(fs *pflag.FlagSet) {
	f.incidentFlags.add(fs)
	fs.StringVar(&f.at, "at", "", "apply the changes from this clock on (e.g. 19:52:00), as a fork of the incident")
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
}

func (f *runFlags) check(spec *engine.Spec) (engine.Time, bool, error) {
	if f.format != "text" && f.format != "json" {
		return 0, false, usageErr("--format %q: want text or json", f.format)
	}
	if f.at == "" {
		return 0, false, nil
	}
	t, err := engine.ParseClock(f.at)
	if err != nil {
		return 0, false, usageErr("--at: %v", err)
	}
	if t < spec.Start {
		return 0, false, usageErr("--at %s is before the incident starts (%s)", f.at, spec.Start.Short())
	}
	return t, true, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("run")
	var f runFlags
	f.add(fs)
	var trace bool
	var code string
	var maxEvents int64
	fs.Int64Var(&maxEvents, "max-events", engine.DefaultBudget.Events, "stop a run that has not ended after this many events (the summary says so)")
	fs.BoolVar(&trace, "trace", false, "write every event as a JSON line to stdout (the summary then goes to stderr)")
	fs.StringVar(&code, "code", "", "reproduce the run a share code names")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	id, err := oneArg(fs, "incident")
	if err != nil {
		return err
	}
	var spec *engine.Spec
	var o engine.RunOptions
	var c engine.Code
	if code != "" {
		if id != "" || fs.Changed("set") || fs.Changed("at") || fs.Changed("seed") {
			return usageErr("run --code: the code names the incident, seed and changes; give nothing else")
		}
		if spec, c, err = specForCode(code, f.file); err != nil {
			return err
		}
		if f.format != "text" && f.format != "json" {
			return usageErr("--format %q: want text or json", f.format)
		}
	} else {
		if id == "" && f.file == "" {
			return usageErr("run: which incident? (incidents: %s)", strings.Join(incidents.IDs(), ", "))
		}
		var set []engine.Setting
		if spec, o.Seed, set, err = f.resolve(fs, id); err != nil {
			return err
		}
		at, hasAt, err := f.check(spec)
		if err != nil {
			return err
		}
		if hasAt {
			if len(set) == 0 {
				return usageErr("--at %s: which change? give it with --set", f.at)
			}
			o.HasAt, o.At, o.AtSet = true, at, set
		} else {
			o.Set = set
		}
	}
	if maxEvents <= 0 {
		return usageErr("--max-events %d: want a positive number of events", maxEvents)
	}
	o.Budget = engine.Budget{Events: maxEvents}
	out := stdout
	if trace {
		o.Trace = stdout
		out = stderr
	}
	var sum engine.Summary
	if code != "" {
		sum, err = runCode(spec, c, o.Trace)
	} else {
		var w *engine.World
		if o.Trace == nil {
			o.Hash = newPipeHash()
		}
		sum, w, err = engine.Run(spec, o)
		if err == nil && o.HasAt && o.At > w.S.LastEvent {
			return usageErr("--at %s is after the run ends (%s): the change would act on nothing", f.at, w.S.LastEvent.Short())
		}
		if err == nil {
			sum.Code = engine.RunCode(spec, o, w).String()
		}
	}
	if err != nil {
		return err
	}
	return printSummary(out, f.format, sum)
}

// runCode reproduces a share code's run to its end on the lean path (one
// world, no explorer history), checking its fingerprint as it passes the
// cursor. A wrong code is a usage error (exit 2); a trace that cannot be
// written is a failure (exit 1).
func runCode(spec *engine.Spec, c engine.Code, trace io.Writer) (engine.Summary, error) {
	o := engine.ReplayOptions{Trace: trace}
	if trace == nil {
		o.Hash = newPipeHash()
	}
	sum, _, err := engine.ReplayCode(spec, c, o)
	var ce *engine.CodeError
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
	rows = append(rows, [2]string{"trace_sha256", s.TraceSHA256}, [2]string{"code", s.Code})
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.Unfinished != "" {
		// the run ended with work left: say why, last, where it is seen
		_, err := fmt.Fprintln(w, s.Unfinished)
		return err
	}
	return nil
}

func cmdSweep(args []string, stdout io.Writer) error {
	fs := flagSet("sweep")
	var f runFlags
	f.add(fs)
	var varies []string
	fs.StringArrayVar(&varies, "vary", nil, "the knob and its values, key=v1,v2,... (e.g. visibility_timeout=30s,45s,60s,90s)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	id, err := oneArg(fs, "incident")
	if err != nil {
		return err
	}
	if id == "" && f.file == "" {
		return usageErr("sweep: which incident? (incidents: %s)", strings.Join(incidents.IDs(), ", "))
	}
	spec, seed, set, err := f.resolve(fs, id)
	if err != nil {
		return err
	}
	at, hasAt, err := f.check(spec)
	if err != nil {
		return err
	}
	if len(varies) > 1 {
		return usageErr("sweep: one --vary at a time (give the others as --set)")
	}
	vary := strings.Join(varies, "")
	knob, vals, ok := strings.Cut(vary, "=")
	if !ok || vals == "" {
		return usageErr("sweep: --vary key=v1,v2,... is required")
	}
	var sums []engine.Summary
	var labels []string
	for _, v := range strings.Split(vals, ",") {
		st, err := engine.ParseSetting(knob + "=" + v)
		if err != nil {
			return usageErr("--vary: %v", err)
		}
		changes := append(append([]engine.Setting(nil), set...), st)
		o := engine.RunOptions{Seed: seed}
		if hasAt {
			o.HasAt, o.At, o.AtSet = true, at, changes
		} else {
			o.Set = changes
		}
		p := spec.Params
		if err := p.Apply(changes); err != nil {
			return usageErr("--vary %v", err)
		}
		if err := engine.CheckKnobsFor(spec, changes); err != nil {
			return usageErr("--vary: %v", err)
		}
		sum, w, err := engine.Run(spec, o)
		if err != nil {
			return err
		}
		sum.Code = engine.RunCode(spec, o, w).String()
		sums = append(sums, sum)
		labels = append(labels, knob+"="+strings.TrimSpace(v))
	}
	if f.format == "json" {
		type branch struct {
			Set     string         `json:"set"`
			Summary engine.Summary `json:"summary"`
		}
		var out []branch
		for i := range sums {
			out = append(out, branch{labels[i], sums[i]})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, l := range labels {
		fmt.Fprintf(tw, "%s\t", l)
	}
	fmt.Fprintln(tw)
	flats := make([]map[string]string, len(sums))
	for i, s := range sums {
		flats[i] = s.Flat()
	}
	for _, k := range []string{"messages", "deliveries", "effects", "duplicate_effects", "lost", "dlq", "late_acks_refused", "max_oldest_age_s", "busy", "alerts", "end"} {
		fmt.Fprintf(tw, "%s\t", k)
		for _, fl := range flats {
			fmt.Fprintf(tw, "%s\t", fl[k])
		}
		fmt.Fprintln(tw)
	}
	if hasAt {
		fmt.Fprintf(tw, "(changes from %s)\t\n", at.Short())
	}
	return tw.Flush()
}

func cmdCheck(args []string, stdout io.Writer) error {
	fs := flagSet("check")
	var file string
	fs.StringVar(&file, "incident-file", "", "check this incident file instead of the bundled incidents")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("check takes no arguments (it checks every bundled incident; --incident-file F checks one file)")
	}
	specs := incidents.All()
	if file != "" {
		s, err := incidents.Load(file)
		if err != nil {
			return usageErr("%v", err)
		}
		specs = []*engine.Spec{s}
	}
	bad, total := 0, 0
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tincident\trun\tfigure\texpected\tgot")
	for _, s := range specs {
		res, err := engine.CheckSpec(s)
		if err != nil {
			return err
		}
		for _, r := range res {
			mark := "ok"
			if !r.OK {
				mark = "FAIL"
				bad++
			}
			total++
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", mark, r.Incident, r.Run, r.Key, r.Want, r.Got)
		}
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d passed, %d failed\n", total-bad, bad)
	if bad > 0 {
		return &exitError{1, fmt.Sprintf("%d published figure(s) not reproduced", bad)}
	}
	return nil
}

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := flagSet("validate")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("validate: want one incident file")
	}
	spec, err := incidents.Load(fs.Arg(0))
	if err != nil {
		// one problem a line, each with its position, like a compiler
		fmt.Fprintln(stderr, err)
		return &exitError{1, ""}
	}
	if _, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, MaxSteps: 1}); err != nil {
		return &exitError{1, fmt.Sprintf("%s: %v", fs.Arg(0), err)}
	}
	fmt.Fprintf(stdout, "%s: ok (incident %s, %d published figures, %d forks)\n", fs.Arg(0), spec.ID, len(spec.Expect), len(spec.Forks))
	return nil
}
