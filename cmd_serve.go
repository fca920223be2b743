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

	"inflight/plan"
	"inflight/serve"
	"inflight/serve/stagelink"
	"inflight/tui"
)

const serveHelp = `Usage: inflight serve [flags]

Serve the explorer over SSH for a workshop: every attendee runs
  ssh -p 2222 HOST           their own explorer
  ssh -p 2222 follow@HOST    follow the presenter's screen

Flags:
`

var serveCommand = command{
	name:     "serve",
	synopsis: "inflight serve [flags]",
	summary:  "serve the explorer over SSH for a workshop",
	help:     serveHelp,
	options:  func() options { return &serveOptions{} },
}

// serveOptions are serve's flags, declared in the order its help lists
// them.
type serveOptions struct {
	answers     string
	authorized  string
	hostKey     string
	idle        time.Duration
	jobs        int
	keepFor     time.Duration
	listen      string
	maxSessions int
	presenters  string
	serverMB    int64
	sessEvents  int64
	sessMB      int64
	stage       string
	plan        string
}

func (o *serveOptions) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.answers, "answers", "", "append each reveal of the room's question to `FILE` as a JSON line (question, answers per choice, the right one, attendees); every reveal is logged either way")
	fs.StringVar(&o.authorized, "authorized-keys", "", "accept only these public keys (default: any key)")
	fs.StringVar(&o.hostKey, "host-key", defaultHostKeyPath(), "host key file, generated on first start")
	fs.DurationVar(&o.idle, "idle-timeout", serve.DefaultIdleTimeout, "close sessions idle this long (0: never)")
	fs.IntVar(&o.jobs, "jobs", tui.ServerJobs(), "long jobs (playing to the end, comparing) run at once; the rest wait their turn")
	fs.DurationVar(&o.keepFor, "keep-for", serve.DefaultKeepFor, "keep a session's branches, cursor and open screen this long for a reconnect with the same key, in memory and in the --stage Redis (0: keep nothing)")
	fs.StringVar(&o.listen, "listen", serve.DefaultAddr, "address to listen on")
	fs.IntVar(&o.maxSessions, "max-sessions", serve.DefaultMaxSessions, "attendees at once; more get a \"workshop full\" line")
	fs.StringVar(&o.plan, "plan", "", "the session's plan `FILE` (inflight validate checks it): the presenter's > and < move the stage from beat to beat, with notes on the presenter's screen only")
	fs.StringVar(&o.presenters, "presenter-keys", "", "public keys of the presenter, who drives the stage")
	fs.Int64Var(&o.serverMB, "server-max-memory-mb", serve.DefaultServerMaxMemory>>20, "memory (MB) all attendees' explorers may take together")
	fs.Int64Var(&o.sessEvents, "session-max-events", serve.DefaultSessionMaxEvents, "events one attendee's branch may run to; a bigger fork is refused")
	fs.Int64Var(&o.sessMB, "session-max-memory-mb", serve.DefaultSessionMaxMemory>>20, "memory (MB) one attendee's explorer may take")
	fs.StringVar(&o.stage, "stage", "", "share the stage with other serve processes through the Redis at `URL`: redis://[[USER]:PASSWORD@]HOST:PORT/DB[?key=NAME], rediss:// for TLS; the password may come from $"+stagelink.PasswordEnv+" instead (USER@ in the URL), which ps does not show")
}

// serveUsage is a usage error of serve's, exit 2.
func serveUsage(format string, a ...any) error { return cmdErr(2, "serve", format, a...) }

// serveFail is a failure of serve's, exit 1.
func serveFail(err error) error { return cmdErr(1, "serve", "%v", err) }

func (o *serveOptions) flagError(err error, args []string) error {
	return serveUsage("%s", clipArgs(err.Error(), args))
}

