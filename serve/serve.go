// Package serve is inflight's SSH workshop server: every attendee who
// connects with ssh gets an explorer of their own (own engine, own
// branches, drawn for their terminal), and one presenter can drive a
// stage that the others follow.
//
// Everything lives on a Server value; nothing here is package-level
// mutable state, so tests can run many servers side by side.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/log"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/charmbracelet/wish/recover"
	"github.com/muesli/termenv"

	"inflight/engine"
	"inflight/plan"
	"inflight/serve/stagelink"
	"inflight/tui"
)

// Defaults for Config's zero values, shared with the command's flags.
const (
	DefaultAddr        = "127.0.0.1:2222"
	DefaultMaxSessions = 64
	DefaultIdleTimeout = 30 * time.Minute

	// Each attendee's explorer, and all of them together: 50 attendees
	// trying the largest fork at once leave the server running.
	DefaultSessionMaxEvents = 10_000_000
	DefaultSessionMaxMemory = 256 << 20
	DefaultServerMaxMemory  = 2 << 30
)

// Config is what `inflight serve` was asked for.
type Config struct {
	Addr           string        // listen address; "" means DefaultAddr
	HostKeyPath    string        // generated (mode 0600) on first start, reused after
	MaxSessions    int           // attendees at once; <= 0 means DefaultMaxSessions
	IdleTimeout    time.Duration // close a session with no input or output for this long; 0 means DefaultIdleTimeout, < 0 never
	AuthorizedKeys string        // authorized_keys file; "" accepts any public key
	PresenterKeys  string        // authorized_keys file of the presenter(s); "" means no presenter
	Logger         *log.Logger   // nil: stderr

	SessionMaxEvents int64  // events one attendee's branch may run to; 0: DefaultSessionMaxEvents
	SessionMaxMemory int64  // bytes one attendee's explorer may hold; 0: DefaultSessionMaxMemory
	ServerMaxMemory  int64  // bytes all explorers together may hold; 0: DefaultServerMaxMemory
	Jobs             int    // long jobs running at once; 0: tui.ServerJobs()
	Stage            string // redis:// or rediss:// URL carrying the stage between processes; "": this process only
	Answers          string // file each reveal is appended to as a JSON line; "": the log only
	// KeepFor is how long a session's work waits for its key to
	// reconnect (resume.go); 0 means DefaultKeepFor, < 0 keeps nothing.
	KeepFor time.Duration

	Plan *plan.Plan // the session's plan (--plan): the presenter's beat keys and notes; nil none
}

// Server is one workshop: an SSH listener, its attendees and its stage.
type Server struct {
	cfg        Config
	ssh        *ssh.Server
	stage      *tui.Stage
	shared     *tui.Shared // budgets, memory pool and job slots of every session
	log        *log.Logger
	authorized keySet // nil: any key
	presenters keySet
	links      links // every connection, for the seats held without a session
	stageLink  *stagelink.Link
	answers    *answers   // the room's reveals, kept (answers.go)
	kept       *keptStore // attendees' work for a reconnect (resume.go); nil keeps none

	// newModel builds a session's explorer; tests swap it to inject faults.
	newModel func(tui.Options) (tea.Model, error)

	mu        sync.Mutex
	sessions  map[*attendee]struct{}
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	closing   bool
	nextID    uint64
	handlers  sync.WaitGroup // session handlers still running
	connWG    sync.WaitGroup // connection goroutines still running
}

