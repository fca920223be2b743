package serve

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"inflight/tui"
)

// readmeCode is a share code from the README: a named fork, a cursor.
const readmeCode = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec"

// openFake draws the code and the ssh command the explorer was given.
type openFake struct{ o tui.Options }

func newOpenFake(o tui.Options) (tea.Model, error) { return openFake{o: o}, nil }

func (f openFake) Init() tea.Cmd { return nil }

func (f openFake) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "q" {
		return f, tea.Quit
	}
	return f, nil
}

func (f openFake) View() string { return fmt.Sprintf("code=[%s] via=[%s]", f.o.Code, f.o.OpenVia) }

// execTerm is openTerm for a command instead of the shell.
func execTerm(t testing.TB, c *gossh.Client, cmd string) *term {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{sess: sess, done: make(chan struct{})}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if tm.in, err = sess.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sess.Stderr = &tm.errOut
	if err := sess.Start(cmd); err != nil {
		t.Fatal(err)
	}
	go tm.read(out)
	return tm
}

// sshTo is what y shows for the test server: its loopback address.
func sshTo(t testing.TB, addr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return "ssh -t -p " + port + " " + host
}

// TestOpenCommand: `open CODE`, quoted or not, hands the explorer the
// code and the way back to this server.
func TestOpenCommand(t *testing.T) {
	s := startServer(t, Config{}, newOpenFake)
	for _, cmd := range []string{
		"open " + readmeCode,        // ssh -t host open 'CODE'
		"open '" + readmeCode + "'", // ssh -t host "open 'CODE'"
		"  open \t" + readmeCode + " ",
	} {
		tm := execTerm(t, mustDial(t, s.addr, "alice", newKey(t)), cmd)
		tm.mustSee(t, wait, "code=["+readmeCode+"] via=["+sshTo(t, s.addr)+"]")
		tm.send("q")
		if err, ok := tm.ended(wait); !ok || err != nil {
			t.Fatalf("%q: q: ended=%v err=%v", cmd, ok, err)
		}
	}
}

// TestOpenCommandRefusals: every way an open command can be wrong ends
// with one line saying what to do and exit status 2 (bad input, as
// `inflight open` says); other commands are
// refused as before, now naming the one command there is.
func TestOpenCommandRefusals(t *testing.T) {
	s := startServer(t, Config{}, newOpenFake)
	c := mustDial(t, s.addr, "alice", newKey(t))
	run := func(cmd string, pty bool) (string, error) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var errOut syncBuffer
		sess.Stderr = &errOut
		if pty {
			if err := sess.RequestPty("xterm", 24, 80, nil); err != nil {
				t.Fatal(err)
			}
		}
		err = sess.Run(cmd)
		return errOut.String(), err
	}
	for _, tc := range []struct {
		cmd  string
		pty  bool
		want string
	}{
		{"open " + readmeCode, false, sshTo(t, s.addr) + " open 'CODE'"},
		{"open", true, "open takes a share code"},
		{"open thursday@1#nope", true, `share code "thursday@1#nope"`},
		{"opener " + readmeCode, true, ""},
		{"cat /etc/passwd", true, ""},
	} {
		if tc.want == "" { // refused as an exec: no session at all
			refusedExec(t, c, tc.cmd, "or open a share code with `"+sshTo(t, s.addr)+" open 'CODE'`")
			continue
		}
		got, err := run(tc.cmd, tc.pty)
		if exitStatus(err) != 2 || !strings.Contains(got, tc.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%q (pty %v): err %v, stderr %q; want exit 2 and one line with %q", tc.cmd, tc.pty, err, got, tc.want)
		}
	}
	if s.Sessions() != 0 {
		t.Errorf("sessions = %d", s.Sessions())
	}
}

