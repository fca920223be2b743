// Command inflight replays message-queue delivery incidents as
// deterministic simulations: explore them in a terminal UI, run them
// headless for scripts, sweep a knob, or serve a workshop over SSH.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"inflight/engine"
	"inflight/incidents"
	"inflight/tui"
)

const usage = `inflight — step through message-queue incidents, fork them, compare.

Usage:
  inflight [ID] [--incident-file F] [--seed N] [--set k=v]...   open the explorer (default: thursday)
  inflight open CODE                    open the explorer at a share code
  inflight list                         bundled incidents
  inflight run ID [flags]               run to the end, print the summary
  inflight sweep ID --vary k=v1,v2,...  one branch per value, figures side by side
  inflight check                        every bundled incident against its published figures
  inflight validate FILE                check an incident file
  inflight serve [flags]                serve the explorer over SSH for a workshop
  inflight verify cashback [flags]      the lesson's real test (Redis + SQLite) against the model

Run 'inflight COMMAND --help' for a command's flags.
`

// exitError carries an exit code with a one-line message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{2, fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	out := &outWriter{w: stdout}
	code := dispatch(args, out, stderr)
	if out.err != nil && code == 0 {
		fmt.Fprintf(stderr, "inflight: writing the output: %v\n", out.err)
		code = 1
	}
	return code
}

// outWriter remembers stdout's first failed write and fails every write
// after it: output lost to a full disk is a failure, not a success.
type outWriter struct {
	w   io.Writer
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// dispatch runs one command and returns its exit code: 0 success, 1
// failure, 2 usage.
func dispatch(args []string, stdout, stderr io.Writer) int {
	var err error
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "list":
		err = cmdList(args[1:], stdout)
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "sweep":
		err = cmdSweep(args[1:], stdout)
	case "check":
		err = cmdCheck(args[1:], stdout)
	case "validate":
		err = cmdValidate(args[1:], stdout, stderr)
	case "open":
		err = cmdOpen(args[1:], stdout)
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "verify":
		// the consumer child processes of verify come back through here too
		return runVerify(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = cmdExplore(args, stdout)
	}
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "inflight: "+ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "inflight: "+err.Error())
	return 1
}

// flagSet makes a quiet pflag set: errors come back to us as one line.
func flagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs
}

func parseFlags(fs *pflag.FlagSet, args []string, stdout io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "Usage of inflight %s:\n", fs.Name())
			fs.PrintDefaults()
			return &exitError{0, ""}
		}
		return usageErr("%s: %s (see 'inflight %s --help')", fs.Name(), clipArgs(err.Error(), args), fs.Name())
	}
	return nil
}

// clipArgs shortens, in a flag parser's message, every argument longer
// than 40 characters to its start: an error line never echoes a whole
// hostile argument.
func clipArgs(msg string, args []string) string {
	for _, a := range args {
		if c := clipArg(a); c != a {
			msg = strings.ReplaceAll(msg, a, c)
		}
	}
	return msg
}

// incidentFlags are shared by the commands that pick an incident.
type incidentFlags struct {
	file string
	seed uint64
	set  []string
}

func (f *incidentFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.file, "incident-file", "", "load an incident from this file instead of a bundled one")
	fs.Uint64Var(&f.seed, "seed", 0, "the seed (default: the incident's own, which reproduces the lesson)")
	fs.StringArrayVar(&f.set, "set", nil, "change a knob, key=value (repeatable)")
}

// resolve loads the incident named by id (or the file) and parses --set.
func (f *incidentFlags) resolve(fs *pflag.FlagSet, id string) (*engine.Spec, uint64, []engine.Setting, error) {
	var spec *engine.Spec
	var err error
	switch {
	case f.file != "":
		if id != "" {
			return nil, 0, nil, usageErr("give an incident id or --incident-file, not both")
		}
		if spec, err = incidents.Load(f.file); err != nil {
			return nil, 0, nil, usageErr("%v", err)
		}
	default:
		if id == "" {
			id = "thursday"
		}
		if spec, err = incidents.Get(id); err != nil {
			return nil, 0, nil, usageErr("%v", err)
		}
	}
	seed := spec.Seed
	if fs.Changed("seed") {
		seed = f.seed
	}
	var set []engine.Setting
	for _, s := range f.set {
		st, err := engine.ParseSetting(s)
		if err != nil {
			return nil, 0, nil, usageErr("%v", err)
		}
		set = append(set, st)
	}
	// validate the values against the incident now, naming the bad one
	p := spec.Params
	if err := p.Apply(set); err != nil {
		return nil, 0, nil, usageErr("--set %v", err)
	}
	if err := engine.CheckKnobsFor(spec, set); err != nil {
		return nil, 0, nil, usageErr("--set: %v", err)
	}
	return spec, seed, set, nil
}

func oneArg(fs *pflag.FlagSet, what string) (string, error) {
	switch fs.NArg() {
	case 0:
		return "", nil
	case 1:
		return fs.Arg(0), nil
	}
	return "", usageErr("%s: unexpected arguments %s", fs.Name(), strings.Join(fs.Args()[1:], " "))
}

func cmdList(args []string, stdout io.Writer) error {
	fs := flagSet("list")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("list takes no arguments")
	}
	for _, s := range incidents.All() {
		fmt.Fprintf(stdout, "%-18s %s\n", s.ID, s.Title)
	}
	return nil
}

func cmdExplore(args []string, stdout io.Writer) error {
	fs := flagSet("explore")
	var f incidentFlags
	f.add(fs)
	var bf budgetFlags
	bf.add(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	budget, err := bf.budget()
	if err != nil {
		return err
	}
	id, err := oneArg(fs, "incident")
	if err != nil {
		return err
	}
	spec, seed, set, err := f.resolve(fs, id)
	if err != nil {
		return err
	}
	return tui.Run(tui.Options{Spec: spec, Seed: seed, Set: set, Shared: tui.NewShared(budget, nil, 0)})
}

func cmdOpen(args []string, stdout io.Writer) error {
	fs := flagSet("open")
	var file string
	fs.StringVar(&file, "incident-file", "", "the incident file the code was made on (for incidents that are not bundled)")
	var bf budgetFlags
	bf.add(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	budget, err := bf.budget()
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("open: want one share code, e.g. inflight open 'thursday@1#812.3f2a9c1b'")
	}
	spec, code, err := specForCode(fs.Arg(0), file)
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
	return tui.Run(tui.Options{Spec: spec, Explorer: x, Shared: tui.NewShared(budget, nil, 0)})
}

func specForCode(s, file string) (*engine.Spec, engine.Code, error) {
	code, err := engine.ParseCode(s)
	if err != nil {
		return nil, code, usageErr("%v", err)
	}
	var spec *engine.Spec
	if file != "" {
		spec, err = incidents.Load(file)
	} else {
		spec, err = incidents.Get(code.Incident)
	}
	if err != nil {
		return nil, code, usageErr("%v", err)
	}
	return spec, code, nil
}
