// Package termtext is the one guard for text that reaches a terminal.
// Every string that did not come from the program's own literals passes
// Clean where it enters the program, so that no screen, error line or log
// has to remember to: a terminal acts on control characters (ESC starts
// the sequences that write the clipboard, retitle the window or clear the
// screen; CR and LF move the cursor), reorders text between bidi
// controls, and shows nothing for format characters, so a name can look
// like another.
//
// The entry points, each guarded where the text comes in:
//
//   - incident files: every text of a Spec (id, title, story, label,
//     bookmarks, exercises and their choices, properties, forks,
//     operators, alerts, sources, boxes; the captions interpolate these)
//     at the end of incidents.Parse, after the parser has refused such
//     characters already (the guard is the second wall);
//   - share codes: engine.ParseCode refuses a code or a format-2 fork
//     name (nN=, %XX-escaped) that holds any character Clean removes;
//   - the branch name typed in the fork form, as the fork is made, and
//     everything a presenter typed, as Stage.Publish puts it on stage;
//   - the stage between processes: states and questions from Redis are
//     checked (stage.State.Check, stage.PollShared.Check) as
//     serve/stagelink decodes them, and again by Stage.Receive and
//     Poll.Receive, which clean every text they keep;
//   - SSH: the user name and TERM a client sends, as serve logs them,
//     and the command or subsystem it asked for, as a refusal quotes it;
//   - the CLI: the error line main prints.
//
// Values quoted in the engine's and the incident parser's errors are
// quoted with %q (which escapes all of these) and clipped where they are
// written.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is a kind of field: the most runes it keeps and whether it may hold
// several lines. The caps are far above every bundled incident's text and
// anything the explorer writes, so they never cut legitimate text; they
// bound what a hostile source can make a frame or a log line carry.
type Kind struct {
	Max       int  // runes, the ellipsis included
	Multiline bool // keep line breaks ('\n')
}

// The kinds of field.
var (
	// Name is a fork's or branch's name, an incident id, a label, a knob
	// value, an SSH user name: engine's share codes carry names of up to
	// 120 bytes.
	Name = Kind{Max: 120}
	// Line is one line of words: a title, a bookmark's title, a
	// property's words, a typed filter.
	Line = Kind{Max: 200}
	// Choice is one of a question's choices: one line of the question
	// overlay, as incident files allow.
	Choice = Kind{Max: 160}
	// Text is a paragraph that may break lines: a story, a bookmark's
	// words, a question, an explanation.
	Text = Kind{Max: 4000, Multiline: true}
	// Quote is a user's value quoted in an error line.
	Quote = Kind{Max: 40}
	// Message is an error message as the CLI prints it: several lines
	// when a file has several problems.
	Message = Kind{Max: 20000, Multiline: true}
)

// Strips reports whether Clean removes (or, for tab and line breaks,
// replaces) r: a control character (C0, DEL, C1, ESC among them), a bidi
// control, a format character (zero-width space, joiners, BOM, soft
// hyphen) or a line or paragraph separator. (Invalid UTF-8, which a range
// loop reads as U+FFFD, is the caller's to see.)
func Strips(r rune) bool {
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}

// Clean is s as a terminal may show it: controls, bidi controls and
// format characters removed; a tab, a lone CR, and a line break where k
// is one line, made a space (CRLF is one break); invalid UTF-8 made
// U+FFFD; at most k.Max runes, the last of them an ellipsis when s was
// longer. Text that needs none of it comes back unchanged.
func Clean(s string, k Kind) string {
	if fits(s, k) {
		return s
	}
	var b strings.Builder
	n, cut := 0, 0 // runes kept; b's length before the k.Max-th
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w <= 1:
			r = '\uFFFD'
		case r == '\r' && strings.HasPrefix(s[i+w:], "\n"):
			continue
		case r == '\n' || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
			r = ' '
			if k.Multiline {
				r = '\n'
			}
		case r == '\t', r == '\r': // a lone CR would go back over the line
			r = ' '
		case Strips(r):
			continue
		}
		if n == k.Max {
			// one rune too many: the ellipsis takes the last one's place
			return b.String()[:cut] + "…"
		}
		if n == k.Max-1 {
			cut = b.Len()
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// fits says s is already as Clean leaves it, without allocating.
func fits(s string, k Kind) bool {
	n := 0
	for i, r := range s {
		switch {
		case r == '\n' && k.Multiline:
		case Strips(r), r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return false
		}
		if n++; n > k.Max {
			return false
		}
	}
	return true
}