// TestOpenCommandOverBudget: a good code past the session budget gets the
// budget's own line (naming its flag) and exit 1, before any frame.
func TestOpenCommandOverBudget(t *testing.T) {
	s := startServer(t, Config{SessionMaxEvents: 50}, nil)
	tm := execTerm(t, mustDial(t, s.addr, "alice", newKey(t)), "open "+readmeCode)
	err, ok := tm.ended(wait)
	if !ok || exitStatus(err) != 1 {
		t.Fatalf("ended=%v err=%v, want exit 1", ok, err)
	}
	if got := tm.errOut.String(); !strings.Contains(got, "could not open the explorer") || !strings.Contains(got, "--session-max-events") {
		t.Errorf("stderr %q", got)
	}
	tm.mu.Lock()
	alt := bytes.Contains(tm.out, []byte(ansi.SetAltScreenSaveCursorMode))
	tm.mu.Unlock()
	if alt {
		t.Error("the alt screen was entered")
	}
}

// TestOpenCommandRefusedCode: a code that parses but names a moment its
// run does not have (a clock after its end, a message it never
// publishes) is refused with the engine's line and exit 2, as `inflight
// open` refuses it, before any frame.
func TestOpenCommandRefusedCode(t *testing.T) {
	s := startServer(t, Config{}, nil)
	for code, want := range map[string]string{
		"thursday@1#end.4648ade4~2;at=23:00:00":   "share code's clock at=23:00:00 is after its branch ends (21:11:07.296)",
		"thursday@1#end.4648ade4~2;sel=999999999": "share code's selected message sel=999999999: its branch publishes messages 0 to 107",
	} {
		tm := execTerm(t, mustDial(t, s.addr, "alice", newKey(t)), "open "+code)
		err, ok := tm.ended(wait)
		if !ok || exitStatus(err) != 2 {
			t.Fatalf("%s: ended=%v err=%v, want exit 2", code, ok, err)
		}
		if got := tm.errOut.String(); !strings.Contains(got, want) {
			t.Errorf("%s: stderr %q, want %q", code, got, want)
		}
		tm.mu.Lock()
		alt := bytes.Contains(tm.out, []byte(ansi.SetAltScreenSaveCursorMode))
		tm.mu.Unlock()
		if alt {
			t.Errorf("%s: the alt screen was entered", code)
		}
	}
}

// TestCodeScreenShowsTheSSHForm: under serve, y shows how to open the
// code with ssh at this server, and still puts the code on the clipboard.
func TestCodeScreenShowsTheSSHForm(t *testing.T) {
	s := startServer(t, Config{}, nil)
	title, _ := thursday(t)
	tm := mustTerm(t, mustDial(t, s.addr, "alice", newKey(t)), 120, 40)
	tm.mustSee(t, wait, title)
	tm.send("y")
	tm.mustSee(t, wait, "Share this moment", sshTo(t, s.addr)+" open 'thursday@")
	// the copy is written by a command of its own, which a loaded machine
	// may run after the frame is drawn
	if !tm.until(wait, func() bool { return bytes.Contains(tm.raw(), []byte("\x1b]52;c;")) }) {
		t.Fatal("no OSC 52 copy in the output")
	}
}

// refusedExec sends an exec request by hand: a refused request ends
// Session.Run before the line written with it can be read.
func refusedExec(t *testing.T, c *gossh.Client, cmd, want string) {
	t.Helper()
	ch, reqs, err := c.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	go gossh.DiscardRequests(reqs)
	var errOut syncBuffer
	ended := make(chan struct{})
	go func() { io.Copy(&errOut, ch.Stderr()); close(ended) }() //nolint:errcheck
	ok, err := ch.SendRequest("exec", true, gossh.Marshal(struct{ Command string }{cmd}))
	if err != nil || ok {
		t.Fatalf("%q: exec accepted (ok=%v err=%v)", cmd, ok, err)
	}
	errOut.until(wait, ended, func() bool { return strings.Contains(errOut.String(), "\n") })
	if got := errOut.String(); !strings.Contains(got, want) {
		t.Errorf("%q: stderr %q, want %q", cmd, got, want)
	}
}
