package engine

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"inflight/internal/termtext"
)

// Code is a share code: one printable string naming an incident, seed,
// branch path and cursor, e.g.
//
//	thursday@1/p700@19:52:00;visibility_timeout=60s#812.3f2a9c1b
//
// The fingerprint after '.' is the trace's at the cursor: an engine that no
// longer reproduces the run says so instead of silently showing another.
//
// That is format 1, and every format-1 code opens as it always did. Format
// 2 adds, after "~2", what the screen showed beyond the event: the
// displayed clock, the selected message and the forks' own names, each an
// optional ";field":
//
//	thursday@1/p178@19:52:00;visibility_timeout=60s#180.1dde67ec~2;at=19:52:30;sel=14;n1=vt60
//
// A code with none of them is written in format 1, so a moment that shows
// only its event has the code it always had.
type Code struct {
	Incident    string
	Seed        uint64
	Set         []Setting // from the start
	Forks       []CodeFork
	Cursor      int64 // events behind the cursor; -1 for the end
	Fingerprint uint32

	// format 2
	At     Time // the displayed clock, when HasAt: at or after the cursor's event
	HasAt  bool
	Sel    int32 // the selected message (-1 none), when HasSel
	HasSel bool
}

// CodeFormat is the newest share-code format this engine reads and writes.
const CodeFormat = 2

// maxCodeName is the longest fork name a code carries, in bytes.
const maxCodeName = 120

// CodeFork is one fork on the path: at event Pos (or, with Pos -1, at the
// moment At, as `run --at` does), with knob changes, an override and/or
// forced faults. Name is the branch's name when it is not the default
// (a world's Forcing.Label at the fork's moment, ForkNameOn): a code
// carries positions, and the name with its moment is derived from them.
//
// A forced fault is a field ";fault=POINT:MSG.DELIVERY" of its fork, one
// per fault, at most MaxCodeFaults a fork:
//
//	thursday-fixed@1/p179@19:40:20;fault=after_claim:14.1#end.1dde67ec
//
// An operator action is a field ";do=ACTION" (ParseAction), one per
// action, at most MaxForkActions a fork, taken at the fork's moment:
//
//	thursday@1/@21:15:00;do=redrive#end.b4c14be3
//
// A code without one is written as it always was.
type CodeFork struct {
	Pos      int64
	At       Time
	Set      []Setting
	Override *DecisionOverride
	Faults   []Fault
	Actions  []Action // operator actions: ";do=ACTION" each, in their order
	Name     string
}

// acts reports whether any fork of c takes an operator action.
func (c Code) acts() bool {
	for _, f := range c.Forks {
		if len(f.Actions) > 0 {
			return true
		}
	}
	return false
}

// MaxCodeFaults is the most faults one fork of a share code forces.
const MaxCodeFaults = 16

// escapeName keeps a fork name's letters, digits and _.:=@- and writes
// every other byte as %XX: the code stays one line of ASCII without the
// separators / # ; ~.
func escapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("_.:=@-,", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func unescapeName(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", fmt.Errorf("name %q: a %% without two hex digits", clip(s))
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("name %q: a %% without two hex digits", clip(s))
		}
		b.WriteByte(byte(n))
		i += 2
	}
	name := b.String()
	if !utf8.ValidString(name) {
		return "", fmt.Errorf("name %q is not valid text", clip(s))
	}
	// The %XX escapes reach what the check of the code's own characters
	// cannot: a name is shown in the header, so it is held to the guard
	// of every text a terminal shows (an ESC would let a code write the
	// clipboard or clear the screen).
	for _, r := range name {
		if termtext.Strips(r) {
			return "", fmt.Errorf("name %q holds a control or invisible character (%q); a name is plain text", clip(s), string(r))
		}
	}
	return name, nil
}

func settingsString(set []Setting) string {
	var parts []string
	for _, s := range set {
		parts = append(parts, s.Knob+"="+s.Value)
	}
	return strings.Join(parts, ",")
}

func (c Code) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%d", c.Incident, c.Seed)
	if len(c.Set) > 0 {
		b.WriteString("+" + settingsString(c.Set))
	}
	for _, f := range c.Forks {
		b.WriteString("/")
		if f.Pos >= 0 {
			fmt.Fprintf(&b, "p%d", f.Pos)
		}
		b.WriteString("@" + f.At.Short())
		if len(f.Set) > 0 {
			b.WriteString(";" + settingsString(f.Set))
		}
		if f.Override != nil {
			fmt.Fprintf(&b, ";d%d=%d", f.Override.Index, f.Override.Value)
		}
		for _, ft := range f.Faults {
			b.WriteString(";fault=" + ft.String())
		}
		for _, a := range f.Actions {
			b.WriteString(";do=" + a.String())
		}
	}
	if c.Cursor < 0 {
		b.WriteString("#end")
	} else {
		fmt.Fprintf(&b, "#%d", c.Cursor)
	}
	fmt.Fprintf(&b, ".%08x", c.Fingerprint)
	var ext []string
	if c.HasAt {
		ext = append(ext, "at="+c.At.Short())
	}
	if c.HasSel {
		if c.Sel < 0 {
			ext = append(ext, "sel=-")
		} else {
			ext = append(ext, fmt.Sprintf("sel=%d", c.Sel))
		}
	}
	for i, f := range c.Forks {
		if f.Name != "" {
			ext = append(ext, fmt.Sprintf("n%d=%s", i+1, escapeName(f.Name)))
		}
	}
	if len(ext) > 0 {
		fmt.Fprintf(&b, "~%d;%s", CodeFormat, strings.Join(ext, ";"))
	}
	return b.String()
}

