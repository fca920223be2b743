package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"inflight/internal/termtext"
)

// A command is one entry of the command table: how it is called, what it
// does, its flags and its run. It lives in its own file, cmd_NAME.go.
type command struct {
	name     string // its first argument
	synopsis string // how it is called, in `inflight help`
	summary  string // what it does, in `inflight help`
	help     string // above the flags in `inflight NAME --help`; "" is "Usage of inflight NAME:"
	// options makes the command's options, whose flags the table parses
	// before it calls their run.
	options func() options
}

// options are one command's flags and its run. run writes only to the
// stdout and stderr it is given; its error carries the exit code (see
// exitError), and any other error is a failure, exit 1.
type options interface {
	flags(fs *pflag.FlagSet)
	run(fs *pflag.FlagSet, stdout, stderr io.Writer) error
}

// flagErrorer is an options that words its own flag errors; the others
// get flagError's line.
type flagErrorer interface {
	flagError(err error, args []string) error
}

// commands is the command table, in the order `inflight help` lists it.
// The first, the explorer, is the default: `inflight [ID]` runs it, and it
// has no name on the command line.
var commands = []*command{
	&exploreCommand, &openCommand, &listCommand, &runCommand, &sweepCommand,
	&checkCommand, &validateCommand, &huntCommand, &serveCommand, &verifyCommand, &importCommand,
}

var defaultCommand = commands[0]

// lookup is the command called name, or nil.
func lookup(name string) *command {
	for _, c := range commands[1:] {
		if c.name == name {
			return c
		}
	}
	return nil
}

// exec parses the command's flags from args (everything after its name)
// and runs it. --help prints its help and flags to stdout, exit 0.
func (c *command) exec(args []string, stdout, stderr io.Writer) error {
	o := c.options()
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors come back to us, as one line
	fs.SortFlags = false
	o.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			help := c.help
			if help == "" {
				help = fmt.Sprintf("Usage of inflight %s:\n", c.name)
			}
			io.WriteString(stdout, help)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		if fe, ok := o.(flagErrorer); ok {
			return fe.flagError(err, args)
		}
		return flagError(fs.Name(), err, args)
	}
	return o.run(fs, stdout, stderr)
}

// flagError is the usage error for a flag the parser refused.
func flagError(name string, err error, args []string) error {
	return usageErr("%s: %s (see 'inflight %s --help')", name, clipArgs(err.Error(), args), name)
}

// exitError is an error with the process's exit code: 1 failure, 2 usage.
// Its message is one line for stderr, "inflight: MSG", or "inflight CMD:
// MSG" when cmd names the command that speaks (serve and verify, whose
// lines sit among their logs); an empty message says nothing more (the
// command already did).
type exitError struct {
	code int
	cmd  string
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageErr is a usage error, exit 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// cmdErr is an error with the exit code given, spoken by the command cmd.
func cmdErr(code int, cmd, format string, args ...any) error {
	return &exitError{code: code, cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// exitCodeOf says err on stderr and returns the exit code it carries: 0 for
// nil, the code of the exitError it wraps, 1 for any other error. The
// message passes the text guard: it may quote a value from a file, a code
// or the command line that no quoting on the way escaped.
func exitCodeOf(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	say := func(prefix string) {
		fmt.Fprintln(stderr, prefix+termtext.Clean(err.Error(), termtext.Message))
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		say("inflight: ")
		return 1
	}
	switch {
	case ee.msg == "":
	case ee.cmd != "":
		say("inflight " + ee.cmd + ": ")
	default:
		say("inflight: ")
	}
	return ee.code
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

// clipArg is the start of an argument for an error line.
func clipArg(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
