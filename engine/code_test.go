package engine_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"inflight/engine"
	"inflight/incidents"
)

// hostileCodes are share codes an attacker or a bad paste could hand the
// parser: past the caps, or with long fields an error line might echo.
func hostileCodes() map[string]string {
	forks := func(n int) string {
		var b strings.Builder
		b.WriteString("thursday@1")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "/p%d@19:52;visibility_timeout=%ds", 300+i%1000, 31+i%50)
		}
		return b.String() + "#end.00000000"
	}
	long := strings.Repeat("9", 5000)
	return map[string]string{
		"33KB, 1000 forks":         forks(1000),
		"128KB, 3900 forks":        forks(3900),
		"1MB of slashes":           "thursday@1" + strings.Repeat("/", 1<<20) + "#end.00000000",
		"65 forks, short":          "thursday@1" + strings.Repeat("/p1@19:52", 65) + "#end.00000000",
		"9KB of one setting":       "thursday@1+orders=" + strings.Repeat("1", 9000) + "#end.00000000",
		"long seed":                "thursday@" + long + "#end.00000000",
		"long cursor":              "thursday@1#" + long + ".00000000",
		"long fingerprint":         "thursday@1#end." + long,
		"long incident id":         strings.Repeat("x", 5000) + "@1#end.00000000",
		"long setting value":       "thursday@1+orders=" + long + "#end.00000000",
		"long knob name":           "thursday@1+" + long + "=1#end.00000000",
		"long fork event":          "thursday@1/p" + long + "@19:52#end.00000000",
		"long fork clock":          "thursday@1/p1@" + long + "#end.00000000",
		"long fork setting":        "thursday@1/p1@19:52;visibility_timeout=" + long + "s#end.00000000",
		"long override":            "thursday@1/p1@19:52;d" + long + "=1#end.00000000",
		"long fork without clock":  "thursday@1/" + long + "#end.00000000",
		"terminal escape":          "thursday@1+orders=\x1b]0;pwned\x07#end.00000000",
		"invalid UTF-8":            "thursday@1+orders=\xff\xfe#end.00000000",
		"forks out of order":       "thursday@1/p500@19:52;orders=3/p100@19:52;orders=4#end.00000000",
		"clock fork among others":  "thursday@1/@19:52;orders=3/p100@19:52;orders=4#end.00000000",
		"clock fork with override": "thursday@1/@19:52;d3=1#end.00000000",
		"no cursor":                "thursday@1",
		"empty":                    "",
		"nothing but separators":   "@#.",
		"NUL in the middle":        "thursday@1\x00#end.00000000",
		"17 faults in one fork":    "thursday@1/p1@19:52" + strings.Repeat(";fault=after_claim:14.1", 17) + "#end.00000000",
		"long fault":               "thursday@1/p1@19:52;fault=after_claim:" + long + ".1#end.00000000",
		"fault at delivery 0":      "thursday@1/p1@19:52;fault=after_claim:14.0#end.00000000",
		"fault without delivery":   "thursday@1/p1@19:52;fault=after_claim:14#end.00000000",
		"fault with a bad point":   "thursday@1/p1@19:52;fault=After-Claim:14.1#end.00000000",
		"clock fork with a fault":  "thursday@1/@19:52;fault=after_claim:14.1#end.00000000",
	}
}

// Every hostile code is refused by the parser alone, in bounded time and
// memory, with one line that quotes at most 40 characters of it.
func TestHostileCodesRefusedFast(t *testing.T) {
	for name, s := range hostileCodes() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := engine.ParseCode(s)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		// the largest input is 1 MB: the parser may look at it, but not
		// copy it around or build anything in proportion to it
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
			t.Errorf("%s: parsing allocated %d bytes", name, alloc)
		}
		if took > 500*time.Millisecond { // a backstop: it takes microseconds
			t.Errorf("%s: took %s", name, took)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || len(msg) > 400 {
			t.Errorf("%s: error is %d bytes: %.300q", name, len(msg), msg)
		}
		if longestRun(msg, s) > 45 {
			t.Errorf("%s: error echoes %d characters of the code: %.300q", name, longestRun(msg, s), msg)
		}
		if strings.ContainsAny(msg, "\x1b\x07\x00") {
			t.Errorf("%s: error carries control characters: %q", name, msg)
		}
	}
}

