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
	if code != 0 || !strings.Contains(out, ", 4 questions, 3 properties)") {
		t.Fatalf("validate thursday: %d %q %q", code, out, errOut)
	}
	// one of a thing is not "1 forks" or "1 questions"
	out, errOut, code = runCLI("validate", "incidents/christmas-friday.yaml")
	if code != 0 || !strings.Contains(out, "9 published figures, 1 fork, 2 questions, 2 properties)") {
		t.Fatalf("validate christmas-friday: %d %q %q", code, out, errOut)
	}
	out, errOut, code = runCLI("validate", "incidents/db-down.yaml")
	if code != 0 || !strings.Contains(out, ", 1 question, 2 properties)") {
		t.Fatalf("validate db-down: %d %q %q", code, out, errOut)
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

// TestValidateRefusesMistakes is issue 20's list of files validate used to
// accept, each an edit of the worked example: every one is refused with
// its line and column and a reason, exit 2, and check --incident-file
// refuses it the same way; run --incident-file, which reads the file
// without playing it first, refuses the ones that need no run, with the
// same exit code.
func TestValidateRefusesMistakes(t *testing.T) {
	data, err := os.ReadFile("docs/example-incident.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		name, old, new string
		where, why     string
		needsRun       bool // found by playing the run: not by run --incident-file
	}{
		{"fork before the start", `    at: "14:10:00"`, `    at: "13:00:00"`, ":87:9:", "fork at 13:00:00 is before the incident starts (14:00:00)", false},
		{"fork after the end", `    at: "14:10:00"`, `    at: "23:00:00"`, ":87:9:", "fork at 23:00:00 is after the run ends (14:19:47.978)", true},
		{"fork sets a knob the incident does not read", "    set: {visibility_timeout: 20s}\n    expect: {effects", "    set: {visibility_timeout: 20s, orders: 100}\n    expect: {effects", ":84:44:", `knob "orders" does not apply to this incident (its knobs: ack, claim,`, false},
		{"fork sets another family's knob", "    set: {visibility_timeout: 20s}\n    expect: {effects", "    set: {breaker: true}\n    expect: {effects", ":84:20:", `knob "breaker" does not apply to this incident`, false},
		{"bookmark at 99999:00:00", `  - at: "14:01:00"`, `  - at: "99999:00:00"`, ":52:9:", "bookmark at 99999:00:00 is after the run ends (14:19:47.978): ] would move the clock past the end", true},
		{"bookmark after the end", `  - at: "14:01:10.5"`, `  - at: "14:19:48"`, ":62:9:", "bookmark at 14:19:48 is after the run ends (14:19:47.978)", true},
		{"bookmark before the start", `  - at: "14:01:00"`, `  - at: "13:59:59"`, ":52:9:", "bookmark at 13:59:59 is before the incident starts (14:00:00)", false},
		{"inverted range", `late_acks_refused: "10..25"`, `late_acks_refused: "25..10"`, ":74:22:", `expect late_acks_refused: range "25..10" is upside down (25 is above 10)`, false},
		{"inverted clock range", `late_acks_refused: "10..25"`, `late_acks_refused: "14:30..14:10"`, ":74:22:", `range "14:30..14:10" is upside down`, false},
		{"featured past the messages", "featured: 3\n", "featured: 99\n", ":13:11:", "featured message 99: this incident publishes messages 0 to 59", false},
		{"misspelt figure", "  messages: 60\n", "  messags: 60\n", ":70:3:", `expect: "messags" is not a figure this incident's run gives (did you mean "messages"?)`, false},
		{"the status line's word for a figure", "  dlq: 0\n", "  dups: 3\n", ":71:3:", `expect: "dups" is not a figure this incident's run gives (did you mean "duplicate_effects"?)`, false},
		{"a family figure without figures.", "  dlq: 0\n", "  dlq_peak: 0\n", ":71:3:", `(did you mean "figures.dlq_peak"?)`, false},
		{"a figure the family does not give", "  dlq: 0\n", "  figures.balance: 0\n", ":71:3:", `"figures.balance" is not a figure this incident's run gives; its family's figures: figures.crashes,`, false},
		{"a message the run never publishes", "  message.3.effects: 2\n", "  message.60.effects: 2\n", ":78:3:", `expect: "message.60.effects": this incident publishes messages 0 to 59`, false},
		{"a message fact that is none", "  message.3.effects: 2\n", "  message.3.efects: 2\n", ":78:3:", `"efects" is not a message's fact (want effects, deliveries, first_effect, last_effect, dlq, dlq_at, gone) (did you mean "effects"?)`, false},
		{"an alert the file does not configure", "  alerts: []\n", "  alert.receipts_lat: \"14:10\"\n", ":76:3:", `no alert "receipts_lat" in the file's alerts (receipts_late) (did you mean "receipts_late"?)`, false},
		{"a fork's misspelt figure", "expect: {effects: 60,", "expect: {efects: 60,", ":85:14:", `fork vt20: expect: "efects" is not a figure this incident's run gives (did you mean "effects"?)`, false},
		{"a YAML error", "title: \"Refund", "title: [\"Refund", ":6:1:", "',' or ']' must be specified", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(string(data), tc.old, tc.new, 1)
			if src == string(data) {
				t.Fatalf("the example has no %q to edit", tc.old)
			}
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runCLI("validate", path)
			line := strings.SplitN(errOut, "\n", 2)[0]
			if code != 2 || !strings.HasPrefix(line, path+tc.where) || !strings.Contains(line, tc.why) {
				t.Fatalf("validate: exit %d, %q; want exit 2 and %s%s … %s", code, errOut, path, tc.where, tc.why)
			}
			// the same file is bad input to check and run too
			_, checkErr, checkCode := runCLI("check", "--incident-file", path)
			if checkCode != 2 || !strings.Contains(checkErr, line) {
				t.Errorf("check: exit %d, %q; want exit 2 and %q", checkCode, checkErr, line)
			}
			_, runErr, runCode := runCLI("run", "--incident-file", path)
			if tc.needsRun {
				if runCode != 0 {
					t.Errorf("run: exit %d, %q", runCode, runErr)
				}
			} else if runCode != 2 || !strings.Contains(runErr, line) {
				t.Errorf("run: exit %d, %q; want exit 2 and %q", runCode, runErr, line)
			}
		})
	}
	if out, errOut, code := runCLI("validate", "docs/example-incident.yaml"); code != 0 || errOut != "" {
		t.Fatalf("the example itself: exit %d, %q %q", code, out, errOut)
	}
}

