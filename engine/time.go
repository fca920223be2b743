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

// Seconds is t as fractional seconds, for figures such as max_oldest_age_s.
func (t Time) Seconds() float64 { return float64(t) / 1000 }

// FormatDuration renders a span the way incident files write it: "30s",
// "1m30s", "250ms".
func FormatDuration(d Duration) string {
	return time.Duration(d * Time(time.Millisecond)).String()
}

// ParseClock reads "19:52", "19:52:00" or "19:52:34.5" into a Time.
func ParseClock(s string) (Time, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "+- ") {
		return 0, fmt.Errorf("clock %q: want HH:MM[:SS[.mmm]]", s)
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("clock %q: want HH:MM[:SS[.mmm]]", s)
	}
	h, err := strconv.Atoi(parts[0])
	if err != nil || h < 0 {
		return 0, fmt.Errorf("clock %q: bad hour", s)
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 0 || m > 59 {
		return 0, fmt.Errorf("clock %q: bad minute", s)
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
			return 0, fmt.Errorf("clock %q: bad second", s)
		}
		ms = int64(n) * 1000
		if frac != "" {
			if len(frac) > 3 {
				return 0, fmt.Errorf("clock %q: at most millisecond precision", s)
			}
			f, err := strconv.Atoi((frac + "00")[:3])
			if err != nil || f < 0 {
				return 0, fmt.Errorf("clock %q: bad fraction", s)
			}
			ms += int64(f)
		}
	}
	return Time(int64(h)*3600000 + int64(m)*60000 + ms), nil
}

// ParseDuration reads Go-style durations ("30s", "1m", "250ms", "0s") with
// millisecond precision and no negative spans unless allowNeg.
func ParseDuration(s string, allowNeg bool) (Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("duration %q: want a number with a unit, like 30s, 2m or 250ms", s)
	}
	if d < 0 && !allowNeg {
		return 0, fmt.Errorf("duration %q: must not be negative", s)
	}
	if d%time.Millisecond != 0 {
		return 0, fmt.Errorf("duration %q: at most millisecond precision", s)
	}
	return Duration(d / time.Millisecond), nil
}
