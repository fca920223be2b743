package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Time is simulated time in milliseconds since midnight of the incident's
// day. It is an integer owned by the simulator so that no wall clock or
// floating point rounding can leak into a trace.
type Time int64

// Duration is a span of simulated time in milliseconds.
type Duration = Time

// Common spans, so that model code reads like the lesson.
const (
	Millisecond Duration = 1
	Second      Duration = 1000
	Minute      Duration = 60 * Second
	Hour        Duration = 60 * Minute
	// Never is a time that no run reaches: a lease renewed forever.
	Never Time = 1<<62 - 1
)

// Clock formats t as the incident clock, "19:52:34.000". Runs longer than a
// day keep counting hours (a 1M-order run ends near hour 13,900).
func (t Time) Clock() string {
	if t == Never {
		return "never"
	}
	if t >= 0 && t < 100*Hour {
		// the common case without fmt: captions format a clock for every
		// event a timeline lists
		ms := int64(t)
		b := [12]byte{'0', '0', ':', '0', '0', ':', '0', '0', '.', '0', '0', '0'}
		two := func(i int, v int64) { b[i], b[i+1] = byte('0'+v/10), byte('0'+v%10) }
		two(0, ms/3_600_000)
		two(3, ms/60_000%60)
		two(6, ms/1000%60)
		b[9], b[10], b[11] = byte('0'+ms%1000/100), byte('0'+ms%100/10), byte('0'+ms%10)
		return string(b[:])
	}
	neg := t < 0
	if neg {
		t = -t
	}
	ms := int64(t) % 1000
	s := int64(t) / 1000
	out := fmt.Sprintf("%02d:%02d:%02d.%03d", s/3600, s/60%60, s%60, ms)
	if neg {
		out = "-" + out
	}
	return out
}

// Short formats t without milliseconds when they are zero: "19:52:34",
// otherwise "16:55:22.5".
func (t Time) Short() string {
	c := t.Clock()
	c = strings.TrimRight(c, "0")
	return strings.TrimSuffix(c, ".")
}