// longestRun is the length in characters of the longest substring of code
// (starting in its first 200 bytes: enough for the codes here, which
// repeat one character or one fork) found in msg.
func longestRun(msg, code string) int {
	best := 0
	for i := 0; i < len(code) && i < 200; i++ {
		lo, hi := 0, len(code)-i
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if strings.Contains(msg, code[i:i+mid]) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		best = max(best, utf8.RuneCountInString(code[i:i+lo]))
	}
	return best
}

// The caps leave room: a code at the fork cap and near the length cap still
// parses.
func TestCodeCapsLeaveRoom(t *testing.T) {
	var b strings.Builder
	b.WriteString("thursday@1")
	for i := 0; i < engine.MaxCodeForks; i++ {
		fmt.Fprintf(&b, "/p%d@19:52:00;visibility_timeout=%ds", 300+i, 31+i)
	}
	b.WriteString("#end.00000000")
	if _, err := engine.ParseCode(b.String()); err != nil {
		t.Fatalf("%d forks, %d bytes: %v", engine.MaxCodeForks, b.Len(), err)
	}
	if b.Len() > engine.MaxCodeLen/2 {
		t.Errorf("a %d-fork code takes %d of the %d bytes: no room left for branch names", engine.MaxCodeForks, b.Len(), engine.MaxCodeLen)
	}
}

// A code whose fingerprint does not match is refused with the one sentence,
// and an early cursor is checked early: a 10-million-order code is refused
// at event 5000, not after playing ten million orders.
func TestReplayCodeMismatch(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	for _, s := range []string{
		"thursday@1#end.00000000",
		"thursday@1+orders=10000000#5000.00000000",
		"thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ed",
		"thursday@1/@19:52:00;visibility_timeout=60s#end.1dde67ed",
	} {
		c, err := engine.ParseCode(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		start := time.Now()
		var trace bytes.Buffer
		_, _, err = engine.ReplayCode(spec, c, engine.ReplayOptions{Trace: &trace})
		if !errors.Is(err, engine.ErrCodeMismatch) {
			t.Errorf("%s: %v", s, err)
		}
		if err.Error() != "this code does not match its incident (edited, mistyped, or made by another version of inflight)" {
			t.Errorf("%s: %q", s, err)
		}
		if trace.Len() != 0 {
			t.Errorf("%s: a wrong code wrote %d bytes of trace", s, trace.Len())
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s: took %s", s, took)
		}
		if _, err := engine.OpenCode(c, spec); !errors.Is(err, engine.ErrCodeMismatch) && !strings.Contains(s, "orders=10000000") {
			t.Errorf("%s: OpenCode: %v", s, err)
		}
	}
}

// explorerCodes are codes the explorer makes: a fork at a clock with a
// knob change, a forced decision, the cursor after both, before the last
// fork, and at the end.
func explorerCodes(t *testing.T) []engine.Code {
	spec, _ := incidents.Get("thursday")
	x, err := engine.NewExplorer(spec, 7, []engine.Setting{{Knob: "orders", Value: "30"}})
	if err != nil {
		t.Fatal(err)
	}
	at, _ := engine.ParseClock("19:52:00")
	x.SeekTime(at)
	if _, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: at, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}}); err != nil {
		t.Fatal(err)
	}
	x.Step(40)
	e, ok := x.NextDecision()
	if !ok {
		t.Fatal("no decision")
	}
	vals, _ := x.World().DecisionChoices(e.Decision)
	if _, err := x.Fork(engine.ForkOptions{Pos: e.Event.Pos, At: e.Event.T, Override: &engine.DecisionOverride{Index: e.Decision.Index, Value: vals[len(vals)-1]}}); err != nil {
		t.Fatal(err)
	}
	var codes []engine.Code
	x.Step(25)
	codes = append(codes, x.Code())
	x.Goto(e.Event.Pos - 10) // before the last fork
	codes = append(codes, x.Code())
	x.Goto(e.Event.Pos) // at it
	codes = append(codes, x.Code())
	x.End()
	codes = append(codes, x.Code())
	// and the clock-form code of a headless `run --at`
	o := engine.RunOptions{Seed: 1, HasAt: true, At: at, AtSet: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}}
	_, w, err := engine.Run(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	return append(codes, engine.RunCode(spec, o, w))
}

