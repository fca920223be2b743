package tui

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// codeView shows the share code of this moment and how to open it.
type codeView struct {
	common
	keys closeKeyMap
	code string // the cursor's share code, set by the root as it moves
	done outcome
}

func (m *Model) openCode() {
	m.code = codeView{common: m.common, keys: closeKeyMap{Close: binding([]string{"esc", "enter", "q", "y"}, "esc", "close")}, code: m.shareCode()}
	m.state = stateCode
}

// shareCode is the code of what is on screen: the branch path with the
// forks' names, the cursor's event and, when they are not what opening
// the event shows anyway, the displayed clock and the selected message.
func (m *Model) shareCode() string {
	c := m.momentCode(false)
	return c.String()
}

// momentCode is the code of the moment on screen: its clock where it is
// not the event's (always, with at), its selection where it is not the
// featured message.
func (m *Model) momentCode(at bool) engine.Code {
	c := m.x.Code()
	if at || m.at != m.x.World().Now {
		c.At, c.HasAt = m.at, true
	}
	if m.sel != m.x.Spec.Featured {
		c.Sel, c.HasSel = m.sel, true
	}
	return c
}

// copyCmd puts s on the terminal's clipboard through OSC 52, which
// terminals honour over SSH too; one write, so that it never lands inside
// a frame the renderer writes.
func copyCmd(r *lipgloss.Renderer, s string) tea.Cmd {
	if r == nil || r.Output() == nil {
		return nil
	}
	out := r.Output()
	seq := ansi.SetSystemClipboard(s)
	return func() tea.Msg {
		_, _ = io.WriteString(out, seq)
		return nil
	}
}

// Update closes on its key.
func (c codeView) Update(msg tea.Msg) (codeView, tea.Cmd) {
	c.done = stay
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, c.keys.Close) {
		c.done = closed
	}
	return c, nil
}

// View is the code and how to open it (over SSH when the explorer runs
// under serve: attendees have ssh, not inflight), each on lines of its
// own and never cut. Where one is wider than the screen it goes on over
// the next lines: a code holds no whitespace (a name's spaces are %20), so
// ParseCode drops the line breaks and indentation a terminal copy brings
// with it, and the command's quote spans its lines, so a shell passes the
// pieces as one argument. A screen line is never a soft wrap of the
// terminal's (the renderer ends each with a newline), so no width makes
// the pieces join by themselves.
func (c codeView) View() string {
	code, st := c.code, c.st
	w := max(minCodeWidth, c.width)
	title := st.PaneTitle.Render("Share this moment") + st.Dim.Render("  esc or y closes")
	var codeL []string
	for _, l := range codeLines("  ", code, "", w) {
		codeL = append(codeL, st.Clock.Render(l))
	}
	head := "  inflight open '"
	if c.openVia != "" {
		head = "  " + c.openVia + " open '"
	}
	cmdL := codeLines(head, code, "'", w)
	if c.openVia != "" {
		cmdL = append(cmdL, st.Dim.Render("or, with inflight installed: inflight open '<code>'"))
	}
	dim := func(s string) (out []string) {
		for _, l := range wrap(s, w) {
			out = append(out, st.Dim.Render(l))
		}
		return out
	}
	// the words go first where the screen is too short for all of it:
	// the code and the command are never cut
	for _, layout := range [][][]string{
		{{title, ""}, wrap("The code names the incident, the seed, every fork on this branch and its name, the cursor, the clock on screen and the selected message:", w),
			codeL, {"", "Anyone can open exactly this moment with:"}, cmdL, {""},
			dim("A code from another engine version says so instead of showing a different run."),
			dim("y also copied it to the clipboard if the terminal allows (OSC 52; tmux: README)")},
		{{title, ""}, codeL, {"", "Anyone can open exactly this moment with:"}, cmdL},
		{{title, ""}, codeL, {""}, dim("Open it with " + strings.TrimSpace(strings.TrimSuffix(head, "'")) + " '<the code above>' (a taller terminal shows the command whole)")},
	} {
		if out := slices.Concat(layout...); len(out) <= c.height || c.height <= 0 {
			return strings.Join(out, "\n")
		}
	}
	return strings.Join(slices.Concat([]string{title, ""}, dim(fmt.Sprintf(
		"This code takes %d lines, more than the %d this terminal shows: y copied it to the clipboard, or make the terminal taller to see it whole.",
		len(codeL), c.height))), "\n")
}

// minCodeWidth is the narrowest the share screen lays a code out for:
// below it the explorer says the terminal is too small.
const minCodeWidth = 40

// codeLines lays out head+code+tail in lines of at most w cells, the code
// broken where it must be and, near the end of a line, after one of its
// separators (/ ; # ~ ,) rather than inside a %XX escape or a number.
// Lines after the first are indented two spaces; a copy brings the breaks
// and the spaces along, which a code's reader drops.
func codeLines(head, code, tail string, w int) []string {
	if ansi.StringWidth(head)+len(code)+len(tail) <= w {
		return []string{head + code + tail}
	}
	const indent = "  "
	var out []string
	line := head
	if ansi.StringWidth(head) > w-minCodeWidth/2 { // a long ssh command: the code starts below it
		out, line = append(out, head), indent
	}
	for code != "" {
		room := w - ansi.StringWidth(line)
		if len(code)+len(tail) <= room {
			out = append(out, line+code+tail)
			return out
		}
		n := codeBreak(code, min(room, len(code)-1)) // the tail goes with a piece
		out = append(out, line+code[:n])
		code, line = code[n:], indent
	}
	// the tail alone did not fit after the code's last piece
	return append(out, indent+tail)
}

// codeBreak is where to end a line of code with room cells: after the
// last separator or, failing one, before the last %XX escape (a name's
// space) in its final quarter, else at room, moved back so as not to split an escape.
func codeBreak(code string, room int) int {
	room = max(1, min(room, len(code)))
	if room == len(code) {
		return room
	}
	for _, at := range []func(i int) bool{
		func(i int) bool { return strings.IndexByte("/;#~,", code[i-1]) >= 0 },
		func(i int) bool { return code[i] == '%' },
	} {
		for i := room; i > room*3/4; i-- {
			if at(i) {
				return i
			}
		}
	}
	switch { // not inside a %XX
	case room > 1 && code[room-1] == '%':
		return room - 1
	case room > 2 && code[room-2] == '%':
		return room - 2
	}
	return room
}

// shellQuote quotes s for a POSIX shell: a fork's name may hold spaces,
// semicolons and quotes, and a code is pasted into a shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
