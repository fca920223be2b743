package otlp_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeCollectorConfig is the first yaml block of the README's section
// "Your own incident", the Collector config it tells people to run.
func readmeCollectorConfig(t *testing.T) []byte {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(readme, []byte("\n## Your own incident"))
	if !ok {
		t.Fatal(`README.md: no section "## Your own incident"`)
	}
	_, block, ok := bytes.Cut(section, []byte("\n```yaml\n"))
	if !ok {
		t.Fatal(`README.md: no yaml block in "Your own incident"`)
	}
	block, _, ok = bytes.Cut(block, []byte("\n```\n"))
	if !ok {
		t.Fatal(`README.md: the yaml block in "Your own incident" is not closed`)
	}
	return append(block, '\n')
}

// otelcolBinary is the Collector of tools/otelcol: $INFLIGHT_OTELCOL (CI
// builds it first), else built here, which takes minutes on a cold build
// cache. Without one the test skips, unless CI is set.
func otelcolBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("INFLIGHT_OTELCOL"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("INFLIGHT_OTELCOL: %v", err)
		}
		return bin
	}
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (set INFLIGHT_OTELCOL to a built tools/otelcol)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		unavailable("no go command to build tools/otelcol")
	}
	bin := filepath.Join(t.TempDir(), "otelcol")
	cmd := exec.Command(goBin, "build", "-C", "../tools/otelcol", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		unavailable("go build -C ../tools/otelcol: %v\n%s", err, out)
	}
	return bin
}

// freePort is a loopback port that was free a moment ago; another process
// may take it first, so startCollector tries again when a bind fails.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// collector is a running Collector and where it listens for OTLP/HTTP.
type collector struct {
	cmd  *exec.Cmd
	http string
	done chan struct{} // closed when the process has exited
	log  *bytes.Buffer // its stderr, complete once done is closed
}

// startCollector runs bin with the README's config and an overlay, given
// to the Collector as a second --config, that puts the receivers on free
// loopback ports, the file exporter's path under dir, and turns off the
// Collector's own metrics (which listen on :8888). Nothing else differs
// from the README.
func startCollector(t *testing.T, bin string, readme []byte, dir, out string) *collector {
	t.Helper()
	base := filepath.Join(dir, "readme.yaml")
	if err := os.WriteFile(base, readme, 0o644); err != nil {
		t.Fatal(err)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		c, err := startCollectorOnce(t, bin, base, dir, out)
		if err == nil {
			return c
		}
		lastErr = err
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	t.Fatal(lastErr)
	return nil
}

func startCollectorOnce(t *testing.T, bin, base, dir, out string) (*collector, error) {
	grpcAddr, httpAddr := freePort(t), freePort(t)
	overlay := filepath.Join(dir, "overlay.yaml")
	o := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %s
      http:
        endpoint: %s
exporters:
  file:
    path: %s
service:
  telemetry:
    metrics:
      level: none
`, grpcAddr, httpAddr, out)
	if err := os.WriteFile(overlay, []byte(o), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", base, "--config", overlay)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &collector{cmd: cmd, http: httpAddr, done: make(chan struct{}), log: &bytes.Buffer{}}
	ready := make(chan struct{})
	go func() {
		// The Collector logs this line once every receiver listens.
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		signalled := false
		for sc.Scan() {
			c.log.Write(sc.Bytes())
			c.log.WriteByte('\n')
			if !signalled && strings.Contains(sc.Text(), "Everything is ready") {
				signalled = true
				close(ready)
			}
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
		close(c.done)
	}()
	select {
	case <-ready:
	case <-c.done:
		return nil, fmt.Errorf("the collector exited before it was ready: %v\n%s", cmd.ProcessState, c.log)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) // an error: it has stopped already
		<-c.done
	})
	return c, nil
}

// TestCollectorREADME: the README's Collector config, run by a real
// Collector (tools/otelcol: the otlp receiver and the contrib file
// exporter), is sent thursday's run as `inflight run --otlp` writes it,
// one export request a POST to /v1/traces; the file its exporter writes,
// imported, reproduces thursday's figures, and check passes on it.
func TestCollectorREADME(t *testing.T) {
	readme := readmeCollectorConfig(t)
	bin := otelcolBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "spans.json")
	c := startCollector(t, bin, readme, dir, out)

	want, data := exportRun(t, "thursday")
	lines := bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	client := &http.Client{Timeout: time.Minute}
	for i, line := range lines {
		resp, err := client.Post("http://"+c.http+"/v1/traces", "application/json", bytes.NewReader(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("line %d: %s: %s", i+1, resp.Status, body)
		}
	}

	// The exporter flushes on its own interval, and on shutdown: stop the
	// Collector and wait for it to exit, then the file is whole.
	c.cmd.Process.Signal(syscall.SIGTERM)
	<-c.done
	if !c.cmd.ProcessState.Success() {
		t.Fatalf("the collector did not stop cleanly: %v\n%s", c.cmd.ProcessState, c.log)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(written, []byte{'\n'}); n != len(lines) {
		t.Fatalf("%s has %d lines, want %d: one a request", out, n, len(lines))
	}
	// pdata's marshaler is the exporter's and ours: the same bytes back
	if !bytes.Equal(written, data) {
		t.Errorf("%s differs from what was posted (%d bytes against %d)", out, len(written), len(data))
	}

	spec, _ := importSpec(t, written, "thursday-collected")
	checkImported(t, spec, 8, want, queueFigures)
}
