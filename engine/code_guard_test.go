package engine_test

import (
	"strings"
	"testing"

	"inflight/engine"
	"inflight/internal/termtext"
)

// TestCodeNamesRefuseTerminalControls: a fork name's %XX escapes may not
// smuggle in what the code's own characters may not hold (the issue's
// OSC 52 clipboard write and OSC 0 title, a screen clear, NUL, line
// breaks, bidi and zero-width characters), and neither may the code.
// Names of any printable text still open.
func TestCodeNamesRefuseTerminalControls(t *testing.T) {
	const v1 = "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec"
	for _, code := range []string{
		v1 + "~2;n1=%1b%5d52%3bc%3bZXZpbA%3d%3d%07%1b%5d0%3bpwned%07",
		v1 + "~2;n1=%1b%5b2J",
		v1 + "~2;n1=a%00b",
		v1 + "~2;n1=a%0ab",
		v1 + "~2;n1=a%0db",
		v1 + "~2;n1=a%09b",
		v1 + "~2;n1=a%7fb",
		v1 + "~2;n1=a%c2%9bb",      // CSI as one C1 character
		v1 + "~2;n1=%e2%80%aeevil", // U+202E
		v1 + "~2;n1=a%e2%81%a6b",   // U+2066
		v1 + "~2;n1=a%e2%80%8bb",   // U+200B
		v1 + "~2;n1=a%ef%bb%bfb",   // U+FEFF
		v1 + "~2;n1=a%d8%9cb",      // U+061C
	} {
		_, err := engine.ParseCode(code)
		if err == nil || !strings.Contains(err.Error(), "a name is plain text") {
			t.Errorf("%s: %v, want the name refused", code, err)
			continue
		}
		if msg := err.Error(); termtext.Clean(msg, termtext.Message) != msg {
			t.Errorf("the refusal itself carries controls: %q", msg)
		}
	}
	for _, code := range []string{
		"thursday\u202e@1#end.4648ade4",
		"thursday@1/p178@19:52:00;visibility_timeout=60s\u200b#560.1dde67ec",
	} {
		if _, err := engine.ParseCode(code); err == nil || !strings.Contains(err.Error(), "printable text") {
			t.Errorf("%q: %v, want refused", code, err)
		}
	}
	for _, name := range []string{"vt 60", "délai ×2 — 注文", "a%b/c#d;e~f", "📦 box"} {
		c, _ := engine.ParseCode(v1)
		c.Forks[0].Name = name
		d, err := engine.ParseCode(c.String())
		if err != nil || d.Forks[0].Name != name {
			t.Errorf("%q: %v, name %q", name, err, d.Forks[0].Name)
		}
	}
}

// FuzzCodeName puts random bytes in a fork's name: a code that parses
// holds a name the guard leaves as it is.
func FuzzCodeName(f *testing.F) {
	for _, s := range []string{"vt60", "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J", "a\x00\n\r", "\u202e\u200b", "\xff", "注文"} {
		f.Add(s)
	}
	base, err := engine.ParseCode("thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c := base
		c.Forks = append([]engine.CodeFork(nil), base.Forks...)
		c.Forks[0].Name = name
		d, err := engine.ParseCode(c.String())
		if err != nil {
			if msg := err.Error(); termtext.Clean(msg, termtext.Message) != msg {
				t.Fatalf("the refusal carries controls: %q", msg)
			}
			return
		}
		if got := d.Forks[0].Name; got != name || termtext.Clean(got, termtext.Name) != got {
			t.Fatalf("name %q came back %q", name, got)
		}
	})
}
