package engine_test

import (
	"math"
	"strings"
	"testing"

	"inflight/engine"
)

// One duration is one number and one unit; the compound form
// FormatDuration writes (each unit once, largest first) also reads.
func TestParseDuration(t *testing.T) {
	good := map[string]engine.Duration{
		"30s": 30_000, "2m": 120_000, "250ms": 250, "1.5s": 1500, "0": 0, "0s": 0, " 45s ": 45_000,
		"1m30s": 90_000, "5m0s": 300_000, "7m1ms": 420_001, "1h0m0s": 3_600_000, "1000h": engine.MaxDuration,
		"1m0.5s": 60_500, "0.001s": 1, "2h05m": 7_500_000,
	}
	for s, want := range good {
		got, err := engine.ParseDuration(s, false)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	bad := map[string]string{
		"30s45s":             "the unit s comes twice",
		"1m1m":               "the unit m comes twice",
		"45s1m":              "largest first",
		"20":                 "want a number with a unit",
		"":                   "want a number with a unit",
		"1d":                 "want a number with a unit",
		"1us":                "want a number with a unit",
		"s":                  "want a number with a unit",
		"1..5s":              "want a number with a unit",
		".s":                 "want a number with a unit",
		"-5s":                "must not be negative",
		"1001h":              "at most 1000h0m0s",
		"999h61m":            "at most 1000h0m0s",
		"2562047788016h":     "at most 1000h0m0s",
		"99999999999999999s": "at most 1000h0m0s",
		"0.0005s":            "at most millisecond precision",
		"1.5ms":              "at most millisecond precision",
		"NaNs":               "want a number with a unit",
		"Infh":               "want a number with a unit",
		"1e3s":               "want a number with a unit",
	}
	for s, want := range bad {
		_, err := engine.ParseDuration(s, false)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `duration "`+s+`"`) {
			t.Errorf("ParseDuration(%q) = %v; want an error naming it and saying %q", s, err, want)
		}
	}
	if d, err := engine.ParseDuration("-1m30s", true); err != nil || d != -90_000 {
		t.Errorf("negative when allowed: %d, %v", d, err)
	}
}

// Whatever FormatDuration writes, ParseDuration reads back: share codes and
// the fork form's prefilled values depend on it.
func TestFormatDurationRoundTrip(t *testing.T) {
	for _, d := range []engine.Duration{0, 1, 999, 1000, 1001, 59_999, 60_000, 90_000, 3_599_999, 3_600_000, 7_500_001, engine.MaxDuration, engine.MaxDuration - 1} {
		for _, sign := range []engine.Duration{1, -1} {
			s := engine.FormatDuration(sign * d)
			back, err := engine.ParseDuration(s, true)
			if err != nil || back != sign*d {
				t.Errorf("%d → %q → %d, %v", sign*d, s, back, err)
			}
		}
	}
}

// Clocks have an upper bound no sum of them can wrap.
func TestClockBounds(t *testing.T) {
	for _, s := range []string{"2562047788016:00", "2562047788017:00", "100000:00", "99999999999999999999:00"} {
		if _, err := engine.ParseClock(s); err == nil || !strings.Contains(err.Error(), "hours must be below 100000") {
			t.Errorf("ParseClock(%q) = %v", s, err)
		}
	}
	c, err := engine.ParseClock("99999:59:59.999")
	if err != nil || c != engine.MaxClockHours*engine.Hour-1 {
		t.Errorf("largest clock: %d, %v", c, err)
	}
	// the largest start plus the largest source a file may write stays far
	// from int64's end, and below Never
	last := int64(engine.MaxClockHours*engine.Hour) + 50_000_000*int64(engine.MaxDuration)
	if last <= 0 || last >= int64(engine.Never)/10 {
		t.Errorf("start + count×every = %d: too close to wrapping", last)
	}
	for _, s := range []string{"10:00:0x", "10:00:00.1x", "10:00:00.+1"} {
		if _, err := engine.ParseClock(s); err == nil {
			t.Errorf("ParseClock(%q) accepted", s)
		}
	}
}

// NaN (and infinities) are refused by every knob that takes a number;
// "30s45s" by every knob that takes a duration.
func TestKnobsRefuseNaNAndRunTogetherDurations(t *testing.T) {
	for _, k := range engine.Knobs() {
		if k.Name == "transactional_id" {
			continue // a name: "nan" is as good a name as any
		}
		var p engine.Params
		for _, v := range []string{"NaN", "nan", "+Inf", "-Inf", "Infinity", "1e400"} {
			if err := k.Set(&p, v); err == nil {
				t.Errorf("%s=%s accepted", k.Name, v)
			}
		}
		if strings.HasSuffix(k.Get(&p), "s") { // a duration knob
			if err := k.Set(&p, "30s45s"); err == nil || !strings.Contains(err.Error(), `"30s45s"`) {
				t.Errorf("%s=30s45s: %v", k.Name, err)
			}
		}
	}
	p := engine.Params{}
	err := p.Apply([]engine.Setting{{Knob: "wedge_p", Value: "NaN"}})
	if err == nil || !strings.Contains(err.Error(), "wedge_p=NaN") {
		t.Errorf("Apply wedge_p=NaN: %v", err)
	}
	if err := p.Apply([]engine.Setting{{Knob: "visibility_timeout", Value: "30s45s"}}); err == nil {
		t.Error("visibility_timeout=30s45s accepted")
	}
	for _, v := range []string{"shop-1", "", "a_b"} {
		if err := p.Apply([]engine.Setting{{Knob: "transactional_id", Value: v}}); err != nil {
			t.Errorf("transactional_id=%q: %v", v, err)
		}
	}
	for _, v := range []string{"a\x1b[2J", "a b", strings.Repeat("x", 65), "é"} {
		if err := p.Apply([]engine.Setting{{Knob: "transactional_id", Value: v}}); err == nil {
			t.Errorf("transactional_id=%q accepted", v)
		}
	}
}

