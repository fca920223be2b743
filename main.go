// Command inflight replays message-queue delivery incidents as
// deterministic simulations: explore them in a terminal UI, run them
// headless for scripts, sweep a knob, or serve a workshop over SSH.
//
// Every command is one file (cmd_*.go) holding its entry in the command
// table (command.go): its usage, its flags, and a run that writes only to
// the stdout and stderr it is given and returns an error carrying the exit
// code.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"inflight/verify"
)

func main() {
	// verify's consumer processes are this binary too, started by
	// `inflight verify` with verify.ConsumerEnv set: hand them over before
	// any argument is read.
	if verify.IsConsumer() {
		os.Exit(verify.ConsumerMain())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line and returns the process's exit code: 0
// success, 1 failure, 2 usage.
func run(args []string, stdout, stderr io.Writer) int {
	out := &outWriter{w: stdout}
	code := exitCodeOf(dispatch(args, out, stderr), stderr)
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

// dispatch finds the command args name in the table and runs it; a first
// argument that names no command is the explorer's (`inflight [ID]`).
func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "--help":
			_, err := io.WriteString(stdout, usage())
			return err
		}
		if c := lookup(args[0]); c != nil {
			return c.exec(args[1:], stdout, stderr)
		}
	}
	return defaultCommand.exec(args, stdout, stderr)
}

// usage is `inflight help`: one line a command, from the table.
func usage() string {
	var b strings.Builder
	b.WriteString("inflight — step through message-queue incidents, fork them, compare.\n\nUsage:\n")
	for _, c := range commands {
		// the summaries line up at column 40; a synopsis too long for
		// that keeps three spaces before its summary
		gap := 38 - len(c.synopsis)
		if gap < 1 {
			gap = 3
		}
		fmt.Fprintf(&b, "  %s%s%s\n", c.synopsis, strings.Repeat(" ", gap), c.summary)
	}
	b.WriteString("\nRun 'inflight COMMAND --help' for a command's flags.\n")
	return b.String()
}
