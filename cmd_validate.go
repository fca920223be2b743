package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
	"inflight/plan"
)

var validateCommand = command{
	name:     "validate",
	synopsis: "inflight validate FILE",
	summary:  "check an incident file or a workshop's plan",
	options:  func() options { return &validateOptions{} },
}

type validateOptions struct {
	maxEvents int64
}

func (o *validateOptions) flags(fs *pflag.FlagSet) {
	fs.Int64Var(&o.maxEvents, "max-events", incidents.DefaultValidateEvents, "play the incident's run at most this many events to check the file against its end")
}

func (o *validateOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	if fs.NArg() != 1 {
		return usageErr("validate: want one incident file")
	}
	if o.maxEvents <= 0 {
		return usageErr("--max-events %d: want a positive number of events", o.maxEvents)
	}
	data, err := incidents.ReadCapped(fs.Arg(0))
	if err == nil && plan.Is(data) { // a workshop's plan: a top-level plan: key
		return validatePlan(fs.Arg(0), data, stdout, stderr)
	}
	var spec *engine.Spec
	var rc incidents.RunCheck
	if err == nil {
		spec, rc, err = incidents.Validate(fs.Arg(0), data, o.maxEvents)
	}
	if err != nil {
		// one problem a line, each with its position, like a compiler; a
		// file with problems is bad input, exit 2, as run and check say
		fmt.Fprintln(stderr, err)
		return &exitError{code: 2} // said above
	}
	// questions (exercises with choices) were checked by Load: two to
	// five choices, the answer among them, the bookmark one of the
	// incident's, the proof after the question's moment
	questions := 0
	for _, ex := range spec.Exercises {
		if len(ex.Choices) > 0 {
			questions++
		}
	}
	more := ""
	if questions > 0 {
		more = fmt.Sprintf(", %d question%s", questions, plural(questions))
	}
	if n := len(spec.Properties); n > 0 {
		more += fmt.Sprintf(", %d propert%s", n, map[bool]string{true: "y", false: "ies"}[n == 1])
	}
	if rc.Skipped != "" {
		// the file may be fine; validate cannot tell, and says so
		fmt.Fprintf(stderr, "%s: bookmarks, forks and messages not checked against the run's end: %s\n", fs.Arg(0), rc.Skipped)
		more += ", not checked against its run"
	}
	fmt.Fprintf(stdout, "%s: ok (incident %s, %d published figure%s, %d fork%s%s)\n", fs.Arg(0), spec.ID,
		len(spec.Expect), plural(len(spec.Expect)), len(spec.Forks), plural(len(spec.Forks)), more)
	return nil
}

// validatePlan checks a plan file: every beat against its bundled
// incident (its moment or bookmark, its question).
func validatePlan(name string, data []byte, stdout, stderr io.Writer) error {
	p, err := plan.Parse(name, data)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return &exitError{code: 2}
	}
	var ids []string
	questions := 0
	for _, b := range p.Beats {
		if len(ids) == 0 || ids[len(ids)-1] != b.Incident {
			ids = append(ids, b.Incident)
		}
		if b.Question != "" {
			questions++
		}
	}
	fmt.Fprintf(stdout, "%s: ok (plan %q, %d beat%s across %s, %d question%s)\n", name, p.Title,
		len(p.Beats), plural(len(p.Beats)), strings.Join(ids, " → "), questions, plural(questions))
	return nil
}
