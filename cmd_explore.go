package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"inflight/internal/savedtree"
	"inflight/tui"
)

// exploreCommand is the default command: `inflight [ID]`.
var exploreCommand = command{
	name:     "explore",
	synopsis: "inflight [ID] [--incident-file F] [--seed N] [--set k=v]... [--fresh]",
	summary:  "open the explorer (default: thursday)",
	options:  func() options { return &exploreOptions{} },
}

type exploreOptions struct {
	incident incidentFlags
	budget   budgetFlags
	fresh    bool
}

func (o *exploreOptions) flags(fs *pflag.FlagSet) {
	o.incident.add(fs)
	o.budget.add(fs)
	fs.BoolVar(&o.fresh, "fresh", false, "start on the lesson's run without offering the branches saved when you last quit (a quit with branches still replaces them)")
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
	keep, err := o.keep()
	if err != nil { // the explorer still opens; its branches are not kept
		fmt.Fprintf(stderr, "inflight: branches will not be saved on quit: %v\n", err)
	}
	// the explorer takes over the terminal
	m, err := tui.New(tui.Options{Spec: spec, Seed: seed, SeedSet: true, Set: set, Shared: tui.NewShared(budget, nil, 0), Keep: keep})
	if err != nil {
		return err
	}
	return tui.Run(m)
}

// keep is where this explorer keeps its branch tree between runs: the
// user's state directory, by incident (and incident file).
func (o *exploreOptions) keep() (*tui.Keep, error) {
	dir, err := savedtree.Dir()
	if err != nil {
		return nil, err
	}
	return &tui.Keep{Dir: dir, File: o.incident.file, Fresh: o.fresh}, nil
}
