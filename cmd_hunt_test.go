package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hunt exits 1 with the counterexample, 0 when none is found (saying
// whether the depth's space was exhausted), 2 on bad input; an unknown
// property lists the incident's.
func TestHuntExitCodes(t *testing.T) {
	out, errOut, code := runCLI("hunt", "thursday", "--property", "no-duplicate", "--set", "visibility_timeout=45s", "--set", "latency_max=45s", "--faults", "off", "--depth", "1")
	if code != 1 || !strings.Contains(out, "forced  19:40:20  provider latency, order 0, delivery 1: 45 s") || !strings.Contains(out, "code      thursday@1+") {
		t.Errorf("found: exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	out, _, code = runCLI("hunt", "thursday", "--property", "no-duplicate", "--set", "visibility_timeout=45s", "--faults", "off", "--depth", "1", "--budget", "648")
	if code != 0 || !strings.Contains(out, "branches  648 tried; the depth-1 space (648 branches) was exhausted\nnot found: no branch up to depth 1 breaks no-duplicate\n") {
		t.Errorf("not found: exit %d, stdout:\n%s", code, out)
	}
	out, _, code = runCLI("hunt", "thursday", "--property", "no-duplicate", "--set", "visibility_timeout=45s", "--faults", "off", "--depth", "1", "--budget", "100")
	if code != 0 || !strings.Contains(out, "branches  100 tried; the budget ran out before the depth-1 space was exhausted") {
		t.Errorf("budget spent: exit %d, stdout:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hunt", "thursday-fixed", "--property", "nonesuch"}, `inflight: --property "nonesuch": no such property (thursday-fixed's properties: one-email, its-email, dlq-empty)`},
		{[]string{"hunt", "thursday-fixed"}, `inflight: hunt: which --property? (thursday-fixed's properties: one-email, its-email, dlq-empty)`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--faults", "maybe"}, `inflight: --faults "maybe": want on or off`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--decisions", "some"}, `inflight: --decisions "some": want env or all`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--depth", "0"}, `inflight: --depth 0: want 1 to 8`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--budget", "0"}, `inflight: --budget 0: want a positive number of branches`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--at", "18:00"}, `inflight: --at 18:00 is before the incident starts (19:40:20)`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--at", "23:00"}, `inflight: --at 23:00:00 is after the run ends (21:12:00): there is nothing left to force`},
	} {
		_, errOut, code := runCLI(c.args...)
		if code != 2 || strings.TrimSpace(errOut) != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, code, errOut, c.want)
		}
	}
}

// The same arguments print the same answer on one core and on four.
func TestHuntSameOnAnyCores(t *testing.T) {
	args := []string{"hunt", "thursday", "--property", "one-email", "--set", "visibility_timeout=45s", "--faults", "off", "--budget", "1200", "--format", "json"}
	at := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out, errOut, code := runCLI(args...)
		if code != 0 {
			t.Fatalf("GOMAXPROCS %d: exit %d: %s", procs, code, errOut)
		}
		return out
	}
	if one, four := at(1), at(4); one != four {
		t.Errorf("GOMAXPROCS 1:\n%s\nGOMAXPROCS 4:\n%s", one, four)
	}
}

// validate refuses a property whose check reads a figure the run does not
// give: a hunt for it could never find anything.
func TestValidateChecksPropertyFigures(t *testing.T) {
	data, err := os.ReadFile("incidents/thursday-fixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "      dlq: 0\n", "      figures.nonesuch: 0\n", 1)
	if bad == string(data) {
		t.Fatal("thursday-fixed.yaml has no dlq: 0 check to replace")
	}
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI("validate", path)
	if code != 2 || !strings.Contains(errOut, `property dlq-empty: "figures.nonesuch" is not a figure this incident's run gives; its family's figures: figures.crashes,`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out, _, code := runCLI("validate", "incidents/thursday-fixed.yaml")
	if code != 0 || !strings.HasSuffix(out, "2 forks, 3 properties)\n") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}
