package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/log"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"
	gossh "golang.org/x/crypto/ssh"

	"inflight/tui"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChildServer())
	}
	goleak.VerifyTestMain(m)
}

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{} // closed when more is written (grown)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grew != nil {
		close(s.grew)
		s.grew = nil
	}
	return s.b.Write(p)
}

// grown is closed when more is written after the call.
func (s *syncBuffer) grown() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grew == nil {
		s.grew = make(chan struct{})
	}
	return s.grew
}

// until waits for ok to hold, trying it again each time more is written
// and once more when end closes; d only bounds a hang.
func (s *syncBuffer) until(d time.Duration, end <-chan struct{}, ok func() bool) bool {
	hang := time.NewTimer(d)
	defer hang.Stop()
	for {
		more := s.grown() // before ok, so a write between the two wakes us
		if ok() {
			return true
		}
		select {
		case <-more:
		case <-end:
			return ok()
		case <-hang.C:
			return ok()
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is a server on a free loopback port, shut down at cleanup.
type testServer struct {
	*Server
	addr string
	logs *syncBuffer
}

// model builds a test double for the explorer; nil means the real one.
type model func(tui.Options) (tea.Model, error)

func startServer(t testing.TB, cfg Config, m model) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	if cfg.HostKeyPath == "" {
		cfg.HostKeyPath = filepath.Join(t.TempDir(), "host_ed25519")
	}
	cfg.Logger = log.NewWithOptions(logs, log.Options{})
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m != nil {
		s.newModel = m
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return &testServer{Server: s, addr: ln.Addr().String(), logs: logs}
}

// newKey makes a throwaway client key.
func newKey(t testing.TB) gossh.Signer {
	t.Helper()
	s, err := quickKey()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func quickKey() (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return gossh.NewSignerFromKey(priv)
}

// writeKeys writes an authorized_keys file listing keys.
func writeKeys(t testing.TB, keys ...gossh.Signer) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# test keys\n\n")
	for _, k := range keys {
		b.Write(gossh.MarshalAuthorizedKey(k.PublicKey()))
	}
	p := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func dial(addr, user string, key gossh.Signer) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         10 * time.Second,
	})
}

func mustDial(t testing.TB, addr, user string, key gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := dial(addr, user, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// term is a client session with a PTY, as a terminal would drive it: it
// answers the colour and device-attribute queries a terminal answers, and
// keeps everything written to it.
type term struct {
	sess  *gossh.Session
	in    io.WriteCloser
	start time.Time

	mu       sync.Mutex
	out      []byte
	errOut   syncBuffer
	first    time.Duration // from start to the first byte after the query answers
	answered bool          // the terminal queries came and were answered
	done     chan struct{}
	waitErr  error
	grew     chan struct{} // closed when more output comes (grown)
}

var (
	queryDA1 = []byte(ansi.RequestPrimaryDeviceAttributes)
	queryBG  = []byte(ansi.RequestBackgroundColor)
)

// openTerm opens a PTY session of w×h and starts the shell.
func openTerm(c *gossh.Client, w, h int) (*term, error) {
	sess, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	tm := &term{sess: sess, start: time.Now(), done: make(chan struct{})}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		return nil, err
	}
	if tm.in, err = sess.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		return nil, err
	}
	sess.Stderr = &tm.errOut
	if err := sess.Shell(); err != nil {
		return nil, err
	}
	go tm.read(out)
	return tm, nil
}

func mustTerm(t testing.TB, c *gossh.Client, w, h int) *term {
	t.Helper()
	tm, err := openTerm(c, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func (tm *term) read(out io.Reader) {
	defer close(tm.done)
	buf := make([]byte, 32*1024)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			tm.take(buf[:n])
		}
		if err != nil {
			tm.waitErr = tm.sess.Wait()
			return
		}
	}
}

// take keeps what one read brought, answering the terminal queries the
// first time they come and dropping them (and what came before them).
func (tm *term) take(b []byte) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.out = append(tm.out, b...)
	if tm.grew != nil {
		close(tm.grew)
		tm.grew = nil
	}
	if i := bytes.Index(tm.out, queryDA1); !tm.answered && i >= 0 {
		tm.answered = true
		reply := "\x1b[?62;22c"
		if bytes.Contains(tm.out, queryBG) {
			reply = "\x1b]11;rgb:1010/1010/1010\x07" + reply
		}
		// What came in the same read after the queries stays: when the
		// server stopped waiting for the answers before this read (a
		// loaded machine), it is the first frame, and the explorer does
		// not draw an unchanged screen again.
		tm.out = append(tm.out[:0], tm.out[i+len(queryDA1):]...)
		if len(tm.out) > 0 {
			tm.first = time.Since(tm.start)
		}
		go tm.in.Write([]byte(reply)) //nolint:errcheck
	} else if tm.answered && tm.first == 0 {
		tm.first = time.Since(tm.start)
	}
}

