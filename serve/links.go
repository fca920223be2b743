package serve

import (
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// keyHint is the SSH banner. OpenSSH prints it before authentication, so
// an attendee without a key reads what to do next to the bare
// "Permission denied (publickey)".
const keyHint = "inflight workshop. No SSH key? Run: ssh-keygen -t ed25519   (then connect again)\n"

// fullGrace is how long a connection that authenticates while the
// workshop is full may stay without a session: long enough to open one
// and be told the workshop is full, not long enough to hold a seat.
const fullGrace = 10 * time.Second

// link is one connection. Once authenticated, while it has no session
// (ssh -N, or a multiplexed connection between sessions) it takes a seat
// toward --max-sessions and is closed after the idle timeout, as a
// session with nothing in or out would be.
type link struct {
	conn      net.Conn
	up        bool // authenticated
	presenter bool // a presenter key: takes no seat, as its sessions take none
	user      string
	remote    string
	start     time.Time
	sessions  int // open now
	timer     *time.Timer
	gen       uint64 // which arming of timer is current
	closed    bool
}

// links is every connection the server is handling, by its link.
type links struct {
	mu    sync.Mutex
	all   map[*link]struct{}
	grace time.Duration // fullGrace, unless a test wants it shorter
}

// linkKey finds a connection's link in its (and its sessions') context.
type linkKey struct{}

func linkOf(sess ssh.Session) *link {
	l, _ := sess.Context().Value(linkKey{}).(*link)
	return l
}

// idle is how many authenticated connections without a session take a
// seat now. Lock order: Server.mu, then links.mu.
func (ls *links) idle() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	n := 0
	for l := range ls.all {
		if l.up && l.sessions == 0 && !l.presenter && !l.closed {
			n++
		}
	}
	return n
}

// seatsTaken is what --max-sessions counts: sessions but presenter
// keys', and connections holding none. Called with s.mu held.
func (s *Server) seatsTaken() int { return s.seated() + s.links.idle() }

// Seats is how many of --max-sessions are taken right now: sessions, and
// authenticated connections without one (ssh -N).
func (s *Server) Seats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seatsTaken()
}

// watchLinks hooks the connection's life into the ssh server: a link per
// connection, counted from its authentication.
func (s *Server) watchLinks(srv *ssh.Server) error {
	srv.ConnCallback = func(ctx ssh.Context, c net.Conn) net.Conn {
		l := &link{conn: c, start: time.Now()}
		s.links.mu.Lock()
		if s.links.all == nil {
			s.links.all = map[*link]struct{}{}
		}
		s.links.all[l] = struct{}{}
		s.links.mu.Unlock()
		ctx.SetValue(linkKey{}, l)
		return &linkConn{Conn: c, s: s, l: l}
	}
	srv.ServerConfigCallback = func(ctx ssh.Context) *gossh.ServerConfig {
		l, _ := ctx.Value(linkKey{}).(*link)
		return &gossh.ServerConfig{
			// Called once the key has been accepted and its signature checked.
			VerifiedPublicKeyCallback: func(c gossh.ConnMetadata, k gossh.PublicKey, p *gossh.Permissions, _ string) (*gossh.Permissions, error) {
				if l != nil {
					s.linkUp(l, c, s.presenters.has(k))
				}
				return p, nil
			},
		}
	}
	return nil
}

// linkUp counts an authenticated connection and arms its timer: the idle
// timeout, or fullGrace when the workshop is already full.
func (s *Server) linkUp(l *link, c gossh.ConnMetadata, presenter bool) {
	s.mu.Lock()
	full := s.seatsTaken() >= s.cfg.MaxSessions
	s.links.mu.Lock()
	l.up, l.presenter, l.user, l.remote = true, presenter, userOf(c), c.RemoteAddr().String()
	grace := s.links.grace
	if grace == 0 {
		grace = fullGrace
	}
	d := s.cfg.IdleTimeout
	if full && !presenter && (d <= 0 || d > grace) {
		d = grace
	}
	s.arm(l, d)
	s.links.mu.Unlock()
	s.mu.Unlock()
}

// arm (re)starts l's timer, or stops it for d <= 0. Called with links.mu held.
func (s *Server) arm(l *link, d time.Duration) {
	l.gen++
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if d <= 0 || l.closed {
		return
	}
	gen := l.gen
	l.timer = time.AfterFunc(d, func() { s.expire(l, gen, d) })
}

// expire closes a connection whose timer ran out without a session.
func (s *Server) expire(l *link, gen uint64, d time.Duration) {
	s.links.mu.Lock()
	stale := l.gen != gen || l.sessions > 0 || l.closed
	user, remote := l.user, l.remote
	l.closed = true // its seat is free now, not once the connection has wound down
	s.links.mu.Unlock()
	if stale {
		return
	}
	s.log.Info("disconnect", "user", user, "remote", remote, "after", time.Since(l.start).Round(time.Millisecond),
		"why", "no session for "+d.String())
	l.conn.Close()
}

// seat marks the connection as holding a session for the session's life,
// before admit counts the seats (so that the connection and its session
// are not counted twice), and rearms the connection's timer after.
func (s *Server) seat(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		l := linkOf(sess)
		if l == nil {
			next(sess)
			return
		}
		s.links.mu.Lock()
		l.sessions++
		s.arm(l, 0)
		s.links.mu.Unlock()
		defer func() {
			s.links.mu.Lock()
			l.sessions--
			if l.sessions == 0 {
				s.arm(l, s.cfg.IdleTimeout)
			}
			s.links.mu.Unlock()
		}()
		next(sess)
	}
}

// linkConn is a connection that forgets its link when it closes.
type linkConn struct {
	net.Conn
	s    *Server
	l    *link
	once sync.Once
}

func (c *linkConn) Close() error {
	c.once.Do(func() {
		ls := &c.s.links
		ls.mu.Lock()
		c.l.closed = true
		c.s.arm(c.l, 0)
		delete(ls.all, c.l)
		ls.mu.Unlock()
	})
	return c.Conn.Close()
}