// Brief formats a span for a pane row: "4.2s" under ten seconds, "45s",
// "3m", "3m05s", "2h07m"; negative spans take a minus sign.
func (t Time) Brief() string {
	d := t
	if d < 0 {
		return "-" + (-d).Brief()
	}
	s := int64(d) / 1000
	switch {
	case s < 60:
		if d > 0 && d < 10*Second && d%1000 != 0 {
			return strconv.FormatFloat(float64(d)/1000, 'f', 1, 64) + "s"
		}
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600 && s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// Seconds is t as fractional seconds, for figures such as max_oldest_age_s.
func (t Time) Seconds() float64 { return float64(t) / 1000 }

// FormatDuration renders a span the way incident files write it: "30s",
// "1m30s", "250ms".
func FormatDuration(d Duration) string {
	return time.Duration(d * Time(time.Millisecond)).String()
}

// SpanText is d as a person writes it, zero units dropped: "6s", "10m",
// "1m30s", "1h" — for an action's words and refusals.
func SpanText(d Duration) string {
	s := FormatDuration(d)
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Bounds on what a user may write, so that no sum a run makes of them can
// wrap: a source's start plus count×every is at most 100,000 h + 50,000,000
// × 1,000 h, about 1.8e17 ms, far below int64 and below Never.
const (
	MaxClockHours          = 100_000     // clocks are below 100000:00
	MaxDuration   Duration = 1000 * Hour // durations are at most 1000h
)

// ParseClock reads "19:52", "19:52:00" or "19:52:34.5" into a Time. Hours
// may pass 24 (long runs keep counting) but stay below MaxClockHours.
func ParseClock(s string) (Time, error) {
	s = strings.TrimSpace(s)
	q := clip(s) // what an error may echo
	if strings.ContainsAny(s, "+- ") {
		return 0, fmt.Errorf("clock %q: want HH:MM[:SS[.mmm]]", q)
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("clock %q: want HH:MM[:SS[.mmm]]", q)
	}
	h, err := strconv.Atoi(parts[0])
	if err != nil || h < 0 {
		if isDigits(parts[0]) {
			return 0, fmt.Errorf("clock %q: hours must be below %d", q, MaxClockHours)
		}
		return 0, fmt.Errorf("clock %q: bad hour", q)
	}
	if h >= MaxClockHours {
		return 0, fmt.Errorf("clock %q: hours must be below %d", q, MaxClockHours)
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 0 || m > 59 {
		return 0, fmt.Errorf("clock %q: bad minute", q)
	}
	var ms int64
	if len(parts) == 3 {
		sec := parts[2]
		frac := ""
		if i := strings.IndexByte(sec, '.'); i >= 0 {
			sec, frac = sec[:i], sec[i+1:]
		}
		n, err := strconv.Atoi(sec)
		if err != nil || n < 0 || n > 59 || len(sec) != 2 {
			return 0, fmt.Errorf("clock %q: bad second", q)
		}
		ms = int64(n) * 1000
		if frac != "" {
			if len(frac) > 3 {
				return 0, fmt.Errorf("clock %q: at most millisecond precision", q)
			}
			f, err := strconv.Atoi((frac + "00")[:3])
			if err != nil || f < 0 || !isDigits(frac) {
				return 0, fmt.Errorf("clock %q: bad fraction", q)
			}
			ms += int64(f)
		}
	}
	return Time(int64(h)*3600000 + int64(m)*60000 + ms), nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// durationUnits, largest first: a duration names each at most once, in
// this order, so that "1m30s" (what FormatDuration writes) reads but
// "30s45s" — two values run together — does not.
var durationUnits = []struct {
	name string
	ms   int64
}{{"h", int64(Hour)}, {"m", int64(Minute)}, {"s", int64(Second)}, {"ms", 1}}

// ParseDuration reads "30s", "2m", "250ms", "1.5s", "0" or the compound
// form FormatDuration writes ("1m30s": each unit once, largest first), with
// millisecond precision, at most MaxDuration, and no negative spans unless
// allowNeg.
func ParseDuration(s string, allowNeg bool) (Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	bad := func(format string, args ...any) (Duration, error) {
		return 0, fmt.Errorf("duration %q: %s", clip(orig), fmt.Sprintf(format, args...))
	}
	const want = "want a number with a unit, like 30s, 2m or 250ms"
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "0" {
		return 0, nil
	}
	if s == "" {
		return bad(want)
	}
	var total int64
	last := -1
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return bad(want)
		}
		num := s[:i]
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return r < 'a' || r > 'z' })
		if j < 0 {
			j = len(s)
		}
		unit := s[:j]
		s = s[j:]
		rank := -1
		for k, u := range durationUnits {
			if u.name == unit {
				rank = k
			}
		}
		if rank < 0 || num == "." || strings.Count(num, ".") > 1 {
			return bad(want)
		}
		switch {
		case rank == last:
			return bad("the unit %s comes twice; a duration is one number and one unit, like 75s (or 1m15s: each unit once, largest first)", unit)
		case rank < last:
			return bad("units go largest first, like 1m30s")
		}
		last = rank
		intPart, frac, _ := strings.Cut(num, ".")
		intPart = strings.TrimLeft(intPart, "0")
		frac = strings.TrimRight(frac, "0")
		if len(intPart) > 10 {
			return bad("at most %s", FormatDuration(MaxDuration))
		}
		var v int64
		if intPart != "" {
			n, _ := strconv.ParseInt(intPart, 10, 64)
			v = n * durationUnits[rank].ms
		}
		if frac != "" {
			// exact: the fraction must come to whole milliseconds
			if len(frac) > 7 {
				return bad("at most millisecond precision")
			}
			f, _ := strconv.ParseInt(frac, 10, 64)
			den := int64(1)
			for range len(frac) {
				den *= 10
			}
			if f*durationUnits[rank].ms%den != 0 {
				return bad("at most millisecond precision")
			}
			v += f * durationUnits[rank].ms / den
		}
		if total += v; total > int64(MaxDuration) {
			return bad("at most %s", FormatDuration(MaxDuration))
		}
	}
	if neg && !allowNeg && total != 0 {
		return bad("must not be negative")
	}
	if neg {
		total = -total
	}
	return Duration(total), nil
}

// shown is clip for a value printed without quotes: control characters
// come out as escapes, never as themselves.
func shown(s string) string {
	q := strconv.QuoteToGraphic(clip(s))
	return q[1 : len(q)-1]
}
