package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"inflight/verify"
	"inflight/verify/fakeredis"
)

func runCLI(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

const mismatch = "this code does not match its incident (edited, mistyped, or made by another version of inflight)"

// The run summary's JSON carries every key scripts read (the README's
// headless section lists them).
func TestRunJSONKeys(t *testing.T) {
	out, errOut, code := runCLI("run", "thursday", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"incident", "seed", "messages", "deliveries", "effects", "duplicate_effects", "lost", "dlq",
		"late_acks_refused", "max_oldest_age_s", "busy", "alerts", "would_have_fired", "end", "trace_sha256", "figures", "code"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	if m["effects"].(float64) != 324 || m["dlq"].(float64) != 108 {
		t.Errorf("effects %v dlq %v", m["effects"], m["dlq"])
	}
}

func TestTraceAnswersJQQuestions(t *testing.T) {
	out, errOut, code := runCLI("run", "thursday", "--trace")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "trace_sha256") {
		t.Errorf("the summary should go to stderr with --trace")
	}
	emails, kinds := 0, map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l struct {
			T        string          `json:"t"`
			Kind     string          `json:"kind"`
			Message  *int            `json:"message"`
			Actor    string          `json:"actor"`
			Caption  string          `json:"caption"`
			Decision json.RawMessage `json:"decision"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if l.T == "" || l.Kind == "" || l.Actor == "" || l.Caption == "" {
			t.Fatalf("line lacks a field: %s", sc.Text())
		}
		kinds[l.Kind] = true
		if l.Kind == "effect" && l.Message != nil && *l.Message == 14 {
			emails++
		}
	}
	if emails != 3 {
		t.Errorf("order 14 got %d emails in the trace, want 3", emails)
	}
	for _, k := range []string{"publish", "deliver", "effect", "ack_refused", "lease_expired", "dlq", "alert"} {
		if !kinds[k] {
			t.Errorf("no %q events in the thursday trace", k)
		}
	}
	// ack, crash and restart appear in the forks that have them
	out, _, _ = runCLI("run", "christmas-friday", "--trace")
	for _, k := range []string{`"kind":"crash"`, `"kind":"restart"`, `"kind":"ack"`} {
		if !strings.Contains(out, k) {
			t.Errorf("christmas-friday trace has no %s", k)
		}
	}
}

func TestAtForkFigures(t *testing.T) {
	out, _, code := runCLI("run", "thursday", "--at", "19:52:00", "--set", "visibility_timeout=60s", "--format", "json")
	if code != 0 {
		t.Fatal(out)
	}
	var s struct {
		Code string `json:"code"`
		Hash string `json:"trace_sha256"`
	}
	json.Unmarshal([]byte(out), &s)
	// the code reproduces the run exactly
	out2, errOut, code := runCLI("run", "--code", s.Code, "--format", "json")
	if code != 0 {
		t.Fatalf("run --code %s: %s", s.Code, errOut)
	}
	var s2 struct {
		Hash string `json:"trace_sha256"`
	}
	json.Unmarshal([]byte(out2), &s2)
	if s2.Hash != s.Hash {
		t.Errorf("run --code gave %s, the run gave %s", s2.Hash, s.Hash)
	}
	// and a tampered code says so, in one sentence, as a usage error
	bad := s.Code[:len(s.Code)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", s.Code[len(s.Code)-1])+1)%16])
	for _, cmd := range [][]string{{"run", "--code", bad}, {"run", "--code", bad, "--trace"}, {"open", bad}} {
		out, errOut, code = runCLI(cmd...)
		if code != 2 || errOut != "inflight: "+mismatch+"\n" || out != "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", cmd, code, len(out), errOut)
		}
	}
}

func TestSweep(t *testing.T) {
	out, errOut, code := runCLI("sweep", "thursday", "--vary", "visibility_timeout=30s,45s,60s,90s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], "visibility_timeout=90s") {
		t.Errorf("header: %q", lines[0])
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 5 && f[0] == "effects" {
			if f[1] != "324" || f[2] != "108" || f[4] != "108" {
				t.Errorf("effects row %v", f)
			}
			return
		}
	}
	t.Errorf("no effects row in\n%s", out)
}

func TestCheckPasses(t *testing.T) {
	out, errOut, code := runCLI("check")
	if code != 0 {
		t.Fatalf("check exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, " 0 failed") {
		t.Errorf("check output: %s", out[max(0, len(out)-200):])
	}
}

func TestListAndValidate(t *testing.T) {
	out, _, code := runCLI("list")
	if code != 0 || !strings.HasPrefix(out, "thursday ") {
		t.Fatalf("list: %d %q", code, out)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("id: x\ntitle: X\nstart: \"10:00\"\nsources: [{name: orders, start: \"10:00\", every: 1s, count: 2}]\nworkers: {boxes: [A], per_box: 1}\nbroker: {late_ack: maybe}\ncolour: 1\n"), 0o644)
	_, errOut, code := runCLI("validate", bad)
	if code == 0 || !strings.Contains(errOut, "bad.yaml:") {
		t.Errorf("validate bad: %d %q", code, errOut)
	}
}

// Bad input gets one line naming what is wrong, and exit 2.
func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "nope"}, `unknown incident "nope"`},
		{[]string{"run", "thursday", "--set", "foo=1"}, `unknown knob "foo" (thursday's knobs: ack, claim,`},
		// "what if the timeout had been 60 s?" is how people ask it
		{[]string{"run", "thursday", "--set", "timeout=60s"}, `unknown knob "timeout"; did you mean visibility_timeout? (thursday's knobs:`},
		{[]string{"run", "thursday", "--set", "latency=3s"}, "did you mean latency_max or latency_min?"},
		{[]string{"run", "cashback", "--set", "dedup=true"}, `did you mean dedupe? (cashback's knobs: crash_p, dedupe, events, max_receives, restart_after)`},
		{[]string{"sweep", "thursday", "--vary", "timeout=30s,60s"}, `--vary "timeout=30s,60s": unknown knob "timeout"; did you mean visibility_timeout?`},
		{[]string{"run", "thursday", "--set", "visibility_timeout=soon"}, "visibility_timeout"},
		{[]string{"run", "thursday", "--set", "late_ack=maybe"}, "refuse, accept"},
		{[]string{"run", "thursday", "--at", "25:61"}, "--at"},
		{[]string{"run", "thursday", "--format", "xml"}, "--format"},
		{[]string{"run", "thursday", "--bogus"}, "--bogus"},
		{[]string{"run"}, "which incident"},
		{[]string{"sweep", "thursday"}, "--vary"},
		{[]string{"sweep", "thursday", "--vary", "max_receives=1,x"}, "max_receives"},
		{[]string{"run", "--code", "garbage"}, "share code"},
		{[]string{"run", "--incident-file", "/nonexistent.yaml"}, "nonexistent"},
		{[]string{"nope-incident"}, `unknown incident "nope-incident"`},
		{[]string{"sweep", "thursday", "--vary", "dedupe=true,false"}, "does not apply"},
		{[]string{"sweep", "thursday", "--vary", "max_receives=1,2", "--vary", "ack=before"}, "one --vary"},
		{[]string{"run", "thursday", "--at", "19:52"}, "--set"},
		{[]string{"run", "thursday", "--at", "23:59", "--set", "visibility_timeout=60s"}, "after the run ends"},
		{[]string{"run", "thursday", "--at", "+19:52", "--set", "visibility_timeout=60s"}, "--at"},
		{[]string{"run", "--code", "thursday@1/p99999999@19:52:00;visibility_timeout=60s#end.d7435a6b"}, "the run ends at event"},
		{[]string{"run", "--code", "thursday@1#99999999999.d7435a6b"}, "the run ends at event"},
		{[]string{"check", "nosuch"}, "no arguments"},
		{[]string{"run", "thursday", "--set", "dedupe=true"}, "does not apply"},
		{[]string{"run", "thursday", "--seed", strings.Repeat("7", 5000)}, "--seed"},
		{[]string{"run", "thursday", "--" + strings.Repeat("x", 5000)}, "…"},
	}
	for _, tc := range cases {
		_, errOut, code := runCLI(tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", tc.args, code, errOut)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q should be one line mentioning %q", tc.args, errOut, tc.want)
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%.80v: a stack trace", tc.args)
		}
		if len(errOut) > 600 {
			t.Errorf("%.80v: %d-byte error line", tc.args, len(errOut))
		}
	}
}

// The share codes the README shows still open: an engine change that alters
// their runs must update the README too.
func TestReadmeCodesReproduce(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := regexp.MustCompile(`[a-z-]+@\d+[^\s'`+"`"+`]*#(?:end|\d+)\.[0-9a-f]{8}`).FindAllString(string(data), -1)
	if len(codes) == 0 {
		t.Fatal("no share codes found in README.md")
	}
	for _, c := range codes {
		if _, errOut, code := runCLI("run", "--code", c); code != 0 {
			t.Errorf("README code %s: %s", c, errOut)
		}
	}
}

// TestMain lets the test binary be the inflight command (INFLIGHT_TEST_MAIN
// set: the arguments are inflight's), verify's consumer, or a stand-in
// redis-server, so the tests below run real processes without a build.
func TestMain(m *testing.M) {
	if verify.IsConsumer() {
		os.Exit(verify.ConsumerMain())
	}
	if code, ok := fakeredis.FromEnv(); ok {
		os.Exit(code)
	}
	if os.Getenv("INFLIGHT_TEST_MAIN") != "" {
		main()
	}
	os.Exit(m.Run())
}

// inflight is a command running this test binary as inflight.
func inflight(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "INFLIGHT_TEST_MAIN=1")
	return cmd
}