// parseExt reads a format-2 code's fields, after the "~".
func (c *Code) parseExt(ext string) error {
	fields := strings.Split(ext, ";")
	v, err := strconv.Atoi(fields[0])
	switch {
	case err != nil || v < 2:
		return fmt.Errorf("format %q after '~' is not a format number", clip(fields[0]))
	case v > CodeFormat:
		return fmt.Errorf("format %d is newer than this inflight reads (up to %d): upgrade to open it", v, CodeFormat)
	}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		k, val, ok := strings.Cut(f, "=")
		if !ok || seen[k] {
			return fmt.Errorf("field %q: want one key=value each", clip(f))
		}
		seen[k] = true
		switch {
		case k == "at":
			if len(val) > maxCodeField {
				return fmt.Errorf("clock %q is too long", clip(val))
			}
			t, err := ParseClock(val)
			if err != nil {
				return err
			}
			c.At, c.HasAt = t, true
		case k == "sel":
			c.HasSel, c.Sel = true, -1
			if val != "-" {
				n, err := strconv.ParseInt(val, 10, 32)
				if err != nil || n < 0 {
					return fmt.Errorf("selected message %q is not a message number", clip(val))
				}
				c.Sel = int32(n)
			}
		case len(k) > 1 && k[0] == 'n':
			i, err := strconv.Atoi(k[1:])
			if err != nil || i < 1 || i > len(c.Forks) {
				return fmt.Errorf("name %q: the code has no fork %s", clip(k), clip(k[1:]))
			}
			name, err := unescapeName(val)
			if err != nil {
				return err
			}
			if name == "" || len(name) > maxCodeName {
				return fmt.Errorf("fork %d's name is empty or longer than %d bytes", i, maxCodeName)
			}
			c.Forks[i-1].Name = name
		default:
			return fmt.Errorf("unknown field %q", clip(k))
		}
	}
	return nil
}

// Share codes are pasted by people and, under `serve`, arrive from
// strangers. Before any engine work a code is held to these caps, so a
// hostile one is refused in time and memory bounded by them. The caps are
// far above any code the explorer makes (a few hundred bytes, a handful of
// forks) and leave room for branch names in codes.
const (
	MaxCodeLen   = 8 << 10 // bytes
	MaxCodeForks = 64
	// a knob name or value, clock, number or incident id: longer is no
	// real value, and error lines echo such fields whole
	maxCodeField = 40
	maxCodeID    = 64
)

