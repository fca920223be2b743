package serve

import (
	"fmt"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	bm "github.com/charmbracelet/wish/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"inflight/tui"
)

// endReason is why the server, rather than the attendee, ended a session.
type endReason uint8

// The reasons a session ends.
const (
	endQuit     endReason = iota // the attendee quit, or hung up
	endIdle                      // nothing in or out for the idle timeout
	endShutdown                  // the server is stopping
	endCrash                     // the explorer panicked
	endError                     // the explorer could not be built
	endHangup                    // the client closed the session's channel
	endReplaced                  // a newer session of the same key took its explorer (resume.go)
)

func (r endReason) String() string {
	switch r {
	case endIdle:
		return "idle"
	case endShutdown:
		return "shutdown"
	case endCrash:
		return "crash"
	case endError:
		return "error"
	case endHangup:
		return "hangup"
	case endReplaced:
		return "replaced"
	}
	return "quit"
}

// attendee is one session's state on the server.
type attendee struct {
	id        uint64
	presenter bool // drives the stage: a presenter key, not as follow@
	exempt    bool // a presenter key (also as follow@, a projector): not counted against the cap
	follow    bool
	start     time.Time
	last      atomic.Int64 // unix nanoseconds of the last byte in or out
	idle      *time.Timer

	// the work kept across a reconnect (resume.go): the key's id, ""
	// when nothing is kept; its fingerprint for the log; closed once the
	// session's work is kept and its explorer released
	kid         string
	fingerprint string
	retired     chan struct{}
	resume      *tui.Work // the work this session reopens, taken before it starts

	mu     sync.Mutex
	sess   ssh.Session // its connection, which a takeover asks whether it is still there
	prog   *tea.Program
	reason endReason
	err    error     // with endError
	model  tea.Model // the explorer as of its last update, released at the end
}

// releaser is an explorer that holds what the server shares (a job, its
// memory in the pool) and gives it back when its session ends.
type releaser interface{ Release() }

// release gives back what the session's explorer holds.
func (a *attendee) release() {
	a.mu.Lock()
	m := a.model
	a.model = nil
	a.mu.Unlock()
	if r, ok := m.(releaser); ok {
		r.Release()
	}
}

func (a *attendee) setModel(m tea.Model) {
	a.mu.Lock()
	a.model = m
	a.mu.Unlock()
}

// attendeeKey finds the attendee in its session's context.
type attendeeKey struct{}

func attendeeOf(sess ssh.Session) *attendee {
	a, _ := sess.Context().Value(attendeeKey{}).(*attendee)
	return a
}

func (a *attendee) touch() { a.last.Store(time.Now().UnixNano()) }

// kick ends the session for reason r (the first reason given wins): its
// explorer is told to quit, and farewell says why.
func (a *attendee) kick(r endReason) {
	a.mu.Lock()
	if a.reason == endQuit {
		a.reason = r
	}
	p := a.prog
	a.mu.Unlock()
	if p != nil {
		// Quit blocks until the program's loop takes it; kick may be
		// called from inside that loop (a panicking View).
		go p.Quit()
	}
}

func (a *attendee) ended() (endReason, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reason, a.err
}

// admit lets a session in only with a terminal and only while there is
// room; a presenter key always gets in and takes no attendee's seat.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, _, ok := sess.Pty(); !ok {
			fmt.Fprint(sess.Stderr(), "inflight is a full-screen explorer and needs a terminal: "+
				"connect with plain `ssh` (or `ssh -t`), without a command.\r\n")
			s.log.Info("refused", "why", "no pty", "user", userOf(sess), "remote", sess.RemoteAddr().String())
			_ = sess.Exit(1)
			return
		}
		exempt := s.presenters.has(sess.PublicKey())
		a := &attendee{
			presenter: exempt && sess.User() != "follow",
			exempt:    exempt,
			follow:    sess.User() == "follow",
			start:     time.Now(),
			retired:   make(chan struct{}),
			sess:      sess,
		}
		if k := sess.PublicKey(); k != nil && !a.presenter && s.kept != nil && codeOf(sess) == nil {
			a.kid, a.fingerprint = keyID(k, sess.User()), fingerprintOf(k)
		}
		a.touch()
		s.mu.Lock()
		why := ""
		switch {
		case s.closing:
			why = "inflight: the workshop server is shutting down. Thanks for coming!"
		case !a.exempt && s.seatsTaken() >= s.cfg.MaxSessions:
			why = fmt.Sprintf("inflight: the workshop is full (%d attendees). Try again in a minute, or pair with a neighbour.", s.cfg.MaxSessions)
		default:
			s.nextID++
			a.id = s.nextID
			s.sessions[a] = struct{}{}
			s.handlers.Add(1)
		}
		n := len(s.sessions)
		s.mu.Unlock()
		if why != "" {
			fmt.Fprint(sess.Stderr(), why+"\r\n")
			s.log.Info("refused", "why", "full or closing", "user", userOf(sess), "remote", sess.RemoteAddr().String(), "sessions", n)
			_ = sess.Exit(1)
			return
		}
		defer s.handlers.Done()
		defer func() {
			s.mu.Lock()
			delete(s.sessions, a)
			n := len(s.sessions)
			s.mu.Unlock()
			r, err := a.ended()
			kv := []any{"id", a.id, "user", userOf(sess), "remote", sess.RemoteAddr().String(),
				"after", time.Since(a.start).Round(time.Millisecond), "why", r, "sessions", n}
			if err != nil {
				kv = append(kv, "err", err)
			}
			s.log.Info("disconnect", kv...)
		}()
		sess.Context().SetValue(attendeeKey{}, a)
		if a.presenter {
			// the stage stays when the presenter goes; followers are told
			s.stage.Arrive()
			defer s.stage.Leave()
		}
		defer func() {
			s.keepWork(a) // before the explorer lets go of what it holds
			a.release()
			close(a.retired)
		}()
		s.takeOver(a)
		a.resume = s.takeWork(a)
		next(sess)
	}
}

