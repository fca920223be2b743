package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

func mustSpec(t testing.TB, id string) *engine.Spec {
	t.Helper()
	spec, err := incidents.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func mustClock(t testing.TB, s string) engine.Time {
	t.Helper()
	c, err := engine.ParseClock(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The lesson's "which set are you about to replay?": a redrive of
// thursday's DLQ sends its work again, every email a duplicate; after the
// sent_at claim (thursday-fixed) the DLQ is empty and a replay sends none.
func TestActionReplayDLQ(t *testing.T) {
	for _, tc := range []struct {
		id, do string
		set    []engine.Setting
		// against the run without the fork
		moreEffects, moreDuplicates, redriven int64
		name                                  string
	}{
		// the provider is still slower than the lease: each letter is
		// sent three times again and dead-lettered again
		{"thursday", "redrive", nil, 324, 324, 108, "redrive 108 dead letters @21:15:00"},
		// with the timeout raised, each is sent once: 108 more emails, all duplicates
		{"thursday", "redrive", []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}, 108, 108, 108, "redrive 108 dead letters; visibility_timeout=60s @21:15:00"},
		// every letter's work was done: none is unfinished
		{"thursday", "redrive=unfinished", nil, 0, 0, 0, "redrive 0 unfinished dead letters (of 108) @21:15:00"},
		{"thursday-fixed", "redrive", nil, 0, 0, 0, "redrive 0 dead letters @21:15:00"},
	} {
		t.Run(tc.id+"/"+tc.do, func(t *testing.T) {
			spec := mustSpec(t, tc.id)
			base, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
			if err != nil {
				t.Fatal(err)
			}
			a, err := engine.ParseAction(tc.do)
			if err != nil {
				t.Fatal(err)
			}
			got, w, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: mustClock(t, "21:15:00"), AtSet: tc.set, AtDo: []engine.Action{a}})
			if err != nil {
				t.Fatal(err)
			}
			if d := got.Effects - base.Effects; d != tc.moreEffects {
				t.Errorf("effects: %d more, want %d", d, tc.moreEffects)
			}
			if d := got.DuplicateEffects - base.DuplicateEffects; d != tc.moreDuplicates {
				t.Errorf("duplicate effects: %d more, want %d", d, tc.moreDuplicates)
			}
			if w.Stats.Redriven != tc.redriven {
				t.Errorf("redriven %d, want %d", w.Stats.Redriven, tc.redriven)
			}
			if len(got.Forks) != 1 || got.Forks[0].Name != tc.name {
				t.Errorf("forks %+v, want one named %q", got.Forks, tc.name)
			}
		})
	}
}

// forkAt forks x's current branch at event pos with o (Pos filled in).
func forkAt(t testing.TB, x *engine.Explorer, pos int64, o engine.ForkOptions) *engine.Branch {
	t.Helper()
	x.Goto(pos)
	o.Pos = pos
	b, err := x.Fork(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The cost of the cure: a crash of the worker holding order 14 leaves the
// message invisible for the rest of its lease, so the longer timeout is
// the worst-case recovery time the lesson prices: order 14 is delivered
// again 60 s after B2 dies with visibility_timeout=60s, 30 s without.
func TestActionCrashAfterLongerTimeout(t *testing.T) {
	spec := mustSpec(t, "thursday")
	at := mustClock(t, "19:52:00")
	for _, tc := range []struct {
		set       []engine.Setting
		crashPos  int64 // after B2 takes order 14 and calls the provider
		redeliver string
		oldest    float64
	}{
		{[]engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}, 182, "19:53:00.000", 98.219},
		{nil, 181, "19:52:30.000", 90},
	} {
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.set != nil {
			forkAt(t, x, x.PosAtTime(x.Branch(), at), engine.ForkOptions{At: at, Set: tc.set})
		}
		crash := forkAt(t, x, tc.crashPos, engine.ForkOptions{At: at, Actions: []engine.Action{{Name: "crash", Arg: "B2"}}})
		x.End()
		if want := fmt.Sprintf("crash B2 @19:52:00 #%d", tc.crashPos); crash.Name != want {
			t.Errorf("name %q, want %q", crash.Name, want)
		}
		if w := crash.Words(); len(w) != 1 || w[0] != "crash B2" {
			t.Errorf("words %q", w)
		}
		sum := x.Summary(crash)
		if sum.MaxOldestAgeS != tc.oldest || sum.Figures["crashes"] != int64(1) {
			t.Errorf("oldest age %v s (want %v), crashes %v", sum.MaxOldestAgeS, tc.oldest, sum.Figures["crashes"])
		}
		c, err := engine.ParseCode(x.Code().String())
		if err != nil {
			t.Fatal(err)
		}
		var tr strings.Builder
		if _, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{Trace: &tr}); err != nil {
			t.Fatal(err)
		}
		var crashed, again string
		for _, l := range strings.Split(tr.String(), "\n") {
			switch {
			case strings.Contains(l, `"kind":"crash","message":14,`):
				crashed = l
			case strings.Contains(l, `"kind":"deliver","message":14,"delivery":2,`):
				again = l
			}
		}
		if !strings.Contains(crashed, `"t":"19:52:00.000"`) || !strings.Contains(crashed, `"actor":"B2"`) || !strings.Contains(again, `"t":"`+tc.redeliver+`"`) {
			t.Errorf("crash %s\nredelivery %s\nwant the redelivery at %s", crashed, again, tc.redeliver)
		}
	}
}

