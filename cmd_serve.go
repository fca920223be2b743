package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/charmbracelet/log"
	"github.com/spf13/pflag"

	"inflight/serve"
	"inflight/tui"
)

const serveUsage = `Usage: inflight serve [flags]

Serve the explorer over SSH for a workshop: every attendee runs
  ssh -p 2222 HOST           their own explorer
  ssh -p 2222 follow@HOST    follow the presenter's screen

Flags:
`

// runServe is `inflight serve`: it parses args (everything after "serve"),
// runs the SSH workshop server until SIGINT or SIGTERM, and returns the
// process exit code: 0 after a clean shutdown, 2 for bad flags, 1 for
// anything else. Every flag is checked, and the address bound, before the
// host key file is created: a typo leaves no file behind.
func runServe(args []string, stdout, stderr io.Writer) int {
	usageError := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "inflight serve: "+format+"\n", a...)
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "inflight serve: %v\n", err)
		return 1
	}
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, in one line
	listen := fs.String("listen", serve.DefaultAddr, "address to listen on")
	hostKey := fs.String("host-key", defaultHostKeyPath(), "host key file, generated on first start")
	maxSessions := fs.Int("max-sessions", serve.DefaultMaxSessions, "attendees at once; more get a \"workshop full\" line")
	idle := fs.Duration("idle-timeout", serve.DefaultIdleTimeout, "close sessions idle this long (0: never)")
	authorized := fs.String("authorized-keys", "", "accept only these public keys (default: any key)")
	presenters := fs.String("presenter-keys", "", "public keys of the presenter, who drives the stage")
	sessEvents := fs.Int64("session-max-events", serve.DefaultSessionMaxEvents, "events one attendee's branch may run to; a bigger fork is refused")
	sessMB := fs.Int64("session-max-memory-mb", serve.DefaultSessionMaxMemory>>20, "memory (MB) one attendee's explorer may take")
	serverMB := fs.Int64("server-max-memory-mb", serve.DefaultServerMaxMemory>>20, "memory (MB) all attendees' explorers may take together")
	jobs := fs.Int("jobs", tui.ServerJobs(), "long jobs (playing to the end, comparing) run at once; the rest wait their turn")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, serveUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		return usageError("%s", clipArgs(err.Error(), args))
	}
	switch {
	case fs.NArg() > 0:
		return usageError("unexpected argument %q", clipArg(fs.Arg(0)))
	case *maxSessions < 1:
		return usageError("--max-sessions must be at least 1, not %d", *maxSessions)
	case *idle < 0:
		return usageError("--idle-timeout must not be negative, not %s", *idle)
	case *hostKey == "":
		return usageError("--host-key must name a file")
	case *sessEvents < 1:
		return usageError("--session-max-events must be at least 1, not %d", *sessEvents)
	case *sessMB < 1 || *sessMB > 1<<30:
		return usageError("--session-max-memory-mb must be between 1 and %d, not %d", 1<<30, *sessMB)
	case *serverMB < *sessMB || *serverMB > 1<<30:
		return usageError("--server-max-memory-mb must be between --session-max-memory-mb and %d, not %d", 1<<30, *serverMB)
	case *jobs < 1:
		return usageError("--jobs must be at least 1, not %d", *jobs)
	}
	if err := checkListenAddr(*listen); err != nil {
		return usageError("--listen %q: %v", clipArg(*listen), err)
	}
	if *idle == 0 {
		*idle = -1 // never, in serve.Config's terms
	}
	// Its logs may go to a pipe that closes first (`serve 2>&1 | tee log`,
	// then ctrl+c): a write there must fail quietly, not kill the server
	// before it says goodbye to every attendee.
	signal.Ignore(syscall.SIGPIPE)

	// Bind first: an address in use must not leave a new host key behind.
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(err)
	}
	logger := log.NewWithOptions(stderr, log.Options{ReportTimestamp: true, Prefix: "inflight serve"})
	srv, err := serve.New(serve.Config{
		Addr:           *listen,
		HostKeyPath:    *hostKey,
		MaxSessions:    *maxSessions,
		IdleTimeout:    *idle,
		AuthorizedKeys: *authorized,
		PresenterKeys:  *presenters,
		Logger:         logger,

		SessionMaxEvents: *sessEvents,
		SessionMaxMemory: *sessMB << 20,
		ServerMaxMemory:  *serverMB << 20,
		Jobs:             *jobs,
	})
	var kerr *serve.KeyFileError
	switch {
	case errors.As(err, &kerr) && kerr.Field == "AuthorizedKeys":
		ln.Close()
		return usageError("--authorized-keys: %v", err)
	case errors.As(err, &kerr):
		ln.Close()
		return usageError("--presenter-keys: %v", err)
	case err != nil:
		ln.Close()
		return fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fail(err)
	case <-ctx.Done():
	}
	stop() // a second Ctrl-C kills outright
	logger.Info("signal received; saying goodbye (Ctrl-C again to force)")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		logger.Warn("shutdown", "err", err)
	}
	if err := <-served; err != nil {
		return fail(err)
	}
	logger.Info("stopped")
	return 0
}

// checkListenAddr checks a listen address's form, host:port with a port
// from 0 to 65535, without resolving it.
func checkListenAddr(a string) error {
	_, port, err := net.SplitHostPort(a)
	if err != nil {
		return errors.New("want host:port, e.g. 127.0.0.1:2222 or :2222")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q: want a number from 0 to 65535", clipArg(port))
	}
	return nil
}

// clipArg is the start of an argument for an error line.
func clipArg(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// defaultHostKeyPath keeps the host key in the user's config directory, so
// a restarted workshop server keeps its identity and attendees see no
// "host key changed" warning.
func defaultHostKeyPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ".inflight_host_ed25519"
	}
	return filepath.Join(dir, "inflight", "ssh_host_ed25519")
}