// The lean replay of a code is the explorer's run of it: same summary,
// same trace hash, same trace.
func TestReplayCodeEqualsExplorer(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	for _, c := range explorerCodes(t) {
		x, err := engine.OpenCode(c, spec)
		if err != nil {
			t.Fatalf("%s: OpenCode: %v", c, err)
		}
		want := x.Summary(x.Branch())
		var wantTrace bytes.Buffer
		if err := x.WriteTrace(x.Branch(), &wantTrace); err != nil {
			t.Fatal(err)
		}
		var trace bytes.Buffer
		got, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{Trace: &trace})
		if err != nil {
			t.Fatalf("%s: ReplayCode: %v", c, err)
		}
		if got.TraceSHA256 != want.TraceSHA256 || got.Events != want.Events || got.Effects != want.Effects || got.End != want.End {
			t.Errorf("%s: lean %s/%d events, explorer %s/%d", c, got.TraceSHA256, got.Events, want.TraceSHA256, want.Events)
		}
		if !bytes.Equal(trace.Bytes(), wantTrace.Bytes()) {
			t.Errorf("%s: traces differ (%d vs %d bytes)", c, trace.Len(), wantTrace.Len())
		}
	}
}

// Codes that name more than their run has are refused as code errors,
// the same way on both paths.
func TestReplayCodeRefusals(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	for _, s := range []string{
		"thursday@1/p99999999@19:52:00;visibility_timeout=60s#end.d7435a6b",
		"thursday@1#99999999999.d7435a6b",
		"thursday@1/@23:59:00;visibility_timeout=60s#end.4648ade4",
		"thursday@1+visibility_timeout=soon#end.4648ade4",
		"thursday@1/p1406@21:11;visibility_timeout=60s#end.4648ade4",
	} {
		c, err := engine.ParseCode(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		_, _, err = engine.ReplayCode(spec, c, engine.ReplayOptions{})
		var ce *engine.CodeError
		if !errors.As(err, &ce) {
			t.Errorf("%s: lean: %v", s, err)
		}
		if _, err := engine.OpenCode(c, spec); err == nil {
			t.Errorf("%s: the explorer opened it", s)
		}
	}
}

// FuzzShareCode feeds the share-code parser hostile and well-formed codes.
// Whatever it accepts is within the caps and renders to a code that parses
// back the same; whatever it refuses gets one short line; a small accepted
// code plays the same on the lean path as in the explorer.
func FuzzShareCode(f *testing.F) {
	for _, s := range hostileCodes() {
		if len(s) <= 2*engine.MaxCodeLen {
			f.Add(s)
		}
	}
	for _, s := range []string{
		"thursday@1#end.4648ade4",
		"thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec",
		"thursday@1/@19:52:00;visibility_timeout=60s#end.1dde67ec",
		"thursday@7+orders=30/p100@19:52;d12=31000#125.00000000",
		"thursday@1+orders=10000000#end.00000000",
		"thursday@1/p5@19:52/p5@19:52;orders=3#5.00000000",
		"thursday@1/p160@19:51:49.29;fault=after_effect:14.1#end.00000000",
		"thursday@1/p100@19:52;orders=30;d12=31000;fault=ack_lost:3.2;fault=before_ack:3.1#125.00000000",
		"thursday@1/p10@19:41;fault=after_lunch:1.1#end.00000000",
		// issue 20: a clock or selection the run does not have
		"thursday@1#end.4648ade4~2;at=23:00:00",
		"thursday@1#end.4648ade4~2;at=19:00:00",
		"thursday@1#end.4648ade4~2;sel=999999999",
		"thursday@1#end.4648ade4~2;at=21:11:07.296;sel=107",
		"thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;at=19:52:30;sel=14",
	} {
		f.Add(s)
	}
	spec, _ := incidents.Get("thursday")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseCode(s)
		if err != nil {
			// one line, quoting at most a short prefix of any field (an
			// unknown knob's line also lists the knobs)
			msg := err.Error()
			unq := strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(msg) // as quoted by %q
			if len(msg) > 1000 || strings.Contains(msg, "\n") || longestRun(unq, s) > 45 {
				t.Fatalf("error of %d bytes: %.300q", len(msg), msg)
			}
			return
		}
		if len(s) > engine.MaxCodeLen || len(c.Forks) > engine.MaxCodeForks {
			t.Fatalf("accepted past the caps: %d bytes, %d forks", len(s), len(c.Forks))
		}
		back, err := engine.ParseCode(c.String())
		if err != nil {
			t.Fatalf("%q parses but its rendering %q does not: %v", s, c.String(), err)
		}
		if back.String() != c.String() {
			t.Fatalf("%q renders %q, which renders %q", s, c.String(), back.String())
		}
		if c.Incident != "thursday" || len(c.Forks) > 3 || c.Cursor > 3000 {
			return
		}
		sets := c.Set
		for _, fk := range c.Forks {
			if fk.Pos > 3000 {
				return
			}
			sets = append(sets, fk.Set...)
		}
		for _, st := range sets {
			if n, err := strconv.Atoi(st.Value); st.Knob == "orders" && (err != nil || n > 2000) {
				return // a long run: not for every fuzz input
			}
		}
		// small enough to play both ways: they agree on whether it opens
		// and, if it does, on the run
		lean, _, lerr := engine.ReplayCode(spec, c, engine.ReplayOptions{})
		x, xerr := engine.OpenCode(c, spec)
		if (lerr == nil) != (xerr == nil) {
			t.Fatalf("%s: lean %v, explorer %v", c, lerr, xerr)
		}
		if lerr == nil {
			if sum := x.Summary(x.Branch()); sum.TraceSHA256 != lean.TraceSHA256 {
				t.Fatalf("%s: lean %s, explorer %s", c, lean.TraceSHA256, sum.TraceSHA256)
			}
		}
	})
}