// New checks the configuration, loads the key files and the host key
// (creating it if missing) and returns a server that is not yet listening.
func New(cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.HostKeyPath == "" {
		return nil, errors.New("no host key path")
	}
	if cfg.SessionMaxEvents <= 0 {
		cfg.SessionMaxEvents = DefaultSessionMaxEvents
	}
	if cfg.SessionMaxMemory <= 0 {
		cfg.SessionMaxMemory = DefaultSessionMaxMemory
	}
	if cfg.ServerMaxMemory <= 0 {
		cfg.ServerMaxMemory = DefaultServerMaxMemory
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = tui.ServerJobs()
	}
	switch {
	case cfg.KeepFor == 0:
		cfg.KeepFor = DefaultKeepFor
	case cfg.KeepFor > MaxKeepFor:
		return nil, fmt.Errorf("keep for %s: at most %s", cfg.KeepFor, MaxKeepFor)
	}
	var stageURL stagelink.URL
	var err error
	if cfg.Stage != "" {
		if stageURL, err = stagelink.ParseURL(cfg.Stage); err != nil {
			return nil, fmt.Errorf("--stage: %w", err)
		}
	}
	s := &Server{
		cfg:   cfg,
		stage: tui.NewStage(),
		shared: tui.NewShared(engine.Limits{
			Events: cfg.SessionMaxEvents, Bytes: cfg.SessionMaxMemory,
			EventsFlag: "--session-max-events", BytesFlag: "--session-max-memory-mb",
		}, &engine.Pool{Bytes: cfg.ServerMaxMemory, Flag: "--server-max-memory-mb"}, cfg.Jobs),
		log:       cfg.Logger,
		sessions:  map[*attendee]struct{}{},
		listeners: map[net.Listener]struct{}{},
		conns:     map[net.Conn]struct{}{},
		newModel:  tui.NewSession,
	}
	if cfg.KeepFor > 0 {
		// every seat's attendee and as many again who left: the oldest go
		s.kept = newKeptStore(cfg.KeepFor, max(16, 2*cfg.MaxSessions))
	}
	if s.log == nil {
		s.log = log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "serve"})
	}
	if cfg.AuthorizedKeys != "" {
		if s.authorized, err = loadKeys(cfg.AuthorizedKeys); err != nil {
			return nil, &KeyFileError{"AuthorizedKeys", err}
		}
	}
	if cfg.PresenterKeys != "" {
		if s.presenters, err = loadKeys(cfg.PresenterKeys); err != nil {
			return nil, &KeyFileError{"PresenterKeys", err}
		}
	}
	fingerprint, err := ensureHostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, err
	}
	if s.answers, err = openAnswers(cfg.Answers, s.log); err != nil {
		return nil, err
	}
	s.stage.Poll().Keep(s.answers.keep)

	// The last middleware listed runs first: recover wraps everything,
	// then seat (the connection's seat passes to its session), opener
	// (an `open CODE` command), admit (terminal, capacity), track (count,
	// idle, log), probe (the terminal's colours, briefly), the explorer
	// itself, and farewell once the explorer has stopped.
	s.ssh, err = wish.NewServer(
		wish.WithAddress(cfg.Addr),
		wish.WithHostKeyPath(cfg.HostKeyPath),
		wish.WithPublicKeyAuth(s.allowKey),
		wish.WithBanner(keyHint),
		wish.WithMiddleware(
			recover.MiddlewareWithLogger(s.log,
				s.farewell,
				bm.MiddlewareWithProgramHandler(s.program, termenv.Ascii),
				s.probe,
				s.track,
				s.admit,
				s.opener,
				s.seat,
			),
		),
		ssh.EmulatePty(),
		s.refuseTheRest,
		s.watchLinks,
	)
	if err != nil {
		s.answers.close()
		return nil, fmt.Errorf("ssh server: %w", err)
	}
	if cfg.IdleTimeout > 0 {
		// A backstop for connections that never open a session or stall
		// in the handshake; sessions are closed politely before this.
		s.ssh.IdleTimeout = cfg.IdleTimeout + time.Minute
	}
	s.log.Info("host key", "path", cfg.HostKeyPath, "fingerprint", fingerprint)
	if cfg.Stage != "" {
		s.stageLink = stagelink.Open(stageURL, s.stage.Stage, stagelink.Options{Logger: s.log})
	}
	return s, nil
}

// ListenAndServe listens on the configured address and serves until
// Shutdown; it returns nil after a clean shutdown.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve serves attendees on ln until Shutdown; it returns nil after a
// clean shutdown. It runs its own accept loop (rather than the ssh
// package's) so that Shutdown knows every connection, handshaking or
// not, and can wait for all of them.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	s.log.Info("listening", "addr", ln.Addr().String(), "max-sessions", s.cfg.MaxSessions,
		"idle-timeout", s.cfg.IdleTimeout, "any-key", s.authorized == nil, "presenter-keys", len(s.presenters))
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() { // out of file descriptors and the like
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.log.Warn("accept", "err", err, "retry-in", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.connWG.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.connWG.Done()
			s.ssh.HandleConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Sessions is the number of attendees connected right now.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Shutdown stops accepting, says goodbye to every session and waits for
// them to end (or ctx to expire), then closes every connection left and
// waits for their goroutines.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	all := make([]*attendee, 0, len(s.sessions))
	for a := range s.sessions {
		all = append(all, a)
	}
	s.mu.Unlock()
	s.log.Info("shutting down", "sessions", len(all))
	for _, a := range all {
		a.kick(endShutdown)
	}

	var err error
	if !waitCtx(ctx, &s.handlers) {
		err = fmt.Errorf("sessions still open: %w", ctx.Err())
	}
	if s.stageLink != nil {
		s.stageLink.Close() // after the sessions: a presenter's leaving goes out first
	}
	// Goodbyes are written; drop what is left (connections without a
	// session, handshakes in progress, sessions that would not end).
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	grace, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !waitCtx(grace, &s.connWG) || !waitCtx(grace, &s.handlers) {
		return errors.New("connections did not close in time")
	}
	s.stage.Close()
	s.answers.close()
	if s.kept != nil {
		s.kept.close()
	}
	return err
}

// waitCtx waits for wg, or for ctx; it reports whether wg finished.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