// exitCode runs cmd and returns its exit code (-1 if a signal ended it).
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("%v: %v", cmd.Args, err)
	return 0
}

// Every command exits 0 on success, 1 on failure, 2 on a usage error, as
// a real process.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	ex, err := os.ReadFile("docs/example-incident.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(good, ex, 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("id: x\ntitle: X\ncolour: 1\n"), 0o644)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	key := filepath.Join(dir, "host_key")
	cases := []struct {
		want int
		args []string
	}{
		{0, []string{"list"}},
		{0, []string{"help"}},
		{0, []string{"--help"}},
		{0, []string{"run", "--help"}},
		{0, []string{"run", "thursday"}},
		{0, []string{"run", "--code", "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec"}},
		{0, []string{"sweep", "thursday", "--vary", "visibility_timeout=30s,60s"}},
		{0, []string{"validate", good}},
		{0, []string{"serve", "--help"}},
		{0, []string{"verify", "--help"}},
		{2, []string{"validate", bad}},
		{1, []string{"serve", "--listen", busy.Addr().String(), "--host-key", key}},
		{2, []string{"list", "extra"}},
		{2, []string{"run"}},
		{2, []string{"run", "thursday", "--bogus"}},
		{2, []string{"run", "--code", "thursday@1#end.00000000"}},
		{2, []string{"run", "--code", "thursday@1+orders=10000000#5000.00000000"}},
		{2, []string{"open", "thursday@1#end.00000000"}},
		{2, []string{"open"}},
		{2, []string{"open", "nope@1#5.00000000"}},
		{1, []string{"open", "--max-events", "10", "thursday@1#812.3f2a9c1b"}},
		{2, []string{"nope-incident"}},
		{2, []string{"sweep", "thursday"}},
		{2, []string{"check", "extra"}},
		{2, []string{"validate"}},
		{2, []string{"serve", "--listen", "notaport", "--host-key", key}},
		{2, []string{"serve", "--listen", "127.0.0.1:99999", "--host-key", key}},
		{2, []string{"serve", "--max-sessions", "0", "--host-key", key}},
		{2, []string{"serve", "extra"}},
		{2, []string{"verify", "cashback", "--redis", "127.0.0.1:99999"}},
		{2, []string{"verify", "cashback", "--events", "0"}},
		{2, []string{"verify"}},
	}
	for _, c := range cases {
		var stderr strings.Builder
		cmd := inflight(t, c.args...)
		cmd.Stderr = &stderr
		if got := exitCode(t, cmd); got != c.want {
			t.Errorf("inflight %s: exit %d, want %d (%s)", strings.Join(c.args, " "), got, c.want, stderr.String())
		}
		if c.want != 0 && (stderr.Len() == 0 || strings.Contains(stderr.String(), "goroutine ")) {
			t.Errorf("inflight %s: stderr %q", strings.Join(c.args, " "), stderr.String())
		}
	}
	if _, err := os.Stat(key); err == nil {
		t.Errorf("a serve that did not start wrote its host key")
	}
}

