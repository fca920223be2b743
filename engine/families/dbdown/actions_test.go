package dbdown_test

import (
	"bytes"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
)

var clock, act = familytest.Clock, familytest.Act

// runDo plays db-down with do taken at the clock at, its trace kept.
func runDo(t testing.TB, at, do string) (engine.Summary, []engine.TraceLine) {
	t.Helper()
	spec := familytest.Incident(t, "db-down")
	var tr bytes.Buffer
	s, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: clock(t, at), AtDo: []engine.Action{act(t, do)}, Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	return s, familytest.Trace(t, &tr)
}

// The lesson's "pause consumption when the database is down", against the
// run that retries through the outage: paused for the ten minutes, no
// retry burns and nothing is dumped in the drawer — every event is
// written, late; the lag in time is the price. Resumed while the database
// is still down, the retries burn again and the drawer fills as before.
// The figures are the runs'; the test holds their direction.
func TestPauseWhileDatabaseDown(t *testing.T) {
	spec := familytest.Incident(t, "db-down")
	base := familytest.Summary(t, spec, spec.Seed)
	for _, tc := range []struct {
		at, do string
		// against the run without the pause
		fewerDLQ, saved bool // fewer dead letters; every event written
		name            string
	}{
		{"10:00:00", "pause=10m", true, true, "pause consumption for 10m @10:00:00"},
		// ten seconds late: the few already out of retries stay dead
		{"10:00:10", "pause=10m", true, false, "pause consumption for 10m @10:00:10"},
		// resumed half-way: the second half is dumped as before
		{"10:00:00", "pause=5m", false, false, "pause consumption for 5m @10:00:00"},
	} {
		t.Run(tc.at+"/"+tc.do, func(t *testing.T) {
			got, lines := runDo(t, tc.at, tc.do)
			t.Logf("dlq %d → %d, effects %d → %d, retries %d → %d, db errors %d → %d, lag %.1fs → %.1fs",
				base.DLQ, got.DLQ, base.Effects, got.Effects, base.Figure("retries"), got.Figure("retries"),
				base.Figure("db_errors"), got.Figure("db_errors"), base.MaxOldestAgeS, got.MaxOldestAgeS)
			if got.Lost != 0 || got.DuplicateEffects != 0 || got.Messages != base.Messages {
				t.Errorf("lost %d, duplicates %d, messages %d", got.Lost, got.DuplicateEffects, got.Messages)
			}
			if tc.fewerDLQ != (got.DLQ < base.DLQ) || tc.fewerDLQ != (got.Figure("retries") < base.Figure("retries")) {
				t.Errorf("dlq %d, retries %d; the run without a pause %d, %d", got.DLQ, got.Figure("retries"), base.DLQ, base.Figure("retries"))
			}
			if tc.fewerDLQ && got.Effects <= base.Effects {
				t.Errorf("effects %d, no more than %d without the pause", got.Effects, base.Effects)
			}
			if !tc.fewerDLQ && (got.DLQ != base.DLQ || got.Effects != base.Effects) {
				t.Errorf("resumed in the outage: dlq %d, effects %d; want the unpaused %d, %d", got.DLQ, got.Effects, base.DLQ, base.Effects)
			}
			if tc.saved != (got.DLQ == 0 && got.Effects == got.Messages) {
				t.Errorf("dlq %d, effects %d of %d", got.DLQ, got.Effects, got.Messages)
			}
			if got.MaxOldestAgeS < 5*base.MaxOldestAgeS {
				t.Errorf("lag %.1fs: a pause makes it rise (%.1fs without)", got.MaxOldestAgeS, base.MaxOldestAgeS)
			}
			if len(got.Forks) != 1 || got.Forks[0].Name != tc.name {
				t.Errorf("forks %+v, want %q", got.Forks, tc.name)
			}
			var paused, resumed *engine.TraceLine
			for i := range lines {
				switch lines[i].Kind {
				case "consumer_paused":
					paused = &lines[i]
				case "consumer_resumed":
					resumed = &lines[i]
				}
			}
			if paused == nil || resumed == nil {
				t.Fatalf("no pause or no resume in the trace")
			}
			if paused.Actor != "operator" || paused.T != clock(t, tc.at).Clock() ||
				!strings.HasPrefix(paused.Caption, "an operator pauses consumption until ") {
				t.Errorf("pause %+v", *paused)
			}
			if !strings.HasPrefix(resumed.Caption, "the pause ends: consumption resumes after ") {
				t.Errorf("resume %+v", *resumed)
			}
		})
	}
}

