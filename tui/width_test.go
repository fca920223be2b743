package tui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// fitLineAnsi is fitLine as ansi and lipgloss measure it, the reference
// the quick widths must agree with.
func fitLineAnsi(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if d := w - lipgloss.Width(s); d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}

// widthPieces are what a frame's lines are made of, and what is not
// counted quickly: joiners, combining marks, variation selectors, wide
// runes, controls, other escape sequences and broken UTF-8.
var widthPieces = []string{
	"a", "Z", " ", "~", "0", "…", "›", "◆", "│", "▁", "█", "·", "×", "⎇", "▶", "⏸", "→", "é", "ß", "±", "⚠",
	"\x1b[1m", "\x1b[0m", "\x1b[38;2;10;20;30m", "\x1b[38:5:12m", "\x1b[?25l", "\x1b[ q", "\x1b", "\x1b[", "\x1b[12", "\x1b]8;;x\x1b\\",
	"\u0301", "\u200d", "\ufe0f", "\u00ad", "\u200b", "世", "😀", "👍🏽", "\t", "\n", "\r", "\x7f", "\xff", "\xe2\x80",
	"🇫🇷", "각", "\u1100", "\u0e33",
}

func randomLine(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(widthPieces[r.IntN(len(widthPieces))])
	}
	return b.String()
}

func TestQuickWidthIsAnsis(t *testing.T) {
	for _, rg := range quickRunes {
		for c := rg[0]; c <= rg[1]; c++ {
			for _, s := range []string{string(c), "a" + string(c) + "b", string(c) + string(c), "\x1b[1m" + string(c) + "\x1b[0m"} {
				if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
					t.Fatalf("cellWidth(%q) = %d, ansi says %d", s, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(26, 2))
	for range 200_000 {
		s := randomLine(r)
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("cellWidth(%q) = %d, ansi says %d", s, got, want)
		}
		if got, want := lineWidth(s), lipgloss.Width(s); got != want {
			t.Fatalf("lineWidth(%q) = %d, lipgloss says %d", s, got, want)
		}
		w := r.IntN(14) - 1
		if got, want := fitLine(s, w), fitLineAnsi(s, w); got != want {
			t.Fatalf("fitLine(%q, %d) = %q, want %q", s, w, got, want)
		}
	}
}

func FuzzQuickWidth(f *testing.F) {
	for _, p := range widthPieces {
		f.Add(p+"ab…"+p, 5)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = w%40 - 1
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("cellWidth(%q) = %d, ansi says %d", s, got, want)
		}
		if got, want := fitLine(s, w), fitLineAnsi(s, w); got != want {
			t.Fatalf("fitLine(%q, %d) = %q, want %q", s, w, got, want)
		}
	})
}

func TestJoinsAreLipglosss(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 4))
	block := func() string {
		lines := make([]string, 1+r.IntN(4))
		for i := range lines {
			lines[i] = randomLine(r)
		}
		return strings.Join(lines, "\n")
	}
	for range 20_000 {
		bs := make([]string, r.IntN(4))
		for i := range bs {
			bs[i] = block()
		}
		if got, want := joinTop(bs...), lipgloss.JoinHorizontal(lipgloss.Top, bs...); got != want {
			t.Fatalf("joinTop(%q) = %q, lipgloss gives %q", bs, got, want)
		}
		if got, want := joinLeft(bs...), lipgloss.JoinVertical(lipgloss.Left, bs...); got != want {
			t.Fatalf("joinLeft(%q) = %q, lipgloss gives %q", bs, got, want)
		}
	}
}
