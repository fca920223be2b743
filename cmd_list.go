package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"inflight/incidents"
)

var listCommand = command{
	name:     "list",
	synopsis: "inflight list",
	summary:  "bundled incidents",
	options:  func() options { return &listOptions{} },
}

type listOptions struct{}

func (o *listOptions) flags(fs *pflag.FlagSet) {}

func (o *listOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	if fs.NArg() > 0 {
		return usageErr("list takes no arguments")
	}
	for _, s := range incidents.All() {
		fmt.Fprintf(stdout, "%-18s %s\n", s.ID, s.Title)
	}
	return nil
}
