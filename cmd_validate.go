package main

import (
	"fmt"
	"io"

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
	if _, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, MaxSteps: 1}); err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
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
	qs := ""
	if questions > 0 {
		qs = fmt.Sprintf(", %d questions", questions)
	}
	fmt.Fprintf(stdout, "%s: ok (incident %s, %d published figures, %d forks%s)\n", fs.Arg(0), spec.ID, len(spec.Expect), len(spec.Forks), qs)
	return nil
}
