package main

import (
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

// The explorer keeps its tree in the XDG state directory, by the incident
// file it was started on; --fresh skips the offer.
func TestExploreKeep(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	for _, tc := range []struct {
		args  []string
		fresh bool
		file  string
	}{
		{nil, false, ""},
		{[]string{"--fresh"}, true, ""},
		{[]string{"--fresh", "--incident-file", "my.yaml"}, true, "my.yaml"},
	} {
		o := &exploreOptions{}
		fs := pflag.NewFlagSet("explore", pflag.ContinueOnError)
		o.flags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		k, err := o.keep()
		if err != nil {
			t.Fatal(err)
		}
		if k.Dir != filepath.Join(dir, "inflight") || k.Fresh != tc.fresh || k.File != tc.file {
			t.Errorf("%v: %+v", tc.args, *k)
		}
	}
}
