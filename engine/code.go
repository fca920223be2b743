package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Code is a share code: one printable string naming an incident, seed,
// branch path and cursor, e.g.
//
//	thursday@1/p700@19:52:00;visibility_timeout=60s#812.3f2a9c1b
//
// The fingerprint after '.' is the trace's at the cursor: an engine that no
// longer reproduces the run says so instead of silently showing another.
type Code struct {
	Incident    string
	Seed        uint64
	Set         []Setting // from the start
	Forks       []CodeFork
	Cursor      int64 // events behind the cursor; -1 for the end
	Fingerprint uint32
}

// CodeFork is one fork on the path: at event Pos (or, with Pos -1, at the
// moment At, as `run --at` does), with knob changes and/or an override.
type CodeFork struct {
	Pos      int64
	At       Time
	Set      []Setting
	Override *DecisionOverride
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
	}
	if c.Cursor < 0 {
		b.WriteString("#end")
	} else {
		fmt.Fprintf(&b, "#%d", c.Cursor)
	}
	fmt.Fprintf(&b, ".%08x", c.Fingerprint)
	return b.String()
}

func parseSettings(s string) ([]Setting, error) {
	var out []Setting
	for _, kv := range strings.Split(s, ",") {
		st, err := ParseSetting(kv)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseCode reads a share code. It checks the syntax and the knob names;
// the incident and fingerprint are checked when the code is opened.
func ParseCode(s string) (Code, error) {
	bad := func(why string) (Code, error) {
		return Code{}, fmt.Errorf("share code %q: %s", s, why)
	}
	s = strings.TrimSpace(s)
	body, tail, ok := strings.Cut(s, "#")
	if !ok {
		return bad("missing '#cursor.fingerprint' at the end")
	}
	var c Code
	cur, fp, ok := strings.Cut(tail, ".")
	if !ok {
		return bad("missing '.fingerprint' after the cursor")
	}
	if cur == "end" {
		c.Cursor = -1
	} else {
		n, err := strconv.ParseInt(cur, 10, 64)
		if err != nil || n < 0 {
			return bad(fmt.Sprintf("cursor %q is not an event number", cur))
		}
		c.Cursor = n
	}
	f, err := strconv.ParseUint(fp, 16, 32)
	if err != nil || len(fp) != 8 {
		return bad(fmt.Sprintf("fingerprint %q is not 8 hex digits", fp))
	}
	c.Fingerprint = uint32(f)
	parts := strings.Split(body, "/")
	head := parts[0]
	head, set, hasSet := strings.Cut(head, "+")
	id, seed, ok := strings.Cut(head, "@")
	if !ok || id == "" {
		return bad("want incident@seed at the start")
	}
	c.Incident = id
	if c.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return bad(fmt.Sprintf("seed %q is not a number", seed))
	}
	if hasSet {
		if c.Set, err = parseSettings(set); err != nil {
			return bad(err.Error())
		}
	}
	for _, p := range parts[1:] {
		fields := strings.Split(p, ";")
		where := fields[0]
		var fk CodeFork
		fk.Pos = -1
		pos, at, ok := strings.Cut(where, "@")
		if !ok {
			return bad(fmt.Sprintf("fork %q: want p<event>@<clock>", p))
		}
		if pos != "" {
			n, err := strconv.ParseInt(strings.TrimPrefix(pos, "p"), 10, 64)
			if err != nil || !strings.HasPrefix(pos, "p") || n < 0 {
				return bad(fmt.Sprintf("fork %q: bad event number", p))
			}
			fk.Pos = n
		}
		if fk.At, err = ParseClock(at); err != nil {
			return bad(fmt.Sprintf("fork %q: %v", p, err))
		}
		for _, fld := range fields[1:] {
			if len(fld) > 1 && fld[0] == 'd' && !strings.Contains(strings.SplitN(fld, "=", 2)[0], "_") && fld[1] >= '0' && fld[1] <= '9' {
				k, v, _ := strings.Cut(fld[1:], "=")
				i, err1 := strconv.ParseInt(k, 10, 64)
				val, err2 := strconv.ParseInt(v, 10, 64)
				if err1 != nil || err2 != nil || i < 0 {
					return bad(fmt.Sprintf("fork %q: bad decision override %q", p, fld))
				}
				fk.Override = &DecisionOverride{Index: i, Value: val}
				continue
			}
			if fk.Set, err = parseSettings(fld); err != nil {
				return bad(err.Error())
			}
		}
		c.Forks = append(c.Forks, fk)
	}
	return c, nil
}

func fp32(fp uint64) uint32 { return uint32(fp >> 32) }

// Code is the share code of the cursor: this branch's path and position.
func (x *Explorer) Code() Code {
	c := Code{Incident: x.Spec.ID, Seed: x.Seed, Set: x.Set, Cursor: x.w.Pos, Fingerprint: fp32(x.w.fp)}
	for _, b := range x.cur.Path()[1:] {
		c.Forks = append(c.Forks, CodeFork{Pos: b.ForkPos, At: b.ForkAt, Set: b.Changes, Override: b.Override})
	}
	return c
}

// RunCode is the share code of a headless run's end.
func RunCode(spec *Spec, o RunOptions, w *World) Code {
	c := Code{Incident: spec.ID, Seed: o.Seed, Set: o.Set, Cursor: -1, Fingerprint: fp32(w.fp)}
	if o.HasAt {
		c.Forks = []CodeFork{{Pos: -1, At: o.At, Set: o.AtSet}}
	}
	return c
}

// ErrStaleCode says a code no longer reproduces its run.
type ErrStaleCode struct {
	Code      string
	Want, Got uint32
}

func (e *ErrStaleCode) Error() string {
	return fmt.Sprintf("share code %s was made by a different version of the engine: its run no longer reproduces here (fingerprint %08x, this engine gives %08x)", e.Code, e.Want, e.Got)
}

// OpenCode rebuilds the explorer a code names, on spec, with the cursor
// where the code puts it, and checks the fingerprint. OpenCodeWithin opens
// one under limits (in, which only it passes).
func OpenCode(c Code, spec *Spec, in ...*Within) (*Explorer, error) {
	if spec.ID != c.Incident {
		return nil, fmt.Errorf("share code is for incident %q, not %q", c.Incident, spec.ID)
	}
	x, err := NewExplorer(spec, c.Seed, c.Set)
	if err != nil {
		return nil, err
	}
	if err := x.within(in); err != nil {
		return nil, err
	}
	for i, f := range c.Forks {
		pos := f.Pos
		if pos < 0 {
			pos = x.PosAtTime(x.cur, f.At)
		}
		x.Goto(pos)
		if x.Pos() != pos {
			return nil, fmt.Errorf("share code fork %d is at event %d, but the run ends at event %d", i+1, pos, x.Pos())
		}
		if _, err := x.Fork(ForkOptions{Name: ForkName(f.Set, f.Override, f.At), Pos: pos, At: f.At, Set: f.Set, Override: f.Override}); err != nil {
			return nil, fmt.Errorf("share code fork %d: %w", i+1, err)
		}
	}
	if c.Cursor < 0 {
		x.End()
	} else {
		x.Goto(c.Cursor)
		if x.Pos() != c.Cursor {
			return nil, fmt.Errorf("share code cursor is at event %d, but the run ends at event %d", c.Cursor, x.Pos())
		}
	}
	if got := fp32(x.w.fp); got != c.Fingerprint || (c.Cursor >= 0 && x.Pos() != c.Cursor) {
		return nil, &ErrStaleCode{c.String(), c.Fingerprint, got}
	}
	return x, nil
}

// ForkName is a branch's default name, from what it changes:
// "visibility_timeout=60s @19:52".
func ForkName(set []Setting, o *DecisionOverride, at Time) string {
	var parts []string
	for _, s := range set {
		parts = append(parts, s.Knob+"="+s.Value)
	}
	if o != nil {
		parts = append(parts, fmt.Sprintf("decision %d=%d", o.Index, o.Value))
	}
	if len(parts) == 0 {
		parts = append(parts, "copy")
	}
	return strings.Join(parts, ",") + " @" + at.Short()
}
