package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

func TestClockRoundTrip(t *testing.T) {
	for _, s := range []string{"19:52:34", "16:55:22.5", "00:00", "13900:10:00.001"} {
		c, err := engine.ParseClock(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		back, err := engine.ParseClock(c.Clock())
		if err != nil || back != c {
			t.Fatalf("%s → %s → %v (%v)", s, c.Clock(), back, err)
		}
	}
	for _, bad := range []string{"", "19", "19:60", "ab:cd", "19:52:5", "19:52:00.1234", "-1:00"} {
		if _, err := engine.ParseClock(bad); err == nil {
			t.Errorf("ParseClock(%q) accepted", bad)
		}
	}
}

// The clock's fast path and its general one agree.
func TestClockFormats(t *testing.T) {
	for _, ms := range []int64{0, 1, 999, 59_999, 3_599_999, 71_554_000, 99*3_600_000 + 3_599_999} {
		want := fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
		if got := engine.Time(ms).Clock(); got != want {
			t.Errorf("Clock(%d) = %s, want %s", ms, got, want)
		}
	}
	if got := engine.Time(100 * engine.Hour).Clock(); got != "100:00:00.000" {
		t.Errorf("100 h: %s", got)
	}
}

func FuzzParseClock(f *testing.F) {
	for _, s := range []string{"19:52:34", "16:55:22.5", "1:2:3", "99999:59:59.999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseClock(s)
		if err != nil {
			return
		}
		if back, err := engine.ParseClock(c.Clock()); err != nil || back != c {
			t.Fatalf("%q → %s does not round-trip", s, c.Clock())
		}
	})
}

func FuzzParseSetting(f *testing.F) {
	for _, s := range []string{"visibility_timeout=60s", "late_ack=accept", "orders=1000000", "wedge_p=0.05", "x", "=", "heartbeat=-1s"} {
		f.Add(s)
	}
	spec, _ := incidents.Get("thursday")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := engine.ParseSetting(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--set") {
				t.Fatalf("error does not name --set: %v", err)
			}
			return
		}
		p := spec.Params
		_ = p.Apply([]engine.Setting{st}) // must not panic
	})
}

func TestShareCodeRoundTrip(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	x, _ := engine.NewExplorer(spec, 7, []engine.Setting{{Knob: "orders", Value: "30"}})
	at, _ := engine.ParseClock("19:52:00")
	x.SeekTime(at)
	if _, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: at, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}}); err != nil {
		t.Fatal(err)
	}
	e, ok := x.NextDecision()
	if !ok {
		t.Fatal("no decision")
	}
	vals, _ := x.World().DecisionChoices(e.Decision)
	alt := vals[len(vals)-1]
	if _, err := x.Fork(engine.ForkOptions{Pos: e.Event.Pos, At: e.Event.T, Override: &engine.DecisionOverride{Index: e.Decision.Index, Value: alt}}); err != nil {
		t.Fatal(err)
	}
	x.Step(25)
	code := x.Code().String()
	c, err := engine.ParseCode(code)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != code {
		t.Fatalf("round trip: %s vs %s", c.String(), code)
	}
	y, err := engine.OpenCode(c, spec)
	if err != nil {
		t.Fatal(err)
	}
	if y.Pos() != x.Pos() || y.World().Fingerprint() != x.World().Fingerprint() || y.World().Now != x.World().Now {
		t.Fatalf("opened at %d/%x, made at %d/%x", y.Pos(), y.World().Fingerprint(), x.Pos(), x.World().Fingerprint())
	}
	// a code whose fingerprint does not match says so
	stale := c
	stale.Fingerprint ^= 1
	if _, err := engine.OpenCode(stale, spec); err == nil || !strings.Contains(err.Error(), "does not match its incident") {
		t.Fatalf("stale code: %v", err)
	}
}

func FuzzParseCode(f *testing.F) {
	for _, s := range []string{
		"thursday@1#end.9bca1df7",
		"thursday@1/p178@19:52:00;visibility_timeout=60s#560.d7435a6b",
		"thursday@7+orders=30/p100@19:52;d12=31000#125.00000000",
		"x@#.", "@1#1.1", "thursday@1/p@#end.00000000",
		"thursday@1/@21:15:00;do=redrive#end.b4c14be3",
		"thursday@1/p178@19:52:00;visibility_timeout=60s/p182@19:52:00;do=crash=B2#565.2131f271~2;n1=fork1",
		"thursday@1/p5@19:41;do=workers=+2;do=redrive=unfinished;do=#end.00000000",
	} {
		f.Add(s)
	}
	spec, _ := incidents.Get("thursday")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseCode(s)
		if err != nil {
			return
		}
		if _, err := engine.ParseCode(c.String()); err != nil {
			t.Fatalf("%q parses but its rendering %q does not: %v", s, c.String(), err)
		}
		if c.Incident == "thursday" && len(c.Forks) <= 2 && c.Cursor < 5000 {
			for _, fk := range c.Forks {
				if fk.Pos > 5000 {
					return
				}
			}
			_, _ = engine.OpenCode(c, spec) // must not panic
		}
	})
}

func FuzzExpectation(f *testing.F) {
	for _, s := range []string{"108", "0.45..0.60", "<=95", ">0", "[]", "[a,b]", " [b, a] ", "16:55:22.5", "17:52..17:54", "NaN", "1e400", "none",
		"0.9..0.1", "17:54..17:52", "5..5", "-1..-2"} {
		f.Add(s, "0.5")
	}
	f.Fuzz(func(t *testing.T, want, got string) {
		if engine.CheckExpectationSyntax(engine.Expectation{Key: "k", Want: want}) != nil {
			return
		}
		_ = engine.Matches(want, got)
		// a range it accepts holds some figure: its low end
		if w := strings.TrimSpace(want); strings.Contains(w, "..") && !strings.HasPrefix(w, "[") {
			lo, _, _ := strings.Cut(w, "..")
			if !engine.Matches(want, lo) {
				t.Fatalf("range %q accepted, but not even its low end %q is in it", want, lo)
			}
		}
		// An exact expectation (a figure, clock, list or word, not a range
		// or a bound) is met by the very value it names.
		w := strings.TrimSpace(want)
		if !strings.Contains(w, "..") && !strings.HasPrefix(w, "<") && !strings.HasPrefix(w, ">") && !engine.Matches(want, want) {
			t.Fatalf("Matches(%q, %q) is false: an exact expectation must match itself", want, want)
		}
	})
}
