package tui

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"inflight/engine"
)

// longCodeExplorer is thursday with two named forks, the second forcing a
// fault: a code far wider than 80 columns, with %XX escapes in its names.
func longCodeExplorer(t *testing.T) *engine.Explorer {
	t.Helper()
	s := specOf(t, "thursday")
	x, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Goto(178)
	if _, err := x.Fork(engine.ForkOptions{Name: "raise the timeout past the slowest email call", Pos: 178, At: x.World().Now,
		Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}}); err != nil {
		t.Fatal(err)
	}
	x.Goto(300)
	if _, err := x.Fork(engine.ForkOptions{Name: "and a worker's crash after its claim", Pos: 300, At: x.World().Now,
		Faults: []engine.Fault{{Point: "after_claim", Msg: 20, Delivery: 1}}}); err != nil {
		t.Fatal(err)
	}
	x.Goto(420)
	return x
}

// block is the lines of screen v from the one after the line holding
// after to the next blank line, each as a
// terminal's copy gives it: without the padding after its last character.
func block(t *testing.T, v, after string) []string {
	t.Helper()
	lines := strings.Split(ansi.Strip(v), "\n")
	for i, l := range lines {
		if !strings.Contains(l, after) {
			continue
		}
		var out []string
		for _, l := range lines[i+1:] {
			l = strings.TrimRight(l, " ")
			if l == "" || strings.HasPrefix(l, "or, with inflight") {
				return out
			}
			out = append(out, l)
		}
	}
	t.Fatalf("no block after %q in:\n%s", after, v)
	return nil
}

// The share screen shows the code and the command whole at 80 columns
// and up, in lines no wider than the screen: the code's lines, copied as
// a terminal copies them (a line break between lines, the indent kept),
// read as the code, and the command's, pasted into a shell, hand inflight
// open the code as one argument.
func TestShareScreenCopiesWhole(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to paste the command into")
	}
	for _, via := range []string{"", "ssh -t -p 2222 workshop.example.org"} {
		for _, w := range []int{80, 100, 120, 200} {
			t.Run(fmt.Sprintf("%d%s", w, map[bool]string{true: "/ssh"}[via != ""]), func(t *testing.T) {
				m := press(newTest(t, Options{Explorer: longCodeExplorer(t), OpenVia: via}, w, 40), "y")
				code := m.code.code
				if len(code) < 150 {
					t.Fatalf("code %s is not long enough to wrap", code)
				}
				v := m.View()
				body := strings.Join(strings.Split(v, "\n")[1:], "\n") // the header is not the share screen's
				for _, l := range strings.Split(v, "\n") {
					if ansi.StringWidth(l) > w {
						t.Fatalf("line wider than %d: %q", w, l)
					}
				}
				if strings.Contains(body, "…") {
					t.Fatalf("the screen cuts something:\n%s", v)
				}
				lines := block(t, v, "selected message:")
				c, err := engine.ParseCode(strings.Join(lines, "\n"))
				if err != nil || c.String() != code {
					t.Fatalf("the code's lines read as %v (%v), not %s:\n%s", c, err, code, strings.Join(lines, "\n"))
				}
				cmd := strings.Join(block(t, v, "Anyone can open"), "\n")
				prefix := "inflight open "
				if via != "" {
					prefix = via + " open "
				}
				rest, ok := strings.CutPrefix(strings.TrimLeft(cmd, " "), prefix)
				if !ok {
					t.Fatalf("command does not start with %q:\n%s", prefix, cmd)
				}
				args, err := exec.Command(sh, "-c", "set -- "+rest+"\n"+`printf '%s\n' "$#"; printf '%s' "$1"`).Output()
				if err != nil {
					t.Fatalf("sh on %q: %v", rest, err)
				}
				n, arg, _ := strings.Cut(string(args), "\n")
				if n != "1" {
					t.Fatalf("the shell reads %s arguments from:\n%s", n, cmd)
				}
				c, err = engine.ParseCode(arg)
				if err != nil || c.String() != code {
					t.Fatalf("the shell hands %q, which reads as %v (%v), not %s", arg, c, err, code)
				}
			})
		}
	}
}

// The share screen of a long code at 80 and 120 columns.
func TestShareScreenGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := press(newTest(t, Options{Explorer: longCodeExplorer(t)}, size[0], size[1]), "y")
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}

// A code too long for the screen's height with everything else keeps
// its lines whole: the words around it go first.
func TestShareScreenShortTerminal(t *testing.T) {
	x := longCodeExplorer(t)
	for i, pos := range []int64{430, 450, 470, 490} {
		x.Goto(pos)
		if _, err := x.Fork(engine.ForkOptions{Name: fmt.Sprintf("and then, as fork number %d, a longer lease for everyone", i+3), Pos: pos, At: x.World().Now,
			Set: []engine.Setting{{Knob: "visibility_timeout", Value: fmt.Sprintf("%ds", 61+i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range [][2]int{{80, 24}, {80, 30}, {120, 40}, {200, 60}} {
		m := press(newTest(t, Options{Explorer: x.Clone()}, size[0], size[1]), "y")
		code := m.code.code
		v := m.View()
		var lines []string
		if strings.Contains(v, "selected message:") {
			lines = block(t, v, "selected message:")
		} else { // the words went: the code comes after the title and a blank line
			var trimmed []string
			for _, l := range strings.Split(v, "\n") {
				trimmed = append(trimmed, strings.TrimRight(l, " "))
			}
			lines = block(t, strings.Replace(strings.Join(trimmed, "\n"), "esc or y closes\n\n", "esc or y closes\n", 1), "esc or y closes")
		}
		if c, err := engine.ParseCode(strings.Join(lines, "\n")); err != nil || c.String() != code {
			t.Fatalf("%dx%d: the code's lines read as %v (%v), not %s:\n%s", size[0], size[1], c, err, code, v)
		}
		if size[1] >= 40 && !strings.Contains(v, "Anyone can open") {
			t.Errorf("%dx%d: no command:\n%s", size[0], size[1], v)
		}
	}
}
