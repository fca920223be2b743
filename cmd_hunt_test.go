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
	if code != 0 || !strings.HasSuffix(out, "2 forks, 1 question, 3 properties)\n") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

// hunt --code hunts the branch a share code names as x does: judged from
// its last fork on, and says so. On thursday's 60 s fork at 19:52:00 the
// duplicates before the fork do not count; a crash after order 14's email
// leaves does.
func TestHuntCodeJudgesFromTheFork(t *testing.T) {
	const code = "thursday@1/p178@19:52:00;visibility_timeout=60s#178.62cae6bd~2;n1=v60"
	out, errOut, exit := runCLI("hunt", "--code", code, "--property", "one-email", "--depth", "1")
	for _, want := range []string{
		"judged    after 19:52:00 #178, the branch's fork: what went wrong before it does not count\n",
		"broken    by a branch forcing 1 fault\n",
		"got order 14: effects 2\n",
		"code      thursday@1/p178@19:52:00;visibility_timeout=60s/p181@19:52:00;fault=after_effect:14.1#",
	} {
		if exit != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", exit, want, out, errOut)
		}
	}
	out, _, exit = runCLI("hunt", "--code", code, "--property", "one-email", "--depth", "1", "--faults", "off", "--budget", "567")
	if exit != 0 || !strings.HasSuffix(out, "the depth-1 space (567 branches) was exhausted\nnot found: no branch up to depth 1 breaks one-email after 19:52:00 #178\n") {
		t.Errorf("latencies alone: exit %d:\n%s", exit, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hunt", "thursday", "--code", code, "--property", "one-email"}, "inflight: hunt --code: the code names the incident, seed and changes; give no ID, --set or --seed"},
		{[]string{"hunt", "--code", code, "--property", "one-email", "--at", "19:51:00"}, "inflight: a hunt on a branch starts at or after its last fork (19:52:00), not 19:51:00"},
		{[]string{"hunt", "--code", strings.Replace(code, "62cae6bd", "62cae6be", 1), "--property", "one-email"}, "does not match"},
	} {
		_, errOut, exit := runCLI(c.args...)
		if exit != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, exit, errOut, c.want)
		}
	}
}