// A code carries its forks' actions: it opens to the same branch (name,
// fingerprint, summary), and its headless replay plays the same trace.
func TestActionCodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	acts := []string{"redrive", "redrive=unfinished", "crash=A1", "crash=B2", "workers=+1", "workers=+3"}
	for _, id := range []string{"thursday", "thursday-fixed", "christmas-friday"} {
		spec := mustSpec(t, id)
		for i := 0; i < 4; i++ {
			x, err := engine.NewExplorer(spec, spec.Seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			x.End()
			end := x.Pos()
			var b *engine.Branch
			for k := 0; k < 2; k++ {
				pos := x.Branch().ForkPos + 1 + rng.Int63n(end/2)
				a, err := engine.ParseAction(acts[rng.Intn(len(acts))])
				if err != nil {
					t.Fatal(err)
				}
				x.Goto(pos)
				b, err = x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now, Actions: []engine.Action{a}})
				if err != nil {
					t.Fatalf("%s: fork at %d with %s: %v", id, pos, a, err)
				}
			}
			x.End()
			code := x.Code().String()
			if !strings.Contains(code, ";do=") {
				t.Fatalf("code %s carries no action", code)
			}
			c, err := engine.ParseCode(code)
			if err != nil {
				t.Fatal(err)
			}
			y, err := engine.OpenCode(c, spec)
			if err != nil {
				t.Fatalf("%s: %v", code, err)
			}
			if y.Branch().Name != b.Name || y.Code().String() != code {
				t.Errorf("%s opens as %q (%s), want %q", code, y.Branch().Name, y.Code(), b.Name)
			}
			want, got := x.Summary(b), y.Summary(y.Branch())
			// as JSON: a summary holds pointers (the worst recovery)
			if wj, gj := mustJSON(t, want), mustJSON(t, got); wj != gj {
				t.Errorf("%s: summaries differ:\n%v\n%v", code, want, got)
			}
			rs, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{})
			if err != nil {
				t.Fatalf("replay %s: %v", code, err)
			}
			if rs.TraceSHA256 != want.TraceSHA256 || rs.Effects != want.Effects {
				t.Errorf("replay %s: trace %s effects %d, the explorer's %s %d", code, rs.TraceSHA256, rs.Effects, want.TraceSHA256, want.Effects)
			}
		}
	}
}

// Bad actions are refused with what is wrong and what there is.
func TestActionRefused(t *testing.T) {
	spec := mustSpec(t, "thursday")
	w, err := engine.NewWorld(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ do, want string }{
		{"crash=Z9", `has no worker "Z9" (its workers are A1, A2, B1, B2)`},
		{"crash", "give crash=WORKER"},
		{"replay", "thursday's actions are redrive, repair, purge, crash, wedge, workers"},
		{"redrive=some", "=unfinished"},
		{"workers=-4", "4 workers in service, and stopping 4 leaves none (at least one stays)"},
		{"workers=+99", "want +N or -N with N from 1 to 64"},
		{"workers=+61", "more than 64"},
	} {
		a, err := engine.ParseAction(tc.do)
		if err != nil {
			t.Fatal(err)
		}
		err = w.CheckActions([]engine.Action{a})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.do, err, tc.want)
		}
	}
	for _, s := range []string{"", "=x", "Crash=B2", "crash=", "crash=B 2", "crash=B2;x", strings.Repeat("a", 50)} {
		if _, err := engine.ParseAction(s); err == nil {
			t.Errorf("ParseAction(%q) accepted", s)
		}
	}
}

// A fork's actions are checked in order, each on the state the ones
// before it leave: after event 181 workers=-1 stops idle A2, so a crash
// of A2 there is refused naming what stopped it, where a crash of B2
// (still running) is taken; three stops leave one worker, so a fourth is
// refused.
func TestActionsCheckedInOrder(t *testing.T) {
	spec := mustSpec(t, "thursday")
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := mustClock(t, "19:52:00")
	for _, tc := range []struct {
		do   []engine.Action
		want string
	}{
		{[]engine.Action{{Name: "workers", Arg: "-1"}, {Name: "crash", Arg: "A2"}},
			`after stop 1 worker (A2): action "crash=A2": worker A2 is not running at 19:52:00 (stopped at 19:52:00 by workers=-N)`},
		{[]engine.Action{{Name: "workers", Arg: "-3"}, {Name: "workers", Arg: "-1"}},
			`after stop 3 workers (A2, A1, B2 after its message): action "workers=-1": 1 worker in service, and stopping 1 leaves none`},
		// taken, and named as each acted: the second stop finds A2 gone
		{[]engine.Action{{Name: "workers", Arg: "-1"}, {Name: "crash", Arg: "B2"}}, "stop 1 worker (A2); crash B2 @19:52:00 #181"},
		{[]engine.Action{{Name: "workers", Arg: "-1"}, {Name: "workers", Arg: "-1"}}, "stop 1 worker (A2); stop 1 worker (A1) @19:52:00 #181"},
	} {
		x.Switch(x.Branches()[0])
		x.Goto(181)
		b, err := x.Fork(engine.ForkOptions{Pos: 181, At: at, Actions: tc.do})
		switch {
		case strings.Contains(tc.want, " @") && err != nil:
			t.Errorf("%v: %v", tc.do, err)
		case strings.Contains(tc.want, " @") && b.Name != tc.want:
			t.Errorf("%v: named %q, want %q", tc.do, b.Name, tc.want)
		case !strings.Contains(tc.want, " @") && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want %q", tc.do, err, tc.want)
		}
	}
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"redrive", "redrive=unfinished", "crash=B2", "workers=+2", "a=b=c", "=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := engine.ParseAction(s)
		if err != nil {
			return
		}
		b, err := engine.ParseAction(a.String())
		if err != nil || b != a {
			t.Fatalf("%q parses as %v, whose rendering gives %v, %v", s, a, b, err)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
