package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidatePlan: validate tells a plan file by its plan: key, says
// what it holds, and refuses a bad one at its line, naming the field,
// exit 2, as it refuses an incident file.
func TestValidatePlan(t *testing.T) {
	out, errOut, code := runCLI("validate", "docs/workshop.plan.yaml")
	if code != 0 || !strings.Contains(out, "docs/workshop.plan.yaml: ok (plan ") || !strings.Contains(out, "beats across thursday → thursday-fixed → thursday → christmas-friday") {
		t.Fatalf("validate the docs' plan: %d %q %q", code, out, errOut)
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, src, want string }{
		{"unknown question", "plan: P\nbeats:\n  - incident: thursday\n    at: \"19:52:00\"\n    question: \"9\"\n    title: T\n", `bad.yaml:5:15: beats[0].question: thursday has no exercise "9"`},
		{"unknown key", "plan: P\nbeats:\n  - incident: thursday\n    at: \"19:52:00\"\n    title: T\n    slide: 3\n", `bad.yaml:6:5: unknown key "slide" in beats[0]`},
		{"an incident file's key", "plan: P\nid: thursday\nbeats: []\n", `bad.yaml:2:1: unknown key "id"`},
	} {
		f := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(f, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI("validate", f)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q %q; want %q", c.name, code, out, errOut, c.want)
		}
	}
	// an incident file is still an incident file
	if out, _, code := runCLI("validate", "incidents/thursday-fixed.yaml"); code != 0 || !strings.Contains(out, "ok (incident thursday-fixed") {
		t.Errorf("an incident: %d %q", code, out)
	}
}

// TestServeRefusesABadPlan: serve --plan with a bad plan exits 2 with
// the plan's problems before it binds its address (a busy one would say
// so) or writes its host key.
func TestServeRefusesABadPlan(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.plan.yaml")
	if err := os.WriteFile(bad, []byte("plan: P\nbeats:\n  - incident: thursday\n    bookmark: \"The end\"\n    title: T\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "sub", "host_key")
	for _, p := range []string{bad, filepath.Join(dir, "none.yaml")} {
		_, errOut, code := runCLI("serve", "--plan", p, "--listen", busy.Addr().String(), "--host-key", key)
		if code != 2 || !strings.Contains(errOut, "--plan") || strings.Contains(errOut, "address already in use") {
			t.Errorf("serve --plan %s: exit %d, %q", p, code, errOut)
		}
		if p == bad && !strings.Contains(errOut, `bad.plan.yaml:4:15: beats[0].bookmark: thursday has no bookmark titled "The end"`) {
			t.Errorf("serve --plan: %q does not say where", errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); err == nil {
		t.Error("a host key was written")
	}
}