// Apply names the knob an error is about, so a file can point at its line.
func TestApplyNamesTheKnob(t *testing.T) {
	p, _ := family(t, "sqs").Params()
	err := p.Apply([]engine.Setting{{Knob: "latency_min", Value: "1s"}, {Knob: "latency_max", Value: "500ms"}})
	ke, ok := err.(*engine.KnobError)
	if !ok || ke.Knob != "latency_max" || ke.Other != "latency_min" || err.Error() != "latency_max (500ms) is below latency_min (1s)" {
		t.Fatalf("%#v", err)
	}
}

// FuzzParseDuration: an accepted duration is within bounds, and formats
// to a string that reads back to the same span.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30s", "30s45s", "1m30s", "45s1m", "250ms", "1.5s", "0", "-1m", "1000h", "1001h",
		"2562047788016h", "99999999999999999999s", "0.0005s", "NaNs", "7m1ms", "1h0m0.001s", "..s", "1.s", ".5s"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, allowNeg bool) {
		d, err := engine.ParseDuration(s, allowNeg)
		if err != nil {
			if !strings.Contains(err.Error(), "duration ") {
				t.Fatalf("error does not name the duration: %v", err)
			}
			return
		}
		if d > engine.MaxDuration || d < -engine.MaxDuration || (!allowNeg && d < 0) {
			t.Fatalf("%q → %d out of bounds", s, d)
		}
		back, err := engine.ParseDuration(engine.FormatDuration(d), true)
		if err != nil || back != d {
			t.Fatalf("%q → %d → %q → %d, %v", s, d, engine.FormatDuration(d), back, err)
		}
	})
}

// FuzzClockBounds: an accepted clock is within bounds, and every sum a
// run makes of the largest values stays representable.
func FuzzClockBounds(f *testing.F) {
	for _, s := range []string{"19:52", "2562047788016:00", "99999:59:59.999", "100000:00", "0:00", "9223372036854775807:00", "1:2:3.4", "00:60"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseClock(s)
		if err != nil {
			return
		}
		if c < 0 || c >= engine.MaxClockHours*engine.Hour {
			t.Fatalf("%q → %d out of bounds", s, c)
		}
		end := int64(c) + 50_000_000*int64(engine.MaxDuration)
		if end < int64(c) || end >= int64(engine.Never) || math.IsInf(c.Seconds(), 0) {
			t.Fatalf("%q: start + count×every wraps", s)
		}
	})
}

// A value that is refused comes back in the error as a short prefix with
// its control characters escaped: codes and --set values may come from
// someone else, and the error goes to a terminal.
func TestKnobErrorsEchoShortVisiblePrefixes(t *testing.T) {
	long := strings.Repeat("9", 100_000)
	for _, v := range []string{"\x1b]0;pwned\x07\x1b[2J", long, long + "s", "12:" + long} {
		for _, k := range []string{"mode", "orders", "wedge_p", "visibility_timeout", "transactional_id"} {
			p := engine.Params{}
			err := p.Apply([]engine.Setting{{Knob: k, Value: v}})
			if err == nil {
				t.Fatalf("%s=%.20q accepted", k, v)
			}
			if msg := err.Error(); len(msg) > 300 || strings.ContainsAny(msg, "\x1b\x07") {
				t.Errorf("%s: error of %d bytes: %.120q", k, len(msg), msg)
			}
		}
		if _, err := engine.ParseClock(v); err == nil || len(err.Error()) > 200 || strings.ContainsAny(err.Error(), "\x1b\x07") {
			t.Errorf("ParseClock: %.120q", err)
		}
		if _, err := engine.ParseSetting(v); err == nil || len(err.Error()) > 400 || strings.ContainsAny(err.Error(), "\x1b\x07") {
			t.Errorf("ParseSetting: %.120q", err)
		}
	}
}

func TestSpanText(t *testing.T) {
	for _, tc := range []struct {
		d    engine.Duration
		want string
	}{
		{engine.Millisecond, "1ms"}, {6 * engine.Second, "6s"}, {10 * engine.Minute, "10m"}, {90 * engine.Second, "1m30s"},
		{engine.Hour, "1h"}, {engine.Hour + engine.Second, "1h0m1s"}, {engine.Hour + engine.Minute, "1h1m"},
	} {
		if got := engine.SpanText(tc.d); got != tc.want {
			t.Errorf("%d ms: %q, want %q", tc.d, got, tc.want)
		}
	}
}