// A pause keeps each message's attempts and its retry's timer: a message
// that failed before the pause is tried again after it as its next
// attempt, not its first.
func TestPauseKeepsRetries(t *testing.T) {
	_, lines := runDo(t, "10:00:03", "pause=7m")
	resumedAt := ""
	for _, l := range lines {
		if l.Kind == "consumer_resumed" {
			resumedAt = l.T
			if !strings.Contains(l.Caption, "the database is still down") {
				t.Errorf("resumed at %s: %q", l.T, l.Caption)
			}
		}
		if resumedAt != "" && l.Kind == "deliver" {
			if l.Delivery < 2 || !strings.HasPrefix(l.Caption, "retry ") {
				t.Errorf("first take after the pause: %+v, want a retry", l)
			}
			return
		}
	}
	t.Fatal("no take after the resume")
}

// forkAt forks x's current branch at the clock at with acts.
func forkAt(t testing.TB, x *engine.Explorer, at string, acts ...string) *engine.Branch {
	t.Helper()
	c := clock(t, at)
	pos := x.PosAtTime(x.Branch(), c)
	x.Goto(pos)
	b, err := x.Fork(engine.ForkOptions{Pos: pos, At: c, Actions: familytest.Acts(t, acts...)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The fork form's way: pause at 10:00, then, on that branch, resume when
// the database is back. It saves every event as a timed pause does, and
// its share code opens to the same branch and replays the same trace.
func TestPauseThenResumeForks(t *testing.T) {
	spec := familytest.Incident(t, "db-down")
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := forkAt(t, x, "10:00:00", "pause")
	r := forkAt(t, x, "10:10:00", "resume")
	x.End()
	if p.Name != "pause consumption @10:00:00" || r.Name != "resume consumption @10:10:00" {
		t.Errorf("names %q, %q", p.Name, r.Name)
	}
	sum := x.Summary(r)
	timed, _ := runDo(t, "10:00:00", "pause=10m")
	if sum.DLQ != 0 || sum.Effects != sum.Messages || sum.Effects != timed.Effects || sum.MaxOldestAgeS != timed.MaxOldestAgeS {
		t.Errorf("pause then resume: dlq %d, effects %d of %d, lag %v; pause=10m: effects %d, lag %v",
			sum.DLQ, sum.Effects, sum.Messages, sum.MaxOldestAgeS, timed.Effects, timed.MaxOldestAgeS)
	}
	code := x.Code().String()
	if !strings.Contains(code, ";do=pause") || !strings.Contains(code, ";do=resume") {
		t.Fatalf("code %s", code)
	}
	familytest.CodeRoundTrip(t, spec, code, r.Name, sum)
}

// A headless run's code carries its action and plays it again.
func TestPauseRunCode(t *testing.T) {
	spec := familytest.Incident(t, "db-down")
	ro := engine.RunOptions{Seed: spec.Seed, HasAt: true, At: clock(t, "10:00:00"), AtDo: []engine.Action{act(t, "pause=10m")}}
	s, w, err := engine.Run(spec, ro)
	if err != nil {
		t.Fatal(err)
	}
	code := engine.RunCode(spec, ro, w).String()
	if !strings.Contains(code, "@10:00:00;do=pause=10m#") {
		t.Fatalf("code %s", code)
	}
	c, err := engine.ParseCode(code)
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rs.TraceSHA256 != s.TraceSHA256 || rs.DLQ != s.DLQ || len(rs.Forks) != 1 || rs.Forks[0] != s.Forks[0] {
		t.Errorf("replay of %s: %s %d %+v; the run's %s %d %+v", code, rs.TraceSHA256, rs.DLQ, rs.Forks, s.TraceSHA256, s.DLQ, s.Forks)
	}
}

// A resume with nothing paused, and a second pause, still say what they
// did.
func TestPauseIdleActions(t *testing.T) {
	_, lines := runDo(t, "09:58:00", "resume")
	for _, l := range lines {
		if l.Kind == "consumer_resumed" {
			if l.Caption != "resume: consumption was not paused, so nothing changes" {
				t.Errorf("%q", l.Caption)
			}
			return
		}
	}
	t.Fatal("no resume event")
}

// Bad actions are refused naming what is wrong.
func TestPauseRefused(t *testing.T) {
	spec := familytest.Incident(t, "db-down")
	familytest.Refused(t, spec, [][2]string{
		{"pause=0s", `action "pause=0s": a pause lasts from 1s to 1h (or give pause alone, until resume)`},
		{"pause=2h", `a pause lasts from 1s to 1h`},
		{"pause=500ms", `a pause lasts from 1s`},
		{"pause=soon", `action "pause=soon": duration "soon": want a number with a unit`},
		{"pause=-5m", `must not be negative`},
		{"resume=now", `action "resume=now": resume takes no argument`},
		{"breaker", `incident db-down's actions are pause, resume`},
	})
}

// Any argument is refused in one line naming it, or accepted as a pause
// the world takes.
func FuzzPauseArg(f *testing.F) {
	familytest.FuzzActionArg(f, familytest.Incident(f, "db-down"), familytest.FuzzArg{Prefix: "pause=", Steps: 50},
		"10m", "1s", "1h", "0s", "999ms", "1h0m1s", "-5m", "+5m", "5", "1.5m", "1m30s")
}
