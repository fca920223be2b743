package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand: run --otlp, import, check on the imported file, the
// same figures; bad input exits 2 with one line.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	spans := filepath.Join(dir, "thursday.otlp")
	out := filepath.Join(dir, "mine.yaml")
	if _, stderr, code := runCLI("run", "thursday", "--otlp", spans); code != 0 {
		t.Fatalf("run --otlp: exit %d: %s", code, stderr)
	}
	_, stderr, code := runCLI("import", spans, "-o", out)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "inferred visibility_timeout=30s from 216 gaps") {
		t.Errorf("import does not say what it inferred the visibility timeout from:\n%s", stderr)
	}
	stdout, stderr, code := runCLI("check", "--incident-file", out)
	if code != 0 || !strings.Contains(stdout, "8 passed, 0 failed") {
		t.Fatalf("check: exit %d:\n%s%s", code, stdout, stderr)
	}
	// --set wins over what the spans show
	if stdout, _, code := runCLI("import", spans, "--set", "visibility_timeout=60s"); code != 0 || !strings.Contains(stdout, "visibility_timeout: 60s") {
		t.Fatalf("import --set: exit %d:\n%.400s", code, stdout)
	}
	// a run its budget stopped is not exported
	cut := filepath.Join(dir, "cut.otlp")
	if _, _, code := runCLI("run", "thursday", "--otlp", cut, "--max-events", "100"); code != 2 {
		t.Errorf("run --otlp --max-events 100: exit %d, want 2", code)
	}
	if _, err := os.Stat(cut); err == nil {
		t.Errorf("run --otlp wrote a run its budget stopped")
	}
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("not json\n"), 0o644)
	for _, args := range [][]string{
		{"import", junk},
		{"import", spans, "--set", "colour=blue"},
		{"import", spans, "--set", "visibility_timeout"},
		{"import", filepath.Join(dir, "absent")},
		{"import"},
	} {
		_, stderr, code := runCLI(args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line", args, code, stderr)
		}
	}
}

// TestImportStreamsCommand: a cashback run as Redis Streams spans, imported,
// passes check; what the contract cannot write is refused in one line with
// no file left behind.
func TestImportStreamsCommand(t *testing.T) {
	dir := t.TempDir()
	spans := filepath.Join(dir, "cashback.otlp")
	out := filepath.Join(dir, "mine.yaml")
	if _, stderr, code := runCLI("run", "cashback", "--set", "events=400", "--set", "crash_p=0.05", "--set", "dedupe=true", "--otlp", spans); code != 0 {
		t.Fatalf("run --otlp: exit %d: %s", code, stderr)
	}
	_, stderr, code := runCLI("import", spans, "-o", out)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"inferred dedupe=true from", "inferred crash_p=0.03614 from 15 crashes in 415 handled deliveries", "inferred restart_after=1s from 15 gaps"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("import does not say %q:\n%s", want, stderr)
		}
	}
	stdout, stderr, code := runCLI("check", "--incident-file", out)
	if code != 0 || !strings.Contains(stdout, "9 passed, 0 failed") {
		t.Fatalf("check: exit %d:\n%s%s", code, stdout, stderr)
	}
	if stdout, _, code := runCLI("import", spans, "--set", "crash_p=0"); code != 0 || !strings.Contains(stdout, "crash_p: 0\n") {
		t.Fatalf("import --set crash_p=0: exit %d:\n%.600s", code, stdout)
	}
	// dedupe=separate: the processed set's SADD spans, in redis
	sep, sepYAML := filepath.Join(dir, "sep.otlp"), filepath.Join(dir, "sep.yaml")
	if _, stderr, code := runCLI("run", "cashback", "--set", "events=50", "--set", "dedupe=separate", "--set", "crash_p=0.1", "--otlp", sep); code != 0 {
		t.Fatalf("run dedupe=separate --otlp: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI("import", sep, "-o", sepYAML); code != 0 || !strings.Contains(stderr, "inferred dedupe=separate from") {
		t.Fatalf("import of dedupe=separate: exit %d: %s", code, stderr)
	}
	if stdout, stderr, code := runCLI("check", "--incident-file", sepYAML); code != 0 || !strings.Contains(stdout, "9 passed, 0 failed") {
		t.Fatalf("check of dedupe=separate: exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"import", spans, "--set", "visibility_timeout=30s"},
		{"run", "cashback", "--set", "events=50", "--at", "10:00:00.020", "--set", "dedupe=true", "--otlp", filepath.Join(dir, "at.otlp")},
	} {
		_, stderr, code := runCLI(args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line", args, code, stderr)
		}
	}
	for _, f := range []string{"at.otlp"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("run --otlp wrote %s, which it refused", f)
		}
	}
}
