package serve

import (
	"fmt"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// refuseTheRest makes the server an explorer and nothing else: no exec
// but `open CODE`, no subsystems (sftp), no port forwarding either way,
// no agent or X11 forwarding. Each is refused at the protocol level, so clients report a
// failure rather than hang; exec and subsystems also get a line saying why.
func (s *Server) refuseTheRest(srv *ssh.Server) error {
	srv.SessionRequestCallback = func(sess ssh.Session, kind string) bool {
		switch kind {
		case "shell":
			return true
		case "exec":
			if _, ok := openArg(sess.RawCommand()); ok {
				return true
			}
			fmt.Fprintf(sess.Stderr(), "inflight: this server runs only the explorer, not commands (%q). Connect with plain `ssh`, or open a share code with `%s open 'CODE'`.\r\n", clientText(sess.RawCommand()), sshCommand(sess))
		default:
			fmt.Fprintf(sess.Stderr(), "inflight: no %s here (%s); this server runs only the explorer.\r\n", kind, clientText(sess.Subsystem()))
		}
		s.log.Info("refused", "why", kind, "user", userOf(sess), "remote", sess.RemoteAddr().String())
		return false
	}
	// Only session channels: direct-tcpip (ssh -L) and anything else is
	// rejected as an unknown channel type. No global request handlers:
	// tcpip-forward (ssh -R) is answered with a failure.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": refusingSession}
	srv.RequestHandlers = map[string]ssh.RequestHandler{}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	srv.LocalPortForwardingCallback = nil
	srv.ReversePortForwardingCallback = nil
	return nil
}

// refusingSession is the default session handler with agent and X11
// forwarding requests answered "no" before it sees them (it would
// otherwise say yes to agent forwarding).
func refusingSession(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{ch}, ctx)
}

// filteredChannel is a new session channel whose requests pass a filter.
type filteredChannel struct{ gossh.NewChannel }

// Accept accepts the channel and relays its requests, refusing forwarding
// ones. The relay ends when the channel's requests do.
func (f filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return nil, nil, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		for r := range reqs {
			switch r.Type {
			case "auth-agent-req@openssh.com", "x11-req":
				_ = r.Reply(false, nil)
			default:
				out <- r
			}
		}
	}()
	return ch, out, nil
}
