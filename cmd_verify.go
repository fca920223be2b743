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

const verifyUsage = `Usage: inflight verify cashback [--redis ADDR] [--events N] [--crash-p P] [--seed N]

Runs the lesson's real test: a Redis stream and consumer group, a SQLite
wallet, and a consumer process that dies between its COMMIT and its XACK on
the same deliveries the simulator's cashback incident crashes, restarted
each time. Prints the lesson's lines beside the simulator's figures; exits 1
if they disagree. Without --redis it starts a private redis-server.

Flags:
`

// runVerify is `inflight verify`. A consumer process (the same binary,
// started by runVerify with verify.ConsumerEnv set) lands here too and is
// handed over to the consumer before any flag is read.
func runVerify(args []string, stdout, stderr io.Writer) int {
	if verify.IsConsumer() {
		return verify.ConsumerMain()
	}
	return verifyMain(args, stdout, stderr, isatty.IsTerminal(os.Stderr.Fd()) || isatty.IsCygwinTerminal(os.Stderr.Fd()))
}

func verifyMain(args []string, stdout, stderr io.Writer, terminal bool) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "inflight verify: "+format+"\n", a...)
		return code
	}
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	redisAddr := fs.String("redis", "", "address of a running Redis (host:port); default: start a private redis-server")
	events := fs.Int("events", 5000, "stream entries, each crediting ₹100 to u1")
	crashP := fs.Float64("crash-p", 0.01, "chance a delivery dies after its COMMIT and before its XACK")
	seed := fs.Uint64("seed", 0, "the simulator's seed (default: the incident's own)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, verifyUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		return fail(2, "%s (see 'inflight verify --help')", clipArgs(flagErrText(err), args))
	}
	switch {
	case fs.NArg() == 0:
		return fail(2, "name the test to run: inflight verify cashback")
	case fs.Arg(0) != "cashback":
		return fail(2, "unknown test %q (tests: cashback)", fs.Arg(0))
	case fs.NArg() > 1:
		return fail(2, "unexpected arguments: %s", strings.Join(fs.Args()[1:], " "))
	case *events < 1 || *events > 1_000_000:
		return fail(2, "--events %d: want 1 to 1000000", *events)
	case !(*crashP >= 0 && *crashP <= 0.5):
		return fail(2, "--crash-p %v: want a probability from 0 to 0.5", *crashP)
	case fs.Changed("redis") && !validAddr(*redisAddr):
		return fail(2, "--redis %q: want host:port with a port from 1 to 65535", clipArg(*redisAddr))
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(1, "cannot find my own binary to run the consumer: %v", err)
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
		Redis: *redisAddr, Events: *events, CrashP: *crashP, Seed: *seed, SeedSet: fs.Changed("seed"),
		Consumer: []string{exe, "verify"},
		Out:      stdout, Log: stderr, Terminal: terminal,
	})
	switch {
	case errors.Is(err, verify.ErrNoRedisServer):
		return fail(2, "%v", err)
	case ctx.Err() != nil:
		return fail(1, "interrupted; the servers and consumers it started are stopped and its temporary folder removed")
	case err != nil:
		return fail(1, "%v", err)
	case !res.Agree():
		return 1
	}
	return 0
}

// flagErrText shortens pflag's messages to one line naming the flag:
// `invalid argument "x" for "--events" flag: strconv.ParseInt: …` becomes
// `--events "x": want an integer`.
func flagErrText(err error) string {
	s := err.Error()
	var val, name string
	if _, e := fmt.Sscanf(s, "invalid argument %q for %q flag:", &val, &name); e == nil {
		want := map[string]string{"--events": "an integer", "--crash-p": "a number from 0 to 0.5", "--seed": "a non-negative integer"}[name]
		if want == "" {
			want = "a valid value"
		}
		return fmt.Sprintf("%s %q: want %s", name, val, want)
	}
	return s
}

func validAddr(a string) bool {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}