// seated is how many sessions count against the cap: all but presenter
// keys'. s.mu is held.
func (s *Server) seated() int {
	n := 0
	for a := range s.sessions {
		if !a.exempt {
			n++
		}
	}
	return n
}

// track logs the connect, watches for idleness and feeds the session on
// to the explorer through a wrapper that notes every byte in and out.
func (s *Server) track(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		a := attendeeOf(sess)
		pty, _, _ := sess.Pty()
		role := "attendee"
		switch {
		case a.presenter:
			role = "presenter"
		case a.exempt:
			role = "projector"
		case a.follow:
			role = "follower"
		}
		key := "none"
		if k := sess.PublicKey(); k != nil {
			key = gossh.FingerprintSHA256(k)
		}
		s.log.Info("connect", "id", a.id, "user", userOf(sess), "remote", sess.RemoteAddr().String(),
			"role", role, "key", key, "term", clientText(pty.Term),
			"size", fmt.Sprintf("%dx%d", pty.Window.Width, pty.Window.Height), "sessions", s.Sessions())
		// the presenter holds the stage: it may stand still for a talk
		if t := s.cfg.IdleTimeout; t > 0 && !a.presenter {
			var check func()
			check = func() {
				idle := time.Since(time.Unix(0, a.last.Load()))
				if idle >= t {
					a.kick(endIdle)
					return
				}
				a.mu.Lock()
				a.idle.Reset(t - idle)
				a.mu.Unlock()
			}
			a.mu.Lock()
			a.idle = time.AfterFunc(t, check)
			a.mu.Unlock()
			defer func() {
				a.mu.Lock()
				a.idle.Stop()
				a.mu.Unlock()
			}()
		}
		stop := make(chan struct{})
		defer close(stop)
		_, winch, _ := sess.Pty()
		next(watched{Session: sess, a: a, winch: s.coalesce(a, winch, resizeBeat, stop)})
	}
}

// resizeBeat is how often a session's new terminal size is applied at
// most: a client sending window changes as fast as it can costs one frame
// a beat (the stage's beat), the latest size winning.
const resizeBeat = 100 * time.Millisecond

// coalesce forwards the sizes that come on in, at most one a beat, the
// latest winning; the first goes at once. It ends when stop is closed. The
// sizes go on as the terminal said them: the explorer clamps them to
// tui.MaxWidth×tui.MaxHeight and says so on screen. in closes when the
// client has closed the session's channel: the session ends then, as
// nothing ends it otherwise while the connection stays open.
func (s *Server) coalesce(a *attendee, in <-chan ssh.Window, beat time.Duration, stop <-chan struct{}) <-chan ssh.Window {
	out := make(chan ssh.Window)
	go func() {
		var latest ssh.Window
		pending, ready, logged := false, true, false
		t := time.NewTimer(beat)
		t.Stop()
		defer t.Stop()
		for {
			var send chan<- ssh.Window
			if pending && ready {
				send = out
			}
			select {
			case <-stop:
				return
			case w, ok := <-in:
				if !ok {
					in = nil
					a.kick(endHangup)
					continue
				}
				latest, pending = w, true
			case send <- latest:
				pending, ready = false, false
				t.Reset(beat)
				if !logged && (latest.Width > tui.MaxWidth || latest.Height > tui.MaxHeight) {
					logged = true // once a session: a flood is not a log flood
					s.log.Info("terminal over the cap", "id", a.id, "size", fmt.Sprintf("%dx%d", latest.Width, latest.Height),
						"drawn", fmt.Sprintf("%dx%d", min(latest.Width, tui.MaxWidth), min(latest.Height, tui.MaxHeight)))
				}
			case <-t.C:
				ready = true
			}
		}
	}()
	return out
}

