package tui

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
	"inflight/stage"
)

// frameSafe fails if a frame carries anything a terminal acts on beyond
// the renderer's own colours: an ESC that does not start an SGR sequence
// (ESC [ digits ; : m), any other control byte but the line break, a bidi
// control or a zero-width format character, or invalid UTF-8.
func frameSafe(t testing.TB, what, v string) {
	t.Helper()
	for i := 0; i < len(v); {
		r, w := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == 0x1b:
			j := i + 2
			for j < len(v) && (v[j] >= '0' && v[j] <= '9' || v[j] == ';' || v[j] == ':') {
				j++
			}
			if i+1 >= len(v) || v[i+1] != '[' || j >= len(v) || v[j] != 'm' {
				t.Fatalf("%s: an escape that is not SGR at byte %d: %q", what, i, v[i:min(len(v), i+20)])
			}
			i = j + 1
			continue
		case r == '\n':
		case r == utf8.RuneError && w == 1:
			t.Fatalf("%s: invalid UTF-8 at byte %d", what, i)
		case termtext.Strips(r):
			t.Fatalf("%s: %U at byte %d: %q", what, r, i, v[max(0, i-20):min(len(v), i+20)])
		}
		i += w
	}
}

// colourTest is newTest with a true-colour renderer: its frames carry
// SGR sequences, which frameSafe must tell from the rest.
func colourTest(t testing.TB, o Options, w, h int) (Model, error) {
	t.Helper()
	o.Renderer = lipgloss.NewRenderer(io.Discard, termenv.WithProfile(termenv.TrueColor))
	m, err := New(o)
	if err != nil {
		return m, err
	}
	waitChart(m)
	return resize(m, w, h), nil
}

// yamlQuoted is s as a YAML double-quoted scalar, every rune escaped, so
// that any text reaches the incident parser.
func yamlQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		fmt.Fprintf(&b, `\U%08X`, r)
	}
	b.WriteByte('"')
	return b.String()
}

const guardIncident = `id: guard
title: %s
start: "10:00:00"
sources:
  - {name: orders, start: "10:00:00", every: 1s, count: 3}
workers: {boxes: [A], per_box: 1}
provider: {latency_min: 1s, latency_max: 2s}
bookmarks:
  - {at: "10:00:01", title: %s, words: %s}
`

// FuzzFramesCarryNoControls puts random text in each field that reaches a
// screen from outside the program — a fork's name in a share code, a
// question's text and choices from another process, what a presenter
// typed into the state (the jump clock, the fork form), an incident's
// title and bookmark — and checks every frame drawn with it: no control
// byte but the renderer's own SGR colours, no bidi or zero-width
// character, whatever the input.
func FuzzFramesCarryNoControls(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07", "\x1b[2J", "a\x00b\nc\rd\te", "\u202e\u2066\u200b\ufeff",
		"\xff\xfe", "x|y|z", "\u009b31m", strings.Repeat("\u202e", 500), "zero\u200bwidth\ufeff\u2060",
	} {
		for field := range 5 {
			f.Add(uint8(field), s)
		}
		f.Add(uint8(1), s+"|"+s+"|ok") // a question with choices
	}
	const w, h = 100, 30
	st := NewStage()
	pres, err := colourTest(f, Options{Stage: st, Presenter: true}, 120, 40)
	if err != nil {
		f.Fatal(err)
	}
	press(pres, "]", "f", "right")
	base, _ := st.State() // the fork form, as the presenter fills it in
	fol, err := colourTest(f, Options{Stage: st, Follow: true}, w, h)
	if err != nil {
		f.Fatal(err)
	}
	wait, synced1 := fol.Init(), false // the first frame is synced under a *testing.T
	seq := uint64(1)
	code, err := engine.ParseCode("thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, field uint8, data string) {
		if !synced1 {
			fol, wait = sync1(t, fol, wait)
			fol, synced1 = synced(fol), true
		}
		switch field % 5 {
		case 0: // a fork's name in a share code
			c := code
			c.Forks = []engine.CodeFork{code.Forks[0]}
			c.Forks[0].Name = data
			// as the server hands it on: parsed from the text
			pc, err := engine.ParseCode(c.String())
			if err != nil {
				frameSafe(t, "the code's refusal", err.Error())
				return
			}
			m, err := colourTest(t, Options{Code: &pc}, w, h)
			if err != nil {
				frameSafe(t, "the code's refusal", err.Error())
				return
			}
			frameSafe(t, "a code's frame", m.View())
			m.Release()
		case 1: // a question from another process
			parts := strings.Split(data, "|")
			q := stage.PollShared{Seq: seq + 1, Open: true, Question: stage.PollQuestion{Incident: "thursday", Key: "5", Text: parts[0], Choices: parts[1:], Answer: 0}}
			if err := st.Poll().Receive(q); err == nil {
				seq++
			}
			fol = synced(fol)
			frameSafe(t, "a follower's frame with the question", fol.View())
		case 2, 3: // what the presenter typed, in the state from another process
			s := base
			fk := *base.Screen.Fork
			fk.Values = append([]string(nil), fk.Values...)
			if field%5 == 2 {
				fk.Name, fk.Filter, fk.Dec = data, data, data
				if len(fk.Values) > 0 {
					fk.Values[0] = data
				}
				s.Screen.Fork = &fk
			} else {
				s.Screen = stage.Screen{Kind: "jump", Text: data}
			}
			_, gen := st.State()
			if err := st.Receive(s); err != nil {
				t.Fatalf("a state with typed text refused: %v", err)
			}
			if _, g := st.State(); g != gen {
				fol, wait = sync1(t, fol, wait)
			}
			frameSafe(t, "a follower's frame of the typed state", followerView(fol))
		case 4: // an incident's title and bookmark
			spec, err := incidents.Parse("guard.yaml", []byte(fmt.Sprintf(guardIncident, yamlQuoted(data), yamlQuoted(data), yamlQuoted(data))))
			if err != nil {
				frameSafe(t, "the file's refusal", err.Error())
				return
			}
			m, err := colourTest(t, Options{Spec: spec}, w, h)
			if err != nil {
				t.Fatal(err)
			}
			frameSafe(t, "an incident's frame", press(m, "]").View())
			m.Release()
		}
	})
}
