package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"inflight/verify"
)

const verifyHelp = `Usage: inflight verify cashback [--redis ADDR] [--events N] [--crash-p P] [--seed N] [--otlp URL]

Runs the lesson's real test: a Redis stream and consumer group, a SQLite
wallet, and a consumer process that dies between its COMMIT and its XACK on
the same deliveries the simulator's cashback incident crashes, restarted
each time. Prints the lesson's lines beside the simulator's figures; exits 1
if they disagree. Without --redis it starts a private redis-server.

With --otlp the real test is traced with the OpenTelemetry SDK and its
spans sent to an OTLP/HTTP endpoint, such as a Collector's otlp receiver
(http://localhost:4318; /v1/traces is added to a URL without a path): the
XADDs, each XREADGROUP, each entry's handling with its wallet writes and
its XACK, by the messaging conventions (messaging.system redis). Each
consumer process is a new service.instance.id; a crash leaves its process
span unended. 'inflight import' reads such spans, one stream at a time.

Flags:
`

var verifyCommand = command{
	name:     "verify",
	synopsis: "inflight verify cashback [flags]",
	summary:  "the lesson's real test (Redis + SQLite) against the model",
	help:     verifyHelp,
	options:  func() options { return &verifyOptions{} },
}

type verifyOptions struct {
	redis  string
	events int
	crashP float64
	seed   uint64
	otlp   string
}

func (o *verifyOptions) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.redis, "redis", "", "address of a running Redis (host:port); default: start a private redis-server")
	fs.IntVar(&o.events, "events", 5000, "stream entries, each crediting ₹100 to u1")
	fs.Float64Var(&o.crashP, "crash-p", 0.01, "chance a delivery dies after its COMMIT and before its XACK")
	fs.Uint64Var(&o.seed, "seed", 0, "the simulator's seed (default: the incident's own)")
	fs.StringVar(&o.otlp, "otlp", "", "send the real test's spans to this OTLP/HTTP endpoint (e.g. http://localhost:4318)")
}

// verifyErr is an error of verify's with the exit code given.
func verifyErr(code int, format string, a ...any) error { return cmdErr(code, "verify", format, a...) }

// flagError names the flag and what it wants: `--events "x": want an
// integer`, not pflag's strconv message.
func (o *verifyOptions) flagError(err error, args []string) error {
	msg := err.Error()
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		name := "--" + bad.GetFlag().Name
		want := map[string]string{"--events": "an integer", "--crash-p": "a number from 0 to 0.5", "--seed": "a non-negative integer"}[name]
		if want == "" {
			want = "a valid value"
		}
		msg = fmt.Sprintf("%s %q: want %s", name, bad.GetValue(), want)
	}
	return verifyErr(2, "%s (see 'inflight verify --help')", clipArgs(msg, args))
}

func (o *verifyOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	switch {
	case fs.NArg() == 0:
		return verifyErr(2, "name the test to run: inflight verify cashback")
	case fs.Arg(0) != "cashback":
		return verifyErr(2, "unknown test %q (tests: cashback)", fs.Arg(0))
	case fs.NArg() > 1:
		return verifyErr(2, "unexpected arguments: %s", strings.Join(fs.Args()[1:], " "))
	case o.events < 1 || o.events > 1_000_000:
		return verifyErr(2, "--events %d: want 1 to 1000000", o.events)
	case !(o.crashP >= 0 && o.crashP <= 0.5):
		return verifyErr(2, "--crash-p %v: want a probability from 0 to 0.5", o.crashP)
	case fs.Changed("redis") && !validAddr(o.redis):
		return verifyErr(2, "--redis %q: want host:port with a port from 1 to 65535", clipArg(o.redis))
	case fs.Changed("otlp"):
		if _, err := verify.ParseEndpoint(o.otlp); err != nil {
			return verifyErr(2, "--otlp %q: %v", clipArg(o.otlp), err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return verifyErr(1, "cannot find my own binary to run the consumer: %v", err)
	}
	// A signal we can catch ends the run through ctx, so the servers and
	// consumers it started are stopped and its temporary folder removed
	// (only SIGKILL skips that; on Linux the children then die with us).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// `inflight verify cashback | head -3` must not kill us mid-run: a
	// broken pipe becomes a write error, and the server and the temporary
	// folder are still cleaned up.
	signal.Ignore(syscall.SIGPIPE)
	res, err := verify.Run(ctx, verify.Options{
		Redis: o.redis, Events: o.events, CrashP: o.crashP, Seed: o.seed, SeedSet: fs.Changed("seed"),
		Consumer: []string{exe, "verify"}, OTLP: o.otlp,
		Out: stdout, Log: stderr, Terminal: isTerminal(stderr),
	})
	switch {
	case errors.Is(err, verify.ErrNoRedisServer):
		return verifyErr(2, "%v", err)
	case ctx.Err() != nil:
		return verifyErr(1, "interrupted; the servers and consumers it started are stopped and its temporary folder removed")
	case err != nil:
		return verifyErr(1, "%v", err)
	case !res.Agree():
		return &exitError{code: 1} // the lines above say where they disagree
	}
	return nil
}

// isTerminal reports whether w is a terminal (verify's progress is then
// a bar).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func validAddr(a string) bool {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}
