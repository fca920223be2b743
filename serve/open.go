package serve

import (
	"fmt"
	"net"
	"strings"

	"github.com/charmbracelet/ssh"

	"inflight/engine"
	"inflight/tui"
)

// openCommand is the one command a session accepts: `ssh -t HOST open
// CODE` opens the explorer at a share code, as `inflight open CODE` does
// on a machine with inflight installed.
const openCommand = "open"

// openArg splits an exec request's raw command into the open command's
// argument; ok is false for any other command. The argument is the rest
// of the line as it came, not split on spaces: ssh joins a command's
// words with spaces, and a fork's name in a code may hold some.
func openArg(raw string) (arg string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(raw), openCommand)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// openCode reads the open command's argument as a share code: as it came,
// or without the quotes around it when the quoting reached the server
// (ssh -t HOST "open 'CODE'"). It is parsed here only: the explorer is
// handed the value.
func openCode(arg string) (engine.Code, error) {
	c, err := engine.ParseCode(arg)
	if err == nil {
		return c, nil
	}
	for _, q := range []string{"'", `"`} {
		if len(arg) > 1 && strings.HasPrefix(arg, q) && strings.HasSuffix(arg, q) {
			if c, err2 := engine.ParseCode(arg[1 : len(arg)-1]); err2 == nil {
				return c, nil
			}
		}
	}
	return engine.Code{}, err
}

// openKey finds the share code of an open command in the session's context.
type openKey struct{}

// codeOf is the share code the session asked to open, or nil.
func codeOf(sess ssh.Session) *engine.Code {
	c, _ := sess.Context().Value(openKey{}).(*engine.Code)
	return c
}

// opener checks an open command before the session takes a seat: one
// code, a terminal, a code that parses. The explorer opens the code
// within the session budgets; when that fails (a code from another
// version, a fork past a budget) farewell prints why and the session
// exits as `inflight open` would: 1 for a budget, 2 for a refused code.
func (s *Server) opener(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		arg, ok := openArg(sess.RawCommand())
		if !ok { // no command (refuseTheRest lets no other through)
			next(sess)
			return
		}
		// every refusal here is of how open was called or of its code:
		// bad input, exit 2, as `inflight open` exits
		refuse := func(why, line string) {
			fmt.Fprint(sess.Stderr(), "inflight: "+line+"\r\n")
			s.log.Info("refused", "why", why, "user", userOf(sess), "remote", sess.RemoteAddr().String())
			_ = sess.Exit(2)
		}
		host := sshCommand(sess)
		if arg == "" {
			refuse("open usage", fmt.Sprintf("open takes a share code: %s open 'CODE'", host))
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			refuse("open without pty", fmt.Sprintf("the explorer needs a terminal: add -t, as in %s open 'CODE'", host))
			return
		}
		code, err := openCode(arg)
		if err != nil {
			refuse("bad code", err.Error())
			return
		}
		sess.Context().SetValue(openKey{}, &code)
		next(sess)
		if a := attendeeOf(sess); a != nil {
			if r, err := a.ended(); r == endError {
				_ = sess.Exit(tui.OpenStatus(err)) // as `inflight open` exits
			}
		}
	}
}

// sshCommand is how an attendee reaches this server, for the y screen
// and the open command's messages: `ssh -t -p PORT HOST` with the address
// the session came in on (the server cannot know a name DNS gives it),
// without -p for port 22.
func sshCommand(sess ssh.Session) string {
	host, port, err := net.SplitHostPort(sess.LocalAddr().String())
	if err != nil {
		return "ssh -t HOST"
	}
	if h, _, ok := strings.Cut(host, "%"); ok { // a link-local zone is the server's, not the attendee's
		host = h
	}
	if port == "22" {
		return "ssh -t " + host
	}
	return "ssh -t -p " + port + " " + host
}