// screen is everything written so far with escape sequences removed.
func (tm *term) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return ansi.Strip(string(tm.out))
}

// mark forgets the output so far, so the next waitFor sees only new output.
func (tm *term) mark() {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.out = tm.out[:0]
}

// grown is closed when more output comes after the call.
func (tm *term) grown() <-chan struct{} {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.grew == nil {
		tm.grew = make(chan struct{})
	}
	return tm.grew
}

// until waits for ok to hold, trying it again each time output comes and
// once more when the session ends; d only bounds a hang. It reports
// whether ok held.
func (tm *term) until(d time.Duration, ok func() bool) bool {
	hang := time.NewTimer(d)
	defer hang.Stop()
	for {
		more := tm.grown() // before ok, so output between the two wakes us
		if ok() {
			return true
		}
		select {
		case <-more:
		case <-tm.done:
			return ok()
		case <-hang.C:
			return ok()
		}
	}
}

// waitFor waits until the output holds every one of subs.
func (tm *term) waitFor(d time.Duration, subs ...string) error {
	missing := ""
	holds := func() bool {
		s := tm.screen()
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				missing = sub
				return false
			}
		}
		return true
	}
	if tm.until(d, holds) {
		return nil
	}
	select {
	case <-tm.done:
		return fmt.Errorf("session ended without %q (stderr %q, wait %v)", missing, tm.errOut.String(), tm.waitErr)
	default:
	}
	return fmt.Errorf("no %q on screen after %s; tail:\n%s", missing, d, tail(tm.screen(), 2000))
}

func (tm *term) mustSee(t testing.TB, d time.Duration, subs ...string) {
	t.Helper()
	if err := tm.waitFor(d, subs...); err != nil {
		t.Fatal(err)
	}
}

// firstByte is when the first output after the terminal queries came.
func (tm *term) firstByte() time.Duration {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.first
}

func (tm *term) send(keys string) error {
	_, err := tm.in.Write([]byte(keys))
	return err
}

// key sends one key and waits for the screen to react (output after the
// key), so that the next key reaches the program in a read of its own:
// keys typed together arrive as one message ("ll" is no key), and esc
// then a key reads as alt+key. Call it on a screen that is still (a
// playing stage draws on its own, which would pass for the reaction).
func (tm *term) key(k string) error {
	more := tm.grown()
	if err := tm.send(k); err != nil {
		return err
	}
	hang := time.NewTimer(wait)
	defer hang.Stop()
	select {
	case <-more:
		return nil
	case <-tm.done:
		return fmt.Errorf("the session ended after key %q (stderr %q, wait %v)", k, tm.errOut.String(), tm.waitErr)
	case <-hang.C:
		return fmt.Errorf("key %q drew nothing in %s; tail:\n%s", k, wait, tail(tm.screen(), 2000))
	}
}

// ended waits for the session to end and returns its exit error.
func (tm *term) ended(d time.Duration) (error, bool) {
	select {
	case <-tm.done:
		return tm.waitErr, true
	default:
	}
	select {
	case <-tm.done:
		return tm.waitErr, true
	case <-time.After(d):
		return nil, false
	}
}

func (tm *term) close() { tm.sess.Close() }

// fake is a small stand-in for the explorer, for tests of the server's
// plumbing: it draws a counter with the session's renderer, "+" counts,
// "p" panics, "q" quits.
type fake struct {
	n    int
	r    *lipgloss.Renderer
	w, h int
}

func newFake(o tui.Options) (tea.Model, error) { return fake{r: o.Renderer}, nil }

func (f fake) Init() tea.Cmd { return nil }

func (f fake) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.w, f.h = msg.Width, msg.Height
	case tea.KeyMsg:
		switch msg.String() {
		case "p":
			panic("fake explorer: boom")
		case "q", "ctrl+c":
			return f, tea.Quit
		default: // keys typed together arrive as one message
			f.n += strings.Count(msg.String(), "+")
		}
	}
	return f, nil
}

func (f fake) View() string {
	if f.w == 0 {
		return ""
	}
	return f.r.NewStyle().Bold(true).Render(fmt.Sprintf("fake explorer %dx%d count=%d", f.w, f.h, f.n))
}
