package tui

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// cellWidth is ansi.StringWidth(s), the cells s takes, without splitting
// s into grapheme clusters when it need not: a frame measures every line
// it draws, and the clusters were most of a frame's time. Printable ASCII,
// SGR-style escape sequences and the runes of quickRunes are counted here;
// anything else goes to ansi.
func cellWidth(s string) int {
	if n, ok := quickWidth(s); ok {
		return n
	}
	return ansi.StringWidth(s)
}

// lineWidth is lipgloss.Width(s): the widest of s's lines.
func lineWidth(s string) int {
	if n, ok := quickWidth(s); ok { // no newline in it
		return n
	}
	return lipgloss.Width(s)
}

// quickRunes are the ranges of runes whose widths quickWidth knows: each
// is a grapheme cluster of its own beside any of the others or ASCII (no
// combining mark, joiner, variation selector, control or Hangul among
// them), so the width of a string of them is the sum of theirs, which is
// ansi's width of each alone.
var quickRunes = [][2]rune{
	{0xa0, 0xac}, {0xae, 0x2ff}, // Latin-1 and Latin extended, less the soft hyphen (a control)
	{0x2010, 0x2027}, {0x2030, 0x205e}, // punctuation: dashes, quotes, "…", "‹›"
	{0x2190, 0x23ff}, // arrows, mathematical and technical symbols
	{0x2500, 0x27bf}, // box drawing, blocks, geometric shapes, symbols, dingbats
}

// quickTable holds the widths of the runes below quickEnd: -1 for those
// quickWidth leaves to ansi. It is filled on first use.
const quickEnd = 0x27c0

var (
	quickOnce  sync.Once
	quickTable [quickEnd]int8
)

func quickRuneWidth(r rune) (int, bool) {
	quickOnce.Do(func() {
		for i := range quickTable {
			quickTable[i] = -1
		}
		for _, rg := range quickRunes {
			for r := rg[0]; r <= rg[1]; r++ {
				quickTable[r] = int8(ansi.StringWidth(string(r)))
			}
		}
	})
	if r < 0 || r >= quickEnd || quickTable[r] < 0 {
		return 0, false
	}
	return int(quickTable[r]), true
}

// quickWidth is s's width when s holds only what cellWidth counts itself;
// false otherwise (then nothing is known).
func quickWidth(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == 0x1b:
			// CSI: ESC [ parameters (0x30–0x3f) intermediates (0x20–0x2f)
			// and a final byte (0x40–0x7e), no width
			j := i + 1
			if j >= len(s) || s[j] != '[' {
				return 0, false
			}
			j++
			for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
				j++
			}
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			if j >= len(s) || s[j] < 0x40 || s[j] > 0x7e {
				return 0, false
			}
			i = j + 1
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			w, ok := quickRuneWidth(r)
			if !ok || r == utf8.RuneError {
				return 0, false
			}
			n += w
			i += size
		default: // a control
			return 0, false
		}
	}
	return n, true
}

// blanks pads lines up to the widest frame without building the padding.
var blanks = strings.Repeat(" ", MaxWidth)

// spaces is n spaces.
func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	if n <= len(blanks) {
		return blanks[:n]
	}
	return strings.Repeat(" ", n)
}

// joinTop is lipgloss.JoinHorizontal(lipgloss.Top, strs...), measured by
// cellWidth: the blocks side by side, each padded to its widest line and
// the shorter ones with empty lines below.
func joinTop(strs ...string) string {
	switch len(strs) {
	case 0:
		return ""
	case 1:
		return strs[0]
	}
	blocks := make([][]string, len(strs))
	widths := make([]int, len(strs))
	height, size := 0, 0
	for i, s := range strs {
		blocks[i] = strings.Split(s, "\n")
		for _, l := range blocks[i] {
			widths[i] = max(widths[i], cellWidth(l))
		}
		height = max(height, len(blocks[i]))
		size += len(s)
	}
	var b strings.Builder
	b.Grow(size + height*8)
	for i := range height {
		for j, block := range blocks {
			l := ""
			if i < len(block) {
				l = block[i]
			}
			b.WriteString(l)
			b.WriteString(spaces(widths[j] - cellWidth(l)))
		}
		if i < height-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// joinLeft is lipgloss.JoinVertical(lipgloss.Left, strs...), measured by
// cellWidth: the blocks one under another, every line padded to the
// widest.
func joinLeft(strs ...string) string {
	switch len(strs) {
	case 0:
		return ""
	case 1:
		return strs[0]
	}
	blocks := make([][]string, len(strs))
	widest, size := 0, 0
	for i, s := range strs {
		blocks[i] = strings.Split(s, "\n")
		for _, l := range blocks[i] {
			widest = max(widest, cellWidth(l))
		}
		size += len(s)
	}
	var b strings.Builder
	b.Grow(size + len(strs))
	for i, block := range blocks {
		for j, l := range block {
			b.WriteString(l)
			b.WriteString(spaces(widest - cellWidth(l)))
			if !(i == len(blocks)-1 && j == len(block)-1) {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}
