package serve

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// probeWait is how long a session waits for its terminal to say what its
// background is before the first frame. wish's own query waits a second
// and then keeps reading the session until a key comes (a read on an SSH
// channel cannot be cancelled), so a terminal that answers nothing saw no
// frame until the attendee pressed a key, and lost that key. Terminals
// that answer do so within a round trip.
const probeWait = 300 * time.Millisecond

// maxBacklog bounds what the session's input holds that the explorer has
// not read yet; past it the pump stops reading and SSH's window pushes back.
const maxBacklog = 64 << 10

// probeKey finds the probe's answer in the session's context.
type probeKey struct{}

// probed is what the probe learned: whether the terminal named its
// background, and whether that background is dark.
type probed struct {
	answered bool
	dark     bool
}

// probe asks the terminal for its background colour and primary device
// attributes (the second answer closes the first, as in wish), waits at
// most probeWait, and hands the explorer the session's input with the
// answers taken out, whenever they come.
func (s *Server) probe(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		in := newTermInput(sess)
		defer in.close()
		if pty, _, ok := sess.Pty(); ok && pty.Term != "" && pty.Term != "dumb" {
			sess.Context().SetValue(probeKey{}, in.query(sess, probeWait))
		}
		next(inputSession{Session: sess, in: in})
	}
}

// inputSession is a session whose input comes through a termInput.
type inputSession struct {
	ssh.Session
	in *termInput
}

func (s inputSession) Read(p []byte) (int, error) { return s.in.Read(p) }

// renderer is the session's lipgloss renderer, as wish's MakeRenderer
// builds it (colour profile from the client's TERM and environment) but
// with the background the probe found, or dark when the terminal did not
// say: termenv assumes black too, and most terminals are.
func (s *Server) renderer(sess ssh.Session) *lipgloss.Renderer {
	pty, _, ok := sess.Pty()
	if !ok || pty.Term == "" || pty.Term == "dumb" {
		return lipgloss.NewRenderer(sess, termenv.WithProfile(termenv.Ascii))
	}
	env := environ(append(sess.Environ(), "TERM="+pty.Term))
	r := lipgloss.NewRenderer(sess, termenv.WithEnvironment(env), termenv.WithUnsafe())
	dark := true
	if p, ok := sess.Context().Value(probeKey{}).(probed); ok && p.answered {
		dark = p.dark
	}
	r.SetHasDarkBackground(dark)
	return r
}

// environ is the client's environment (what it sent with SetEnv, and its
// TERM) for termenv's colour profile.
type environ []string

func (e environ) Environ() []string { return e }

