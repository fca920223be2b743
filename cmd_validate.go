package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
)

var validateCommand = command{
	name:     "validate",
	synopsis: "inflight validate FILE",
	summary:  "check an incident file",
	options:  func() options { return &validateOptions{} },
}

type validateOptions struct{}

func (o *validateOptions) flags(fs *pflag.FlagSet) {}

func (o *validateOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	if fs.NArg() != 1 {
		return usageErr("validate: want one incident file")
	}
	spec, err := incidents.Load(fs.Arg(0))
	if err != nil {
		// one problem a line, each with its position, like a compiler
		fmt.Fprintln(stderr, err)
		return &exitError{code: 1} // said above
	}
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, MaxSteps: 1})
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if err := checkPropertyKeys(spec, sum); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Arg(0), err)
		return &exitError{code: 1}
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
	fmt.Fprintf(stdout, "%s: ok (incident %s, %d published figure%s, %d fork%s%s)\n", fs.Arg(0), spec.ID,
		len(spec.Expect), plural(len(spec.Expect)), len(spec.Forks), plural(len(spec.Forks)), more)
	return nil
}

// checkPropertyKeys makes sure every property's checks read a figure the
// run has (a summary key, figures.NAME or message.N.FIELD): a check of a
// figure that does not exist could never be broken, and a hunt for it
// would search for nothing.
func checkPropertyKeys(spec *engine.Spec, sum engine.Summary) error {
	flat := sum.Flat()
	for _, p := range spec.Properties {
		for _, c := range p.Checks {
			if _, ok := flat[c.Key]; ok {
				continue
			}
			if parts := strings.Split(c.Key, "."); len(parts) == 3 && parts[0] == "message" && slices.Contains(incidents.MessageFields, parts[2]) {
				if _, err := strconv.Atoi(parts[1]); err == nil {
					continue
				}
			}
			return fmt.Errorf("property %s: %q is not a figure this incident's run gives", p.Name, clipArg(c.Key))
		}
	}
	return nil
}