// TestCodeFormat2 round-trips the fields format 2 adds (the displayed
// clock, the selection, fork names with any characters), writes format 1
// when there are none, and refuses a newer format by name.
func TestCodeFormat2(t *testing.T) {
	v1 := "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec"
	c, err := engine.ParseCode(v1)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != v1 || c.HasAt || c.HasSel || c.Forks[0].Name != "" {
		t.Fatalf("format 1: %q %+v", c.String(), c)
	}
	c.At, c.HasAt, c.Sel, c.HasSel = engine.Time(19*engine.Hour+52*engine.Minute+30*engine.Second+250), true, 14, true
	c.Forks[0].Name = "vt 60/#;~ ünï%"
	s := c.String()
	if !strings.HasPrefix(s, v1+"~2;at="+c.At.Short()+";sel=14;n1=") || strings.ContainsAny(s[len(v1):], "/# ") {
		t.Fatalf("format 2: %q", s)
	}
	d, err := engine.ParseCode(s)
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != s || d.At != c.At || d.Sel != 14 || d.Forks[0].Name != c.Forks[0].Name {
		t.Fatalf("round trip: %q → %+v", s, d)
	}
	c.HasAt, c.Forks[0].Name, c.Sel = false, "", -1
	if d, err := engine.ParseCode(c.String()); err != nil || !d.HasSel || d.Sel != -1 {
		t.Fatalf("sel none: %q %+v %v", c.String(), d, err)
	}
	for code, want := range map[string]string{
		v1 + "~3;at=19:52:30":                    "format 3 is newer",
		v1 + "~2;n2=x":                           "no fork 2",
		v1 + "~2;colour=blue":                    "unknown field",
		v1 + "~2;sel=1;sel=2":                    "one key=value",
		v1 + "~2;n1=a%zz":                        "two hex digits",
		v1 + "~two":                              "not a format number",
		v1 + "~2;n1=%FF%FE":                      "not valid text",
		v1 + "~2;sel=-3":                         "not a message number",
		v1 + "~2;n1=" + strings.Repeat("x", 121): "longer than",
	} {
		if _, err := engine.ParseCode(code); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", code, err, want)
		}
	}
	// a named fork reopens with its name
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	c, _ = engine.ParseCode(v1)
	c.Forks[0].Name = "vt60"
	x, err := engine.OpenCode(c, spec)
	if err != nil {
		t.Fatal(err)
	}
	if x.Branch().Name != "vt60" || x.Code().String() != c.String() {
		t.Fatalf("opened %q, code %q", x.Branch().Name, x.Code().String())
	}
}

