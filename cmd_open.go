package main

import (
	"io"

	"github.com/spf13/pflag"

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
	// plain one-line error, with the exit status serve's open gives it
	m, err := tui.New(tui.Options{Spec: spec, Code: &code, Shared: tui.NewShared(budget, nil, 0)})
	if err != nil {
		return &exitError{code: tui.OpenStatus(err), msg: err.Error()}
	}
	return tui.Run(m)
}
