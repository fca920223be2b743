package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	short := Kind{Max: 5}
	for _, c := range []struct {
		name, in string
		k        Kind
		want     string
	}{
		{"plain text is unchanged", "visibility_timeout=60s @19:52", Name, "visibility_timeout=60s @19:52"},
		{"accents, wide and emoji are kept", "café 注文 📦", Name, "café 注文 📦"},
		{"a real U+FFFD is kept", "a\uFFFDb", Name, "a\uFFFDb"},
		{"OSC 52 and OSC 0", "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07", Name, "]52;c;ZXZpbA==]0;pwned"},
		{"CSI clear screen", "a\x1b[2Jb", Name, "a[2Jb"},
		{"NUL, DEL and C1 (CSI as U+009B)", "a\x00b\x7fc\u009b2Jd\u0085e", Name, "abc2Jde"},
		{"line breaks in one line are spaces", "a\nb\rc\r\nd", Name, "a b c d"},
		{"line breaks kept where multi-line", "a\nb\r\nc\u2028d\u2029e", Text, "a\nb\nc\nd\ne"},
		{"a lone CR is a space, never a return", "a\rb", Text, "a b"},
		{"tab is a space", "a\tb", Text, "a b"},
		{"bidi overrides and isolates", "\u202eevil\u202c \u2066x\u2069\u200e\u200f\u061c", Name, "evil x"},
		{"zero-width and format", "a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg", Name, "abcdefg"},
		{"tag characters", "a\U000E0041b", Name, "ab"},
		{"invalid UTF-8 is U+FFFD", "a\xffb\xc3", Name, "a\uFFFDb\uFFFD"},
		{"at the cap is unchanged", "abcde", short, "abcde"},
		{"over the cap ends in an ellipsis", "abcdef", short, "abcd…"},
		{"the cap counts what is kept", "ab\x1b\x1b\x1bcde", short, "abcde"},
		{"the cap counts runes, not bytes", "注文注文注文", short, "注文注文…"},
		{"empty", "", Name, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Clean(c.in, c.k); got != c.want {
				t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestCleanBoundsAFlood: 50,000 right-to-left overrides and a megabyte
// of text come back as nothing and as the cap.
func TestCleanBoundsAFlood(t *testing.T) {
	if got := Clean(strings.Repeat("\u202e", 50_000), Text); got != "" {
		t.Errorf("50,000 U+202E: %q", got)
	}
	got := Clean(strings.Repeat("x", 1<<20), Line)
	if n := utf8.RuneCountInString(got); n != Line.Max || !strings.HasSuffix(got, "…") {
		t.Errorf("a megabyte: %d runes, ends %q", n, got[len(got)-4:])
	}
}

// safe fails unless s is what a terminal may be shown as k.
func safe(t *testing.T, s string, k Kind) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8: %q", s)
	}
	n := 0
	for _, r := range s {
		if Strips(r) && !(r == '\n' && k.Multiline) {
			t.Fatalf("%q keeps %U", s, r)
		}
		n++
	}
	if n > k.Max {
		t.Fatalf("%d runes, over %d", n, k.Max)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]52;c;ZXZpbA==\x07", "a\r\nb", "\u202e\u200b", "\xff\xfe", strings.Repeat("é", 300)} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, multi bool) {
		k := Kind{Max: 50, Multiline: multi}
		got := Clean(s, k)
		safe(t, got, k)
		if again := Clean(got, k); again != got {
			t.Fatalf("not idempotent: %q, then %q", got, again)
		}
		if fits(s, k) && got != s {
			t.Fatalf("%q needed nothing but came back %q", s, got)
		}
	})
}