// run runs the SSH workshop server until SIGINT or SIGTERM: nil after a
// clean shutdown, a usage error for bad flags, a failure for anything
// else. Every flag is checked, and the address bound, before the host key
// file is created: a typo leaves no file behind.
func (o *serveOptions) run(fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	switch {
	case fs.NArg() > 0:
		return serveUsage("unexpected argument %q", clipArg(fs.Arg(0)))
	case o.maxSessions < 1:
		return serveUsage("--max-sessions must be at least 1, not %d", o.maxSessions)
	case o.idle < 0:
		return serveUsage("--idle-timeout must not be negative, not %s", o.idle)
	case o.hostKey == "":
		return serveUsage("--host-key must name a file")
	case o.sessEvents < 1:
		return serveUsage("--session-max-events must be at least 1, not %d", o.sessEvents)
	case o.sessMB < 1 || o.sessMB > 1<<30:
		return serveUsage("--session-max-memory-mb must be between 1 and %d, not %d", 1<<30, o.sessMB)
	case o.serverMB < o.sessMB || o.serverMB > 1<<30:
		return serveUsage("--server-max-memory-mb must be between --session-max-memory-mb and %d, not %d", 1<<30, o.serverMB)
	case o.jobs < 1:
		return serveUsage("--jobs must be at least 1, not %d", o.jobs)
	case o.keepFor < 0 || o.keepFor > serve.MaxKeepFor:
		return serveUsage("--keep-for must be between 0 (keep nothing) and %s, not %s", serve.MaxKeepFor, o.keepFor)
	}
	if err := checkListenAddr(o.listen); err != nil {
		return serveUsage("--listen %q: %v", clipArg(o.listen), err)
	}
	stage := ""
	if o.stage != "" {
		u, err := stagelink.ParseURLEnv(o.stage, os.Getenv)
		if err != nil {
			return serveUsage("--stage: %v", err) // the error never quotes the password
		}
		stage = u.Secret() // the variable's password with it, inside the process only
	}
	var pl *plan.Plan
	if o.plan != "" {
		p, err := plan.Load(o.plan)
		if err != nil {
			fmt.Fprintln(stderr, err) // one problem a line, as validate prints them
			return serveUsage("--plan %q: the plan has problems (above)", clipArg(o.plan))
		}
		pl = p
	}
	idle := o.idle
	if idle == 0 {
		idle = -1 // never, in serve.Config's terms
	}
	keepFor := o.keepFor
	if keepFor == 0 {
		keepFor = -1 // nothing, in serve.Config's terms
	}
	// Its logs may go to a pipe that closes first (`serve 2>&1 | tee log`,
	// then ctrl+c): a write there must fail quietly, not kill the server
	// before it says goodbye to every attendee.
	signal.Ignore(syscall.SIGPIPE)

	// Bind first: an address in use must not leave a new host key behind.
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return serveFail(err)
	}
	logger := log.NewWithOptions(stderr, log.Options{ReportTimestamp: true, Prefix: "inflight serve"})
	srv, err := serve.New(serve.Config{
		Addr:           o.listen,
		HostKeyPath:    o.hostKey,
		MaxSessions:    o.maxSessions,
		IdleTimeout:    idle,
		AuthorizedKeys: o.authorized,
		PresenterKeys:  o.presenters,
		Logger:         logger,

		SessionMaxEvents: o.sessEvents,
		SessionMaxMemory: o.sessMB << 20,
		ServerMaxMemory:  o.serverMB << 20,
		Jobs:             o.jobs,
		Stage:            stage,
		Answers:          o.answers,
		KeepFor:          keepFor,
		Plan:             pl,
	})
	var kerr *serve.KeyFileError
	switch {
	case errors.As(err, &kerr) && kerr.Field == "AuthorizedKeys":
		ln.Close()
		return serveUsage("--authorized-keys: %v", err)
	case errors.As(err, &kerr):
		ln.Close()
		return serveUsage("--presenter-keys: %v", err)
	case err != nil:
		ln.Close()
		return serveFail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return serveFail(err)
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
		return serveFail(err)
	}
	logger.Info("stopped")
	return nil
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