// TestValidateSaysWhatItDidNotCheck: a run longer than validate's event
// budget is not checked against its end, and validate says so on stderr
// and on its ok line, naming the flag; with the budget raised it is.
func TestValidateSaysWhatItDidNotCheck(t *testing.T) {
	data, err := os.ReadFile("docs/example-incident.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// 3000 refunds, about 24,000 events, and a bookmark hours after the end
	src := strings.Replace(strings.Replace(string(data), "count: 60\n", "count: 3000\n", 1), `  - at: "14:01:10.5"`, `  - at: "99:00:00"`, 1)
	path := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("validate", "--max-events", "5000", path)
	if code != 0 || !strings.Contains(errOut, "not checked against the run's end: the run passed the budget of 5000 events before it ended (raise with --max-events)") ||
		!strings.HasSuffix(out, ", not checked against its run)\n") {
		t.Fatalf("a budget of 5000: exit %d, %q %q", code, out, errOut)
	}
	out, errOut, code = runCLI("validate", "--max-events", "100", path)
	if code != 0 || !strings.Contains(errOut, "the run publishes 3000 messages, more than the budget of 100 events") {
		t.Fatalf("a budget of 100: exit %d, %q %q", code, out, errOut)
	}
	_, errOut, code = runCLI("validate", path)
	if code != 2 || !strings.Contains(errOut, `:62:9: bookmark at 99:00:00 is after the run ends`) {
		t.Fatalf("the default budget: exit %d, %q", code, errOut)
	}
	if _, errOut, code = runCLI("validate", "--max-events", "0", path); code != 2 || !strings.Contains(errOut, "--max-events 0") {
		t.Fatalf("--max-events 0: exit %d, %q", code, errOut)
	}
}
