package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// Every bad flag of `inflight verify` is one line naming it, exit 2.
func TestRunVerifyFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"cashback", "--events", "many"}, `--events "many": want an integer`},
		{[]string{"cashback", "--events", "0"}, "--events 0"},
		{[]string{"cashback", "--events=-5"}, "--events -5"},
		{[]string{"cashback", "--crash-p", "1.5"}, "--crash-p 1.5"},
		{[]string{"cashback", "--crash-p", "NaN"}, "--crash-p NaN"},
		{[]string{"cashback", "--crash-p", "lots"}, `--crash-p "lots"`},
		{[]string{"cashback", "--seed", "-1"}, `--seed "-1": want a non-negative integer`},
		{[]string{"cashback", "--redis", "nohostport"}, "--redis"},
		{[]string{"cashback", "--redis"}, "--redis"},
		{[]string{"cashback", "--redis", "127.0.0.1:99999"}, "--redis"},
		{[]string{"cashback", "--redis", "127.0.0.1:0"}, "--redis"},
		{[]string{"cashback", "--redis", ":6379"}, "--redis"},
		{[]string{"cashback", "--redis", "127.0.0.1:port"}, "--redis"},
		{[]string{"cashback", "--events", strings.Repeat("9", 5000)}, "…"},
		{[]string{"cashback", "--redis", strings.Repeat("h", 5000)}, "…"},
		{[]string{"cashback", "--frobnicate"}, "--frobnicate"},
		{[]string{}, "inflight verify cashback"},
		{[]string{"thursday"}, `unknown test "thursday"`},
		{[]string{"cashback", "extra"}, "unexpected arguments: extra"},
		{[]string{"cashback", "--otlp", "localhost:4318"}, `--otlp "localhost:4318": want an OTLP/HTTP endpoint`},
		{[]string{"cashback", "--otlp", "grpc://localhost:4317"}, "not http or https"},
		{[]string{"cashback", "--otlp", ""}, `--otlp ""`},
		{[]string{"cashback", "--otlp", "http://"}, "no host"},
		{[]string{"cashback", "--otlp", "http://h:0"}, "port from 1 to 65535"},
		{[]string{"cashback", "--otlp", "http://user:secret@h:4318"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{[]string{"cashback", "--otlp", "http://h:4318/v1/traces?x=1"}, "a query or fragment"},
		{[]string{"cashback", "--otlp", "http://h\x1b[2J:4318"}, "--otlp"},
		{[]string{"cashback", "--otlp", "http://" + strings.Repeat("h", 5000)}, "…"},
		{[]string{"cashback", "--otlp"}, "--otlp"},
	}
	for _, c := range cases {
		var errb bytes.Buffer
		code := run(append([]string{"verify"}, c.args...), io.Discard, &errb)
		msg := errb.String()
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (%q)", c.args, code, msg)
		}
		if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "inflight verify: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%q: message %q, want one line naming %s", c.args, msg, c.want)
		}
		if strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
			t.Errorf("%q: stack trace: %s", c.args, msg)
		}
	}
}

func TestVerifyHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"verify", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"inflight verify cashback", "--redis", "--events", "--crash-p", "--seed", "--otlp"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

// TestVerifyNoRedisServer: without redis-server on PATH and no --redis,
// the command says how to install it and exits 2.
func TestVerifyNoRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"verify", "cashback", "--events", "10"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "apt-get install redis-server") || strings.Count(errb.String(), "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
