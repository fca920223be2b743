package main

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// Every command in the table has a name, a line in `inflight help`, and a
// --help that prints its flags and exits 0; the names are unique and reach
// their command.
func TestCommandTable(t *testing.T) {
	help, _, code := runCLI("help")
	if code != 0 {
		t.Fatalf("inflight help: exit %d", code)
	}
	seen := map[string]bool{}
	for i, c := range commands {
		if c.name == "" || c.synopsis == "" || c.summary == "" || c.options == nil {
			t.Errorf("command %d (%q) lacks a name, synopsis, summary or options", i, c.name)
			continue
		}
		if seen[c.name] {
			t.Errorf("two commands are called %q", c.name)
		}
		seen[c.name] = true
		if !strings.HasPrefix(c.synopsis, "inflight ") {
			t.Errorf("%s: synopsis %q does not start with the program's name", c.name, c.synopsis)
		}
		line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.synopsis) + ` {2,}` + regexp.QuoteMeta(c.summary) + `$`)
		if !line.MatchString(help) {
			t.Errorf("%s: inflight help lacks the line %s", c.name, line)
		}
		if c != defaultCommand && lookup(c.name) != c {
			t.Errorf("%s: lookup finds %v", c.name, lookup(c.name))
		}
		var out, errb bytes.Buffer
		if code := exitCodeOf(c.exec([]string{"--help"}, &out, &errb), &errb); code != 0 || errb.Len() != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", c.name, code, errb.String())
		}
		head := c.help
		if head == "" {
			head = "Usage of inflight " + c.name + ":\n"
		}
		if !strings.HasPrefix(out.String(), head) {
			t.Errorf("%s --help prints %q", c.name, out.String())
		}
		fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
		c.options().flags(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Usage == "" || !regexp.MustCompile(`(?m)^ +(-\w, )?--`+regexp.QuoteMeta(f.Name)+`[ []`).MatchString(out.String()) {
				t.Errorf("%s --help lacks --%s, or it has no usage", c.name, f.Name)
			}
		})
	}
	// the explorer is the default: it has no name on the command line
	if lookup(defaultCommand.name) != nil {
		t.Errorf("%q names a command; it should be an incident id", defaultCommand.name)
	}
}

// The one error type carries the exit code: nil is 0, a usage error 2, a
// failure 1, any other error 1; each says one line on stderr (none when
// its command already said it).
func TestExitCodeOf(t *testing.T) {
	cases := []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{usageErr("bad %s", "flag"), 2, "inflight: bad flag\n"},
		{cmdErr(2, "serve", "--jobs must be at least 1"), 2, "inflight serve: --jobs must be at least 1\n"},
		{cmdErr(1, "verify", "interrupted"), 1, "inflight verify: interrupted\n"},
		{&exitError{code: 1}, 1, ""},
		{errors.New("disk on fire"), 1, "inflight: disk on fire\n"},
		{fmt.Errorf("x.yaml: %w", errors.New("no sources")), 1, "inflight: x.yaml: no sources\n"},
		{fmt.Errorf("--vary: %w", usageErr("bad")), 2, "inflight: --vary: bad\n"},
	}
	for _, c := range cases {
		var errb bytes.Buffer
		if got := exitCodeOf(c.err, &errb); got != c.code || errb.String() != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.err, got, errb.String(), c.code, c.stderr)
		}
	}
}