func (e environ) Getenv(k string) string {
	for i := len(e) - 1; i >= 0; i-- { // the last one set wins
		if v, ok := strings.CutPrefix(e[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// termInput reads a session's input in one goroutine, so that waiting
// for the terminal's answers can give up without a read left hanging
// that would swallow the next key. Until the device-attributes answer
// has come, answers are cut out of what the explorer reads (a late one
// would otherwise arrive as keystrokes).
type termInput struct {
	src io.Reader

	mu      sync.Mutex
	raw     []byte        // read, not yet filtered
	out     []byte        // filtered, for the explorer
	err     error         // the source's error, once it has one
	waiting bool          // the query is still waiting: hold a lone ESC too
	replied bool          // the device attributes came: no more filtering
	bg      []byte        // the background answer's colour, if one came
	stopped bool          // the session is over: drop what comes
	changed chan struct{} // closed (and replaced) on every change above
}

func newTermInput(src io.Reader) *termInput {
	in := &termInput{src: src, changed: make(chan struct{})}
	go in.pump()
	return in
}

// wake tells every waiter that something changed. Called with mu held.
func (in *termInput) wake() {
	close(in.changed)
	in.changed = make(chan struct{})
}

// pump reads the source until it fails (the channel closed), so it ends
// with the session.
func (in *termInput) pump() {
	b := make([]byte, 4096)
	for {
		n, err := in.src.Read(b)
		in.mu.Lock()
		in.raw = append(in.raw, b[:n]...)
		if err != nil {
			in.err = err
		}
		in.filter()
		in.wake()
		for err == nil && !in.stopped && len(in.out)+len(in.raw) > maxBacklog {
			ch := in.changed
			in.mu.Unlock()
			<-ch
			in.mu.Lock()
		}
		if in.stopped {
			in.out, in.raw = nil, nil // nobody will read it now
		}
		in.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// close lets the pump drop what nobody will read; the pump itself ends
// when the session's input does.
func (in *termInput) close() {
	in.mu.Lock()
	in.stopped = true
	in.wake()
	in.mu.Unlock()
}

// query writes the two queries to w and waits up to d for the answers.
func (in *termInput) query(w io.Writer, d time.Duration) probed {
	in.mu.Lock()
	in.waiting = true
	in.mu.Unlock()
	if _, err := io.WriteString(w, ansi.RequestBackgroundColor+ansi.RequestPrimaryDeviceAttributes); err != nil {
		in.mu.Lock()
		in.waiting = false
		in.mu.Unlock()
		return probed{}
	}
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	in.mu.Lock()
	defer in.mu.Unlock()
	for !in.replied && in.err == nil {
		ch := in.changed
		in.mu.Unlock()
		select {
		case <-ch:
			in.mu.Lock()
			continue
		case <-timeout.C:
		}
		in.mu.Lock()
		break
	}
	in.waiting = false
	in.filter() // a lone ESC held for a split answer is a key after all
	in.wake()
	dark, ok := darkColor(string(in.bg))
	return probed{answered: ok, dark: dark}
}

// Read gives the explorer the session's input without the answers.
func (in *termInput) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.out) == 0 {
		if in.err != nil {
			return 0, in.err
		}
		ch := in.changed
		in.mu.Unlock()
		<-ch
		in.mu.Lock()
	}
	n := copy(p, in.out)
	in.out = in.out[n:]
	in.wake()
	return n, nil
}

// filter moves raw input to out, cutting out complete answers and
// holding back the start of one still arriving. Called with mu held.
func (in *termInput) filter() {
	for len(in.raw) > 0 {
		if in.replied {
			in.out = append(in.out, in.raw...)
			in.raw = in.raw[:0]
			return
		}
		i := bytes.IndexByte(in.raw, ansi.ESC)
		if i < 0 {
			in.out = append(in.out, in.raw...)
			in.raw = in.raw[:0]
			return
		}
		in.out = append(in.out, in.raw[:i]...)
		in.raw = in.raw[i:]
		n, kind := answerAt(in.raw)
		switch {
		case kind == answerPartial && in.err == nil && (len(in.raw) > 1 || in.waiting):
			return // wait for the rest
		case kind == answerBackground:
			c := bytes.TrimSuffix(bytes.TrimSuffix(in.raw[len("\x1b]11;"):n], []byte{ansi.BEL}), []byte("\x1b\\"))
			in.bg = append([]byte(nil), c...)
			in.raw = in.raw[n:]
		case kind == answerAttributes:
			in.replied = true
			in.raw = in.raw[n:]
		default: // not an answer: the ESC is the user's
			in.out = append(in.out, in.raw[0])
			in.raw = in.raw[1:]
		}
	}
}

type answerKind uint8

const (
	answerNone answerKind = iota
	answerPartial
	answerBackground // ESC ] 11 ; colour (BEL | ESC \)
	answerAttributes // ESC [ ? params c
)

// answerAt says whether b, which starts with ESC, starts with one of the
// two answers (and how long it is), could be the start of one, or is not
// one. An answer longer than a terminal ever sends is not one.
func answerAt(b []byte) (int, answerKind) {
	const osc, da = "\x1b]11;", "\x1b[?"
	switch {
	case len(b) < len(osc) && (bytes.HasPrefix([]byte(osc), b) || bytes.HasPrefix([]byte(da), b)):
		return 0, answerPartial
	case bytes.HasPrefix(b, []byte(osc)):
		for i := len(osc); i < len(b) && i < 128; i++ {
			switch {
			case b[i] == ansi.BEL:
				return i + 1, answerBackground
			case b[i] == ansi.ESC && i+1 < len(b) && b[i+1] == '\\':
				return i + 2, answerBackground
			case b[i] == ansi.ESC && i+1 == len(b):
				return 0, answerPartial
			case b[i] < 0x20:
				return 0, answerNone
			}
		}
		if len(b) < 128 {
			return 0, answerPartial
		}
	case bytes.HasPrefix(b, []byte(da)):
		for i := len(da); i < len(b) && i < 64; i++ {
			switch c := b[i]; {
			case c == 'c':
				return i + 1, answerAttributes
			case c != ';' && (c < '0' || c > '9'):
				return 0, answerNone
			}
		}
		if len(b) < 64 {
			return 0, answerPartial
		}
	}
	return 0, answerNone
}

// darkColor reads an xterm colour answer ("rgb:RRRR/GGGG/BBBB", one to
// four hex digits a channel) and reports whether it is dark (HSL
// lightness under a half, as termenv decides).
func darkColor(s string) (dark, ok bool) {
	s, found := strings.CutPrefix(s, "rgb:")
	if !found {
		if s, found = strings.CutPrefix(s, "rgba:"); !found {
			return false, false
		}
	}
	parts := strings.Split(s, "/")
	if len(parts) < 3 {
		return false, false
	}
	lo, hi := 1.0, 0.0
	for _, p := range parts[:3] {
		if len(p) < 1 || len(p) > 4 {
			return false, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return false, false
		}
		f := float64(v) / float64(uint64(1)<<(4*len(p))-1)
		lo, hi = min(lo, f), max(hi, f)
	}
	return (lo+hi)/2 < 0.5, true
}
