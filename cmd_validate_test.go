package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateQuestions: validate counts an incident's questions, and
// refuses a wrong one at its line and column.
func TestValidateQuestions(t *testing.T) {
	out, errOut, code := runCLI("validate", "incidents/thursday.yaml")
	if code != 0 || !strings.Contains(out, ", 2 questions, 3 properties)") {
		t.Fatalf("validate thursday: %d %q %q", code, out, errOut)
	}
	// one of a thing is not "1 forks" or "1 questions"
	out, errOut, code = runCLI("validate", "incidents/christmas-friday.yaml")
	if code != 0 || !strings.Contains(out, "9 published figures, 1 fork, 1 question, 2 properties)") {
		t.Fatalf("validate christmas-friday: %d %q %q", code, out, errOut)
	}
	data, err := os.ReadFile("incidents/thursday.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), `    proof: "19:52:34"`, `    proof: "19:52:00"`, 1)
	if src == string(data) {
		t.Fatal("thursday's question 5 moved")
	}
	bad := filepath.Join(t.TempDir(), "thursday.yaml")
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI("validate", bad)
	if code != 2 || !strings.Contains(errOut, "thursday.yaml:") || !strings.Contains(errOut, ": proof at 19:52:00 is not after the question's moment (19:52:30)") {
		t.Errorf("validate with a proof before its question: %d %q", code, errOut)
	}
}
