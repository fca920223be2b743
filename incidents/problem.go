package incidents

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one thing wrong with an incident file, at a position. Line 0
// means the problem is with the file as a whole (not a regular file, too
// large), where there is no position to give.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p Problem) Error() string {
	// the message may quote the file; it must never carry a control
	// character to the terminal
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", visible(p.File), short(visible(p.Msg)))
	}
	return fmt.Sprintf("%s:%d:%d: %s", visible(p.File), p.Line, p.Col, short(visible(p.Msg)))
}

// short cuts a message that quotes a long value from the file: one line
// of error, not a page of the file back.
func short(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Problems is every problem found in one file, in file order.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// visible writes control characters and invalid UTF-8 as Go escapes.
func visible(s string) string {
	if printable(s, false) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// printable reports whether s is valid UTF-8 free of characters a terminal
// acts on: C0 controls (newline and tab only if multiline), DEL, C1
// controls, and the bidirectional overrides that reorder what is shown.
func printable(s string, multiline bool) bool {
	_, ok := firstUnprintable(s, multiline)
	return !ok
}

func firstUnprintable(s string, multiline bool) (rune, bool) {
	_, r, bad := firstUnprintableAt(s, multiline)
	return r, bad
}

// firstUnprintableAt is firstUnprintable with the byte offset of the
// character, for a text whose problems are positioned inside it.
func firstUnprintableAt(s string, multiline bool) (int, rune, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return i, r, true
		case r == '\n' || r == '\t':
			if !multiline {
				return i, r, true
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return i, r, true
		}
	}
	return 0, 0, false
}