// clip is a user's value as an error line may quote it: at most 40
// characters, so that one pasted megabyte does not come back as a
// megabyte of error. Quote it with %q, which escapes control characters.
func clip(s string) string {
	n := 0
	for i := range s {
		if n == maxCodeField {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func parseSettings(s string) ([]Setting, error) {
	var out []Setting
	for _, kv := range strings.Split(s, ",") {
		if len(kv) > maxCodeField {
			return nil, fmt.Errorf("setting %q is longer than any knob=value (%d characters)", clip(kv), maxCodeField)
		}
		st, err := ParseSetting(kv)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseCode reads a share code. It checks the caps, the syntax and the knob
// names; the incident and fingerprint are checked when the code is opened.
// Errors quote only the start of the code.
func ParseCode(s string) (Code, error) {
	raw := s
	bad := func(format string, a ...any) (Code, error) {
		return Code{}, fmt.Errorf("share code %q: %s", clip(raw), fmt.Sprintf(format, a...))
	}
	if len(s) > MaxCodeLen {
		return bad("%d bytes; a share code has at most %d", len(s), MaxCodeLen)
	}
	// A code holds no whitespace (a name's spaces are %20): what a copy of
	// a code wrapped over lines brings along, its line breaks and the
	// next line's indent, is dropped, so the code opens as it was shown.
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }), "")
	if n := strings.Count(s, "/"); n > MaxCodeForks {
		return bad("%d forks; a share code has at most %d", n, MaxCodeForks)
	}
	for i, r := range s {
		if termtext.Strips(r) || r == utf8.RuneError {
			return bad("a control, bidi or invisible character or invalid text at %q; a code is one line of printable text", clip(s[i:]))
		}
	}
	body, tail, ok := strings.Cut(s, "#")
	if !ok {
		return bad("missing '#cursor.fingerprint' at the end")
	}
	var c Code
	tail, ext, isExt := strings.Cut(tail, "~")
	cur, fp, ok := strings.Cut(tail, ".")
	if !ok {
		return bad("missing '.fingerprint' after the cursor")
	}
	if cur == "end" {
		c.Cursor = -1
	} else {
		n, err := strconv.ParseInt(cur, 10, 64)
		if err != nil || n < 0 {
			return bad("cursor %q is not an event number", clip(cur))
		}
		c.Cursor = n
	}
	f, err := strconv.ParseUint(fp, 16, 32)
	if err != nil || len(fp) != 8 {
		return bad("fingerprint %q is not 8 hex digits", clip(fp))
	}
	c.Fingerprint = uint32(f)
	parts := strings.Split(body, "/")
	head := parts[0]
	head, set, hasSet := strings.Cut(head, "+")
	id, seed, ok := strings.Cut(head, "@")
	if !ok || id == "" {
		return bad("want incident@seed at the start")
	}
	if len(id) > maxCodeID {
		return bad("incident id %q is longer than %d characters", clip(id), maxCodeID)
	}
	c.Incident = id
	if c.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return bad("seed %q is not a number", clip(seed))
	}
	if hasSet {
		if c.Set, err = parseSettings(set); err != nil {
			return bad("%v", err)
		}
	}
	for i, p := range parts[1:] {
		fields := strings.Split(p, ";")
		where := fields[0]
		var fk CodeFork
		fk.Pos = -1
		pos, at, ok := strings.Cut(where, "@")
		if !ok {
			return bad("fork %d %q: want p<event>@<clock>", i+1, clip(p))
		}
		if pos != "" {
			n, err := strconv.ParseInt(strings.TrimPrefix(pos, "p"), 10, 64)
			if err != nil || !strings.HasPrefix(pos, "p") || n < 0 {
				return bad("fork %d %q: bad event number", i+1, clip(p))
			}
			fk.Pos = n
		}
		if len(at) > maxCodeField {
			return bad("fork %d: clock %q is too long", i+1, clip(at))
		}
		if fk.At, err = ParseClock(at); err != nil {
			return bad("fork %d: %v", i+1, err)
		}
		for _, fld := range fields[1:] {
			if v, ok := strings.CutPrefix(fld, "do="); ok {
				if len(fk.Actions) == MaxForkActions {
					return bad("fork %d: more than %d actions", i+1, MaxForkActions)
				}
				a, err := ParseAction(v)
				if err != nil {
					return bad("fork %d: %v", i+1, err)
				}
				fk.Actions = append(fk.Actions, a)
				continue
			}
			if v, ok := strings.CutPrefix(fld, "fault="); ok {
				if len(fk.Faults) == MaxCodeFaults {
					return bad("fork %d: more than %d faults", i+1, MaxCodeFaults)
				}
				ft, err := ParseFault(v)
				if err != nil {
					return bad("fork %d: %v", i+1, err)
				}
				fk.Faults = append(fk.Faults, ft)
				continue
			}
			if len(fld) > 1 && fld[0] == 'd' && !strings.Contains(strings.SplitN(fld, "=", 2)[0], "_") && fld[1] >= '0' && fld[1] <= '9' {
				k, v, _ := strings.Cut(fld[1:], "=")
				idx, err1 := strconv.ParseInt(k, 10, 64)
				val, err2 := strconv.ParseInt(v, 10, 64)
				if err1 != nil || err2 != nil || idx < 0 {
					return bad("fork %d: bad decision override %q", i+1, clip(fld))
				}
				fk.Override = &DecisionOverride{Index: idx, Value: val}
				continue
			}
			if fk.Set, err = parseSettings(fld); err != nil {
				return bad("fork %d: %v", i+1, err)
			}
		}
		// The explorer's branch path forks at ever later events, and only
		// `run --at` makes a fork at a clock, as the code's one fork. Any
		// other order has no single meaning, so it is not a code.
		if fk.Pos < 0 && (len(parts) > 2 || fk.Override != nil || len(fk.Faults) > 0) {
			return bad("fork %d: a fork at a clock (/@HH:MM) must be the code's only fork and force no decision or fault", i+1)
		}
		if n := len(c.Forks); n > 0 && fk.Pos < c.Forks[n-1].Pos {
			return bad("fork %d at event %d comes before fork %d at event %d", i+1, fk.Pos, n, c.Forks[n-1].Pos)
		}
		c.Forks = append(c.Forks, fk)
	}
	if isExt {
		if err := c.parseExt(ext); err != nil {
			return bad("%v", err)
		}
	}
	return c, nil
}