// TestCodeShownFieldsRefused is issue 20's list of format-2 codes that
// showed what their run does not have: each is refused, by the explorer
// and on the lean path alike, with one line naming the field; the
// moments and messages the run has open.
func TestCodeShownFieldsRefused(t *testing.T) {
	thursday, _ := incidents.Get("thursday")
	cashback, _ := incidents.Get("cashback")
	// a cursor early in the run: message 107 is not published yet, but is
	// one of the run's
	x, err := engine.NewExplorer(thursday, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Goto(100)
	early := x.Code().String()
	cases := []struct {
		spec *engine.Spec
		code string
		want string // "" opens
	}{
		{thursday, "thursday@1#end.4648ade4~2;at=23:00:00", "share code's clock at=23:00:00 is after its branch ends (21:11:07.296)"},
		{thursday, "thursday@1#end.4648ade4~2;at=21:11:07.297", "share code's clock at=21:11:07.297 is after its branch ends (21:11:07.296)"},
		{thursday, "thursday@1#end.4648ade4~2;at=99999:00:00", "is after its branch ends"},
		{thursday, "thursday@1#end.4648ade4~2;at=19:00:00", "share code's clock at=19:00:00 is before the incident starts (19:40:20)"},
		{thursday, "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;at=19:52:30", "share code's clock at=19:52:30 is before its cursor's moment (21:10:03.678)"},
		{thursday, "thursday@1#end.4648ade4~2;sel=999999999", "share code's selected message sel=999999999: its branch publishes messages 0 to 107"},
		{thursday, "thursday@1#end.4648ade4~2;sel=108", "sel=108: its branch publishes messages 0 to 107"},
		{cashback, "cashback@10#end.dc74269d~2;sel=5000", "sel=5000: its branch publishes messages 0 to 4999"},
		{thursday, "thursday@1#end.4648ade4~2;at=21:11:07.296;sel=107", ""},
		{thursday, "thursday@1#end.4648ade4~2;sel=-", ""},
		{thursday, early + "~2;sel=107", ""},
		{cashback, "cashback@10#end.dc74269d~2;sel=4999", ""},
		{thursday, "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;at=21:10:03.678;sel=14", ""},
		{thursday, "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;at=21:10:04", "at=21:10:04 is after its branch ends (21:10:03.678)"},
	}
	for _, tc := range cases {
		c, err := engine.ParseCode(tc.code)
		if err != nil {
			t.Fatalf("%s: %v", tc.code, err)
		}
		_, _, lerr := engine.ReplayCode(tc.spec, c, engine.ReplayOptions{})
		_, xerr := engine.OpenCode(c, tc.spec)
		for _, e := range []struct {
			path string
			err  error
		}{{"lean", lerr}, {"explorer", xerr}} {
			var ce *engine.CodeError
			switch {
			case tc.want == "" && e.err != nil:
				t.Errorf("%s: %s: %v", tc.code, e.path, e.err)
			case tc.want != "" && (!errors.As(e.err, &ce) || !strings.Contains(e.err.Error(), tc.want) || strings.Contains(e.err.Error(), "\n")):
				t.Errorf("%s: %s: %v, want one line with %q", tc.code, e.path, e.err, tc.want)
			}
		}
	}
}
