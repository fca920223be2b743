package main

import (
	"io"

	"github.com/spf13/pflag"

	"inflight/tui"
)

// exploreCommand is the default command: `inflight [ID]`.
var exploreCommand = command{
	name:     "explore",
	synopsis: "inflight [ID] [--incident-file F] [--seed N] [--set k=v]...",
	summary:  "open the explorer (default: thursday)",
	options:  func() options { return &exploreOptions{} },
}

type exploreOptions struct {
	incident incidentFlags
	budget   budgetFlags
}

func (o *exploreOptions) flags(fs *pflag.FlagSet) {
	o.incident.add(fs)
	o.budget.add(fs)
}

func (o *exploreOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	budget, err := o.budget.budget()
	if err != nil {
		return err
	}
	id, err := oneArg(fs)
	if err != nil {
		return err
	}
	spec, seed, set, err := o.incident.resolve(fs, id)
	if err != nil {
		return err
	}
	// the explorer takes over the terminal
	m, err := tui.New(tui.Options{Spec: spec, Seed: seed, SeedSet: true, Set: set, Shared: tui.NewShared(budget, nil, 0)})
	if err != nil {
		return err
	}
	return tui.Run(m)
}
