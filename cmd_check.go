package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
)

var checkCommand = command{
	name:     "check",
	synopsis: "inflight check",
	summary:  "every bundled incident against its published figures",
	options:  func() options { return &checkOptions{} },
}

type checkOptions struct {
	file string
}

func (o *checkOptions) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.file, "incident-file", "", "check this incident file instead of the bundled incidents")
}

func (o *checkOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	if fs.NArg() > 0 {
		return usageErr("check takes no arguments (it checks every bundled incident; --incident-file F checks one file)")
	}
	specs := incidents.All()
	if o.file != "" {
		// as validate reads it, run-end checks and all: a file validate
		// refuses is bad input here too (exit 2)
		s, rc, err := incidents.ValidateFile(o.file, incidents.DefaultValidateEvents)
		if err != nil {
			return usageErr("%v", err)
		}
		if rc.Skipped != "" {
			fmt.Fprintf(stderr, "%s: bookmarks, forks and messages not checked against the run's end: %s\n", o.file, rc.Skipped)
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
		return fmt.Errorf("%d published figure(s) not reproduced", bad)
	}
	return nil
}
