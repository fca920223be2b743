package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A refused run writes nothing: not a line of --trace, no --otlp file,
// whether the refusal comes at the start, at the fork's moment or at the
// run's end.
func TestRunRefusedWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"thursday", "--at", "23:59", "--set", "visibility_timeout=60s"}, "--at 23:59 is after the run ends (21:11:07.296)"},
		{[]string{"thursday", "--at", "21:00", "--set", "visibility_timeout=60s", "--max-events", "100"}, "--at 21:00 is after --max-events 100 stops the run (19:46:52.395)"},
		{[]string{"thursday", "--at", "19:52:00 #181", "--do", "workers=-1", "--do", "crash=A2"}, `action "crash=A2": worker A2 is not running`},
		{[]string{"christmas-friday", "--at", "16:50:01", "--do", "crash=A1"}, `action "crash=A1": worker A1 is not running`},
		{[]string{"--code", "christmas-friday@1/@16:50:01;do=crash=A1#end.00000000"}, `action "crash=A1": worker A1 is not running`},
	} {
		for _, out := range [][]string{{"--trace"}, {"--otlp", "spans.json"}, {"--trace", "--otlp", "spans.json"}} {
			dir := t.TempDir()
			args := append(append([]string{"run"}, tc.args...), out...)
			for i, a := range args {
				if a == "spans.json" {
					args[i] = filepath.Join(dir, a)
				}
			}
			stdout, stderr, code := runCLI(args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d, %q; want exit 2 with %q", args, code, stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("%v: wrote %d bytes of trace before it was refused", args, len(stdout))
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("%v: left %s behind", args, left[0].Name())
			}
		}
	}
}
