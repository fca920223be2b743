package familytest

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"inflight/engine"
)

// Clock is the clock s ("10:00:05.003"), failing the test if it is not one.
func Clock(t testing.TB, s string) engine.Time {
	t.Helper()
	c, err := engine.ParseClock(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Act is the action s ("pause=10m"), failing the test if it does not parse.
func Act(t testing.TB, s string) engine.Action {
	t.Helper()
	a, err := engine.ParseAction(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Acts are the actions ss, each as Act reads it.
func Acts(t testing.TB, ss ...string) []engine.Action {
	t.Helper()
	var as []engine.Action
	for _, s := range ss {
		as = append(as, Act(t, s))
	}
	return as
}

// LineSink renders each event's line, its caption included, so a played
// action's words are built (and any panic in them found).
var LineSink = SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) { _ = w.Line(e, d) })

// World is spec's world under its own seed and settings set, at its start.
func World(t testing.TB, spec *engine.Spec, set ...engine.Setting) *engine.World {
	t.Helper()
	w, err := engine.NewWorld(spec, spec.Seed, set)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Trace reads a run's JSON trace lines from r.
func Trace(t testing.TB, r io.Reader) []engine.TraceLine {
	t.Helper()
	var lines []engine.TraceLine
	dec := json.NewDecoder(r)
	for dec.More() {
		var l engine.TraceLine
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return lines
}

// Refused checks that spec's world at its start refuses each case
// {action, words} (or that the action does not parse) in one line
// containing the words.
func Refused(t testing.TB, spec *engine.Spec, cases [][2]string) {
	t.Helper()
	w := World(t, spec)
	for _, c := range cases {
		tc := struct{ Do, Want string }{c[0], c[1]}
		a, err := engine.ParseAction(tc.Do)
		if err == nil {
			err = w.CheckActions([]engine.Action{a})
		}
		if err == nil || !strings.Contains(err.Error(), tc.Want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.Do, err, tc.Want)
		}
	}
}

// FuzzArg is how FuzzActionArg plays an argument: Prefix before it
// ("pause=", or "" for a whole action), the world played to Until before
// the action is checked, and up to Steps events after it is taken.
type FuzzArg struct {
	Prefix string
	Until  engine.Time
	Steps  int
}

// FuzzActionArg fuzzes an action's argument on spec's world: any one is
// refused in one line naming the action (its name alone if the family
// has none so named), or taken — its fork label, the events after it
// with their captions, and the panes all rendered.
func FuzzActionArg(f *testing.F, spec *engine.Spec, o FuzzArg, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		a, err := engine.ParseAction(o.Prefix + arg)
		if err != nil {
			return
		}
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for w.Now < o.Until && w.Step(nil) {
		}
		if err := w.CheckActions([]engine.Action{a}); err != nil {
			if m := err.Error(); strings.Contains(m, "\n") || !strings.Contains(m, named(a, m)) {
				t.Fatalf("%q: %q", arg, m)
			}
			return
		}
		_ = w.ForkLabel(nil, nil, []engine.Action{a}, engine.ForkMoment{})
		if err := w.ScheduleActions(w.Now, []engine.Action{a}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < o.Steps && w.Step(LineSink); i++ {
		}
		_ = w.Family().Panes(w, engine.CursorOf(w))
	})
}

// named is what a refusal m of a must name: the action as written, or
// only its name when the family has no action by that name.
func named(a engine.Action, m string) string {
	if strings.Contains(m, "'s actions are ") {
		return `action "` + a.Name + `"`
	}
	return a.String()
}

// ForkCode forks spec's lesson run at the clock at with acts, plays the
// explorer to its end, and returns the fork, its summary and the share code.
func ForkCode(t testing.TB, spec *engine.Spec, at engine.Time, acts []engine.Action) (*engine.Branch, engine.Summary, string) {
	t.Helper()
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	pos := x.PosAtTime(x.Branch(), at)
	x.Goto(pos)
	b, err := x.Fork(engine.ForkOptions{Pos: pos, At: at, Actions: acts})
	if err != nil {
		t.Fatal(err)
	}
	x.End()
	return b, x.Summary(b), x.Code().String()
}

// CodeRoundTrip checks that code parses and formats as itself, opens to
// a branch named name with summary want, and replays headless to its
// trace. Summaries are compared as JSON: they hold pointers.
func CodeRoundTrip(t testing.TB, spec *engine.Spec, code, name string, want engine.Summary) {
	t.Helper()
	c, err := engine.ParseCode(code)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != code {
		t.Errorf("%s formats as %s", code, c)
	}
	y, err := engine.OpenCode(c, spec)
	if err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	if got := y.Summary(y.Branch()); y.Branch().Name != name || jsonOf(t, got) != jsonOf(t, want) {
		t.Errorf("%s opens as %q:\n%s\nwant %q:\n%s", code, y.Branch().Name, jsonOf(t, got), name, jsonOf(t, want))
	}
	rs, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rs.TraceSHA256 != want.TraceSHA256 || rs.Messages != want.Messages || rs.DLQ != want.DLQ || rs.Lost != want.Lost ||
		rs.DuplicateEffects != want.DuplicateEffects || jsonOf(t, rs.Figures) != jsonOf(t, want.Figures) {
		t.Errorf("replay %s: trace %s, dlq %d, lost %d, duplicates %d, %s; the explorer's %s, %d, %d, %d, %s", code,
			rs.TraceSHA256, rs.DLQ, rs.Lost, rs.DuplicateEffects, jsonOf(t, rs.Figures),
			want.TraceSHA256, want.DLQ, want.Lost, want.DuplicateEffects, jsonOf(t, want.Figures))
	}
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
