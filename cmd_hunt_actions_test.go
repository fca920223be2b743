package main

import (
	"regexp"
	"strings"
	"testing"
)

// hunt --actions takes operator actions as moves: on thursday-fixed with
// faults off only an operator's crash sends an order two emails; the
// find's share code carries the crash (;do=) and run --code replays it to
// the duplicate. Unknown names are refused with the family's actions.
func TestHuntActions(t *testing.T) {
	out, errOut, exit := runCLI("hunt", "thursday-fixed", "--property", "one-email", "--faults", "off", "--actions", "crash,redrive", "--budget", "1500")
	for _, want := range []string{
		"broken    by a branch forcing 1 action\n",
		"  forced  19:40:50  operator: crash A1\n",
		"got order 0: effects 2\n",
	} {
		if exit != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", exit, want, out, errOut)
		}
	}
	code := regexp.MustCompile(`(?m)^code      (\S+)$`).FindStringSubmatch(out)
	if code == nil || !strings.Contains(code[1], ";do=crash=A1") {
		t.Fatalf("no code carrying do=crash=A1:\n%s", out)
	}
	again, _, _ := runCLI("hunt", "thursday-fixed", "--property", "one-email", "--faults", "off", "--actions", "crash,redrive", "--budget", "1500")
	if again != out {
		t.Errorf("the same hunt twice:\n%s\n%s", out, again)
	}
	run, errOut, exit := runCLI("run", "--code", code[1])
	if exit != 0 || !regexp.MustCompile(`(?m)^duplicate_effects +1$`).MatchString(run) {
		t.Errorf("run --code %s: exit %d:\n%s%s", code[1], exit, run, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--actions", "crash,reboot"},
			`inflight: --actions "reboot": incident thursday-fixed's actions are redrive, repair, purge, crash, wedge, workers`},
		{[]string{"hunt", "cashback", "--property", "balance-exact", "--actions", "crash"},
			`inflight: --actions "crash": incident cashback's actions are replay_pending`},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--actions", "a,b,c,d,e,f,g,h,i"},
			`inflight: --actions: 9 names, more than any family declares (at most 8)`},
	} {
		_, errOut, exit := runCLI(c.args...)
		if exit != 2 || strings.TrimSpace(errOut) != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, exit, errOut, c.want)
		}
	}
	help, _, _ := runCLI("hunt", "--help")
	if !strings.Contains(help, "at most 2 in one branch\n") {
		t.Errorf("hunt --help does not say the bound:\n%s", help)
	}
}