// watched is a session that records activity for the idle timeout, and
// whose window changes come coalesced.
type watched struct {
	ssh.Session
	a     *attendee
	winch <-chan ssh.Window
}

// Pty is the session's terminal, its sizes coming at most one a beat.
func (w watched) Pty() (ssh.Pty, <-chan ssh.Window, bool) {
	p, _, ok := w.Session.Pty()
	return p, w.winch, ok
}

func (w watched) Read(p []byte) (int, error) {
	n, err := w.Session.Read(p)
	if n > 0 {
		w.a.touch()
	}
	return n, err
}

func (w watched) Write(p []byte) (int, error) {
	n, err := w.Session.Write(p)
	if n > 0 {
		w.a.touch()
	}
	return n, err
}

// program builds the session's explorer: its own engine and branches, a
// renderer for its own terminal, the server's stage.
func (s *Server) program(sess ssh.Session) *tea.Program {
	a := attendeeOf(sess)
	m, err := s.newModel(tui.Options{
		Renderer:  s.renderer(sess),
		Stage:     s.stage,
		Presenter: a.presenter,
		Plan:      s.cfg.Plan, // tui gives it to the presenter only
		Follow:    a.follow,
		Shared:    s.shared,
		Code:      codeOf(sess),
		OpenVia:   sshCommand(sess),
		Resume:    a.resume,
	})
	if err != nil {
		a.mu.Lock()
		a.reason, a.err = endError, err
		a.mu.Unlock()
		return nil
	}
	opts := append(bm.MakeOptions(sess),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
		tea.WithoutSignalHandler(), // the server handles SIGINT/SIGTERM for every session
	)
	a.setModel(m)
	p := tea.NewProgram(guard{m: m, s: s, a: a}, opts...)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reason != endQuit {
		return nil // kicked while the explorer was being built
	}
	a.prog = p
	return p
}

// farewell runs once the explorer has stopped and tells the attendee why
// the server ended the session, if it did.
func (s *Server) farewell(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		r, err := attendeeOf(sess).ended()
		line := ""
		switch r {
		case endIdle:
			line = fmt.Sprintf("inflight: closed after %s without activity. %s", s.cfg.IdleTimeout, s.reconnectHint(sess))
		case endShutdown:
			line = "inflight: the workshop server is shutting down. Goodbye, and thanks for coming! If the workshop goes on, " + s.reconnectHint(sess)
		case endReplaced:
			line = "inflight: your key connected again (a reconnect, or another terminal with the same command): this session's explorer went there."
		case endCrash:
			line = "inflight: the explorer hit a bug and this session had to end (it has been logged). Reconnect to start again."
		case endError:
			line = fmt.Sprintf("inflight: could not open the explorer: %v", err)
		}
		if line != "" {
			fmt.Fprint(sess.Stderr(), "\r\n"+line+"\r\n")
		}
		next(sess)
	}
}

// guard recovers a panic in the explorer's Init, Update or View, logs it
// with its session and ends that session only. (Bubble Tea recovers
// panics in commands by itself and stops the program.)
type guard struct {
	m tea.Model
	s *Server
	a *attendee
}

func (g guard) crashed(r any) {
	g.s.log.Error("explorer panic", "id", g.a.id, "panic", r, "stack", string(debug.Stack()))
	g.a.kick(endCrash)
}

func (g guard) Init() (cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.crashed(r)
			cmd = nil
		}
	}()
	return g.m.Init()
}

func (g guard) Update(msg tea.Msg) (m tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.crashed(r)
			m, cmd = g, tea.Quit
		}
	}()
	next, cmd := g.m.Update(msg)
	g.m = next
	g.a.setModel(next)
	return g, cmd
}

func (g guard) View() (v string) {
	defer func() {
		if r := recover(); r != nil {
			g.crashed(r)
			v = ""
		}
	}()
	return g.m.View()
}

// reconnectHint says how to come back: the ssh command the attendee ran.
// One process knows its port; behind a hall's load balancer the port and
// address are the hall's, which the attendee typed and this process does
// not know.
func (s *Server) reconnectHint(sess ssh.Session) string {
	user := ""
	if sess.User() == "follow" {
		user = "follow@"
	}
	if s.cfg.Stage != "" {
		return fmt.Sprintf("To reconnect, run the same command again: ssh -p PORT %sHALL, with the hall's address you typed (another process of the hall takes you).", user)
	}
	port := "2222"
	if _, p, err := net.SplitHostPort(sess.LocalAddr().String()); err == nil {
		port = p
	}
	return fmt.Sprintf("To reconnect, run the same command again: ssh -p %s %sHOST.", port, user)
}
