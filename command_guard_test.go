package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestErrorLineGuarded: an error that quotes a hostile value raw reaches
// the terminal without its escapes, overrides or length; one that quotes
// several lines (a file's problems) keeps its lines.
func TestErrorLineGuarded(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("unknown incident \x1b]0;pwned\x07\u202e\x1b[2J"), "inflight: unknown incident ]0;pwned[2J\n"},
		{cmdErr(2, "serve", "bad\r--stage\x00"), "inflight serve: bad --stage\n"},
		{errors.New("a.yaml:1:1: one\na.yaml:2:1: two"), "inflight: a.yaml:1:1: one\na.yaml:2:1: two\n"},
	} {
		var errb bytes.Buffer
		exitCodeOf(c.err, &errb)
		if errb.String() != c.want {
			t.Errorf("%q: said %q, want %q", c.err, errb.String(), c.want)
		}
	}
	var errb bytes.Buffer
	exitCodeOf(errors.New(strings.Repeat("x", 1<<20)), &errb)
	if n := errb.Len(); n > 100_000 {
		t.Errorf("a megabyte of error came out as %d bytes", n)
	}
}
