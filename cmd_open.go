package main

import (
	"errors"
	"io"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/tui"
)

var openCommand = command{
	name:     "open",
	synopsis: "inflight open CODE",
	summary:  "open the explorer at a share code",
	options:  func() options { return &openOptions{} },
}

type openOptions struct {
	file   string
	budget budgetFlags
}

func (o *openOptions) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.file, "incident-file", "", "the incident file the code was made on (for incidents that are not bundled)")
	o.budget.add(fs)
}

func (o *openOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	budget, err := o.budget.budget()
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("open: want one share code, e.g. inflight open 'thursday@1#812.3f2a9c1b'")
	}
	spec, code, err := specForCode(fs.Arg(0), o.file)
	if err != nil {
		return err
	}
	// open the code before taking over the terminal, so a bad one is a
	// plain one-line error
	x, err := engine.OpenCodeWithin(code, spec, budget, nil, nil)
	if over := (*engine.BudgetError)(nil); errors.As(err, &over) {
		return err // exit 1: the code is fine, the budget too small for it
	}
	if err != nil {
		return usageErr("%v", err)
	}
	return tui.Run(tui.Options{Spec: spec, Explorer: x, Opened: &code, Shared: tui.NewShared(budget, nil, 0)})
}
