package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
)

var sweepCommand = command{
	name:     "sweep",
	synopsis: "inflight sweep ID --vary k=v1,v2,...",
	summary:  "one branch per value, figures side by side",
	options:  func() options { return &sweepOptions{} },
}

type sweepOptions struct {
	runFlags
	varies []string
	do     []string
}

func (o *sweepOptions) flags(fs *pflag.FlagSet) {
	o.runFlags.add(fs)
	o.mem.add(fs, "each branch's world")
	fs.StringArrayVar(&o.varies, "vary", nil, "the knob and its values, key=v1,v2,... (e.g. visibility_timeout=30s,45s,60s,90s)")
	fs.StringArrayVar(&o.do, "do", nil, "with --at, take an operator action then on every branch: ACTION or ACTION=ARG (repeatable; e.g. redrive, crash=B2)")
}

func (o *sweepOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	id, err := oneArg(fs)
	if err != nil {
		return err
	}
	if id == "" && o.file == "" {
		return usageErr("sweep: which incident? (incidents: %s)", strings.Join(incidents.IDs(), ", "))
	}
	spec, seed, set, err := o.resolve(fs, id)
	if err != nil {
		return err
	}
	at, hasAt, err := o.check(spec)
	if err != nil {
		return err
	}
	if len(o.varies) > 1 {
		return usageErr("sweep: one --vary at a time (give the others as --set)")
	}
	vary := strings.Join(o.varies, "")
	knob, vals, ok := strings.Cut(vary, "=")
	if !ok || vals == "" {
		return usageErr("sweep: --vary key=v1,v2,... is required")
	}
	if err := engine.UnknownKnobFor(spec, knob); err != nil {
		return usageErr("--vary %q: %v", clipArg(vary), err)
	}
	if len(o.do) > 0 && !hasAt {
		return usageErr("--do %s: at what moment? give it with --at CLOCK", o.do[0])
	}
	acts, err := parseDo(o.do, spec, seed, nil)
	if err != nil {
		return err
	}
	mem, err := o.mem.bytes()
	if err != nil {
		return err
	}
	defer backstop(mem)()
	var sums []engine.Summary
	var labels []string
	atText := o.at
	for _, v := range strings.Split(vals, ",") {
		st, err := engine.ParseSettingFor(spec, knob+"="+v)
		if err != nil {
			return usageErr("--vary: %v", err)
		}
		changes := append(append([]engine.Setting(nil), set...), st)
		o := engine.RunOptions{Seed: seed, Budget: engine.Budget{Bytes: mem, BytesFlag: "--max-memory-mb"}}
		if hasAt {
			o.HasAt, o.At, o.AtSet, o.AtDo = true, at, changes, acts
		} else {
			o.Set = changes
		}
		if err := checkChanges(spec, changes, "--vary"); err != nil {
			return err
		}
		sum, w, err := engine.Run(spec, o)
		if err != nil {
			return budgetStop(err)
		}
		if hasAt && at > w.Stats.LastEvent { // as run refuses it
			return usageErr("--at %s is after the run ends (%s): the change would act on nothing", atText, w.Stats.LastEvent.Short())
		}
		sum.Code = engine.RunCode(spec, o, w).String()
		sums = append(sums, sum)
		labels = append(labels, knob+"="+strings.TrimSpace(v))
	}
	if o.format == "json" {
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
	crashed := false
	for _, s := range sums {
		crashed = crashed || s.WorstRecovery != nil
	}
	if crashed { // a row only where a worker crashed or wedged holding a message
		fmt.Fprintf(tw, "worst_recovery_s\t")
		for _, s := range sums {
			v := "none"
			if s.WorstRecovery != nil {
				v = fmt.Sprint(s.WorstRecovery.WaitS)
			}
			fmt.Fprintf(tw, "%s\t", v)
		}
		fmt.Fprintln(tw)
	}
	if hasAt {
		what := "changes"
		if len(acts) > 0 {
			what = "changes and " + strings.Join(o.do, ", ")
		}
		fmt.Fprintf(tw, "(%s from %s)\t\n", what, at.Short())
	}
	return tw.Flush()
}