// Output lost to a full disk is a failure: exit 1 and a line saying so,
// not exit 0.
func TestWriteErrorsFail(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	for _, args := range [][]string{
		{"list"}, {"check"}, {"validate", "docs/example-incident.yaml"}, {"--help"}, {"help"},
		{"run", "thursday"}, {"run", "thursday", "--format", "json"}, {"run", "thursday", "--trace"},
		{"run", "--code", "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec", "--trace"},
		{"sweep", "thursday", "--vary", "visibility_timeout=30s,60s"}, {"run", "--help"},
		{"serve", "--help"}, {"verify", "--help"},
	} {
		var stderr strings.Builder
		cmd := inflight(t, args...)
		cmd.Stdout, cmd.Stderr = full, &stderr
		if code := exitCode(t, cmd); code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("inflight %s > /dev/full: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// A share code past the caps is refused before any engine work: exit 2 at
// once, in a line that quotes only its start.
func TestHostileCodesCLI(t *testing.T) {
	var b strings.Builder
	b.WriteString("thursday@1")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "/p%d@19:52;visibility_timeout=%ds", 300+i, 31+i%50)
	}
	b.WriteString("#end.00000000")
	for _, code := range []string{b.String(), "thursday@1+orders=" + strings.Repeat("9", 20000) + "#end.00000000"} {
		start := time.Now()
		_, errOut, exit := runCLI("run", "--code", code)
		if exit != 2 || len(errOut) > 200 || !strings.Contains(errOut, "…") {
			t.Errorf("%d-byte code: exit %d, stderr %q", len(code), exit, errOut)
		}
		if took := time.Since(start); took > time.Second { // it takes microseconds
			t.Errorf("%d-byte code: %s", len(code), took)
		}
	}
}

// sweep refuses a moment after the run, as run does, instead of printing
// columns that cannot differ.
func TestSweepAtAfterTheEnd(t *testing.T) {
	_, errOut, code := runCLI("sweep", "thursday", "--vary", "visibility_timeout=30s,60s", "--at", "25:00")
	if code != 2 || !strings.Contains(errOut, "--at 25:00 is after the run ends") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// A pin that gives way is said by run: one text line each, and a JSON key
// present only then.
func TestRunSaysWhichPinsGaveWay(t *testing.T) {
	const line = "pin gave way: order 14's first call 34s is outside latency 1s–2s; drawn instead"
	out, errOut, code := runCLI("run", "thursday", "--set", "latency_min=1s", "--set", "latency_max=2s")
	if code != 0 || !strings.Contains(out, "\n"+line+"\n") || strings.Count(out, "pin gave way") != 1 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	out, _, _ = runCLI("run", "thursday", "--set", "latency_min=1s", "--set", "latency_max=2s", "--format", "json")
	var s struct {
		PinsGaveWay []struct {
			Message  int    `json:"message"`
			Decision string `json:"decision"`
			Pinned   string `json:"pinned"`
			Range    string `json:"range"`
			Line     string `json:"line"`
		} `json:"pins_gave_way"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.PinsGaveWay) != 1 || s.PinsGaveWay[0].Message != 14 || s.PinsGaveWay[0].Decision != "latency" ||
		s.PinsGaveWay[0].Pinned != "34s" || s.PinsGaveWay[0].Range != "1s–2s" || s.PinsGaveWay[0].Line != line {
		t.Fatalf("pins_gave_way %+v", s.PinsGaveWay)
	}
	for _, args := range [][]string{{"run", "thursday"}, {"run", "thursday", "--format", "json"}} {
		if out, _, _ := runCLI(args...); strings.Contains(out, "pin gave way") || strings.Contains(out, "pins_gave_way") {
			t.Fatalf("%v: a pin gave way on the lesson's own run:\n%s", args, out)
		}
	}
}
