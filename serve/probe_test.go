package serve

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"inflight/tui"
)

// colourFake draws what the session's renderer decided about the
// terminal, and every key it got.
type colourFake struct {
	r    *lipgloss.Renderer
	w, h int
	keys string
}

func newColourFake(o tui.Options) (tea.Model, error) { return colourFake{r: o.Renderer}, nil }

func (f colourFake) Init() tea.Cmd { return nil }

func (f colourFake) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.w, f.h = msg.Width, msg.Height
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return f, tea.Quit
		}
		f.keys += msg.String()
	}
	return f, nil
}

func (f colourFake) View() string {
	if f.w == 0 {
		return ""
	}
	return fmt.Sprintf("frame %dx%d dark=%v profile=%d keys=%q.", f.w, f.h, f.r.HasDarkBackground(), f.r.ColorProfile(), f.keys)
}

// quietTerm is a terminal that answers the queries as answer says (""
// for never), after delay.
type quietTerm struct {
	in    io.WriteCloser
	start time.Time

	mu    sync.Mutex
	out   []byte
	first time.Duration // when the first frame came
	done  chan struct{}
	grew  chan struct{} // closed when more output comes
}

// openQuiet opens a session whose terminal answers the probe's queries
// with answer as soon as it is asked ("": never).
func openQuiet(t *testing.T, c *gossh.Client, answer string) *quietTerm {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	q := &quietTerm{start: time.Now(), done: make(chan struct{})}
	if q.in, err = sess.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(q.done)
		buf := make([]byte, 32<<10)
		asked := false
		for {
			n, err := out.Read(buf)
			q.mu.Lock()
			q.out = append(q.out, buf[:n]...)
			if !asked && bytes.Contains(q.out, queryDA1) {
				asked = true
				if answer != "" {
					go q.in.Write([]byte(answer)) //nolint:errcheck
				}
			}
			if q.first == 0 && strings.Contains(ansi.Strip(string(q.out)), "frame ") {
				q.first = time.Since(q.start)
			}
			if q.grew != nil {
				close(q.grew)
				q.grew = nil
			}
			q.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return q
}

func (q *quietTerm) waitFor(t *testing.T, d time.Duration, sub string) {
	t.Helper()
	hang := time.NewTimer(d) // only bounds a hang
	defer hang.Stop()
	for {
		q.mu.Lock()
		s := ansi.Strip(string(q.out))
		if q.grew == nil {
			q.grew = make(chan struct{})
		}
		more := q.grew // taken with the output read: what comes after wakes us
		q.mu.Unlock()
		if strings.Contains(s, sub) {
			return
		}
		select {
		case <-more:
		case <-q.done:
			// the reader's last read came before done: once more
			q.mu.Lock()
			s = ansi.Strip(string(q.out))
			q.mu.Unlock()
			if !strings.Contains(s, sub) {
				t.Fatalf("the session ended without %q; screen %q", sub, s)
			}
			return
		case <-hang.C:
			t.Fatalf("no %q after %s; screen %q", sub, d, s)
		}
	}
}

func (q *quietTerm) firstFrame() time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.first
}

// TestFirstFrameWhateverTheTerminalAnswers: a terminal that answers
// neither the colour nor the device-attributes query gets its first
// frame, on a dark background, and its first key is not lost; one that
// answers promptly gets the background it named; answers that come after
// the first frame (the probe has stopped waiting) never reach the
// explorer as keys. How soon the frame comes is probeWait's, a constant;
// the test does not time the machine.
func TestFirstFrameWhateverTheTerminalAnswers(t *testing.T) {
	const light = "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"
	cases := []struct {
		name   string
		answer string
		late   bool // written once the first frame is on screen
		want   string
	}{
		{"silent", "", false, "frame 80x24 dark=true profile=1"},
		{"attributes only", "\x1b[?62;22c", false, "frame 80x24 dark=true profile=1"},
		{"light, promptly", light, false, "frame 80x24 dark=false profile=1"},
		{"light, too late", light, true, "frame 80x24 dark=true profile=1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, Config{}, newColourFake)
			answer := tc.answer
			if tc.late {
				answer = ""
			}
			q := openQuiet(t, mustDial(t, s.addr, "alice", newKey(t)), answer)
			q.waitFor(t, wait, tc.want)
			t.Logf("first frame after %s", q.firstFrame())
			if tc.late {
				// the answer, then a key, in one ordered stream: the key
				// alone reaches the explorer if the answer is cut out
				if _, err := q.in.Write([]byte(tc.answer)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := q.in.Write([]byte("+")); err != nil {
				t.Fatal(err)
			}
			q.waitFor(t, wait, `keys="+".`)
		})
	}
}

// TestTermInputCutsAnswersSplitAcrossReads: the answers are cut out of
// the input however the reads split them; the keys around them stay, in
// order.
func TestTermInputCutsAnswersSplitAcrossReads(t *testing.T) {
	stream := "a\x1b]11;rgb:0000/0000/0000\x07b\x1b[?62;22cc\x1b[?1;2c"
	for cut := 1; cut < len(stream); cut++ {
		pr, pw := io.Pipe()
		in := newTermInput(pr)
		in.mu.Lock()
		in.waiting = true // as while the query waits: a lone ESC may start an answer
		in.mu.Unlock()
		go func() {
			pw.Write([]byte(stream[:cut])) //nolint:errcheck
			pw.Write([]byte(stream[cut:])) //nolint:errcheck
			pw.Close()
		}()
		got, _ := io.ReadAll(in)
		in.close()
		// Everything after the device attributes is the user's again.
		if want := "abc\x1b[?1;2c"; string(got) != want {
			t.Errorf("cut at %d: read %q, want %q", cut, got, want)
		}
		if dark, ok := darkColor(string(in.bg)); !ok || !dark {
			t.Errorf("cut at %d: background %q", cut, in.bg)
		}
	}
}

func TestDarkColor(t *testing.T) {
	for _, tc := range []struct {
		in       string
		dark, ok bool
	}{
		{"rgb:0000/0000/0000", true, true},
		{"rgb:ffff/ffff/ffff", false, true},
		{"rgb:10/10/10", true, true},
		{"rgb:f/f/e", false, true},
		{"rgba:ffff/ffff/ffff/ffff", false, true},
		{"rgb:ffff/ffff", false, false},
		{"#ffffff", false, false},
		{"rgb:zz/00/00", false, false},
	} {
		dark, ok := darkColor(tc.in)
		if dark != tc.dark || ok != tc.ok {
			t.Errorf("%q: dark=%v ok=%v, want %v %v", tc.in, dark, ok, tc.dark, tc.ok)
		}
	}
}

// TestTermKeepsTheFrameAfterTheQueries: the test terminal keeps a first
// frame that arrives in the same read as the queries (the server stopped
// waiting for the answers first, as on a loaded machine): dropping it left
// TestFiftySessionsStepAndFork's attendees an empty screen, since the
// explorer does not draw an unchanged screen again.
func TestTermKeepsTheFrameAfterTheQueries(t *testing.T) {
	tm := &term{in: nopCloser{io.Discard}, start: time.Now()}
	tm.take([]byte(ansi.RequestBackgroundColor + ansi.RequestPrimaryDeviceAttributes + "\x1b[?1049hMarlow Books"))
	if s := tm.screen(); !strings.Contains(s, "Marlow Books") || tm.firstByte() == 0 {
		t.Errorf("screen %q, first frame at %s", s, tm.firstByte())
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
