package cashback_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/cashback"
	"inflight/engine/families/familytest"
)

// played is a run with an action, and what it told.
type played struct {
	s        engine.Summary
	w        *engine.World
	captions []string // the operator's events and the consumer's restarts, from the action on
	claimed  int64
}

// replayRun plays cashback with set from the start and the actions at
// clock at (none if at is 0), checking at every step that the family's
// pending list agrees with the stream's XPENDING.
func replayRun(t *testing.T, set []engine.Setting, at engine.Time, do ...string) played {
	t.Helper()
	spec := familytest.Incident(t, "cashback")
	w, err := engine.NewWorld(spec, spec.Seed, set)
	if err != nil {
		t.Fatal(err)
	}
	var acts []engine.Action
	for _, d := range do {
		a, err := engine.ParseAction(d)
		if err != nil {
			t.Fatal(err)
		}
		acts = append(acts, a)
	}
	if at > 0 {
		if err := w.ScheduleActions(at, acts); err != nil {
			t.Fatal(err)
		}
	}
	var p played
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if at == 0 || e.T < at {
			return
		}
		if e.Worker == 1 || e.Kind == engine.EvRestart {
			p.captions = append(p.captions, e.T.Clock()+" "+w.Caption(e, d))
		}
		if e.Kind == cashback.KindReplay {
			p.claimed += e.Value
		}
		if e.T < at+engine.Second {
			mirror, xp := w.Family().(*cashback.Family).PendingOwners(int64(e.T))
			if fmt.Sprint(mirror) != fmt.Sprint(xp) {
				t.Fatalf("at %s #%d pending %v, XPENDING %v", e.T.Clock(), e.Pos, mirror, xp)
			}
		}
	})
	for w.Step(sink) {
	}
	p.s, p.w = w.Summarize(""), w
	return p
}

// firstEvent is the clock of the first event of kind k in cashback's run
// under set (with value v, when v >= 0).
func firstEvent(t *testing.T, set []engine.Setting, k engine.Kind, v int64) engine.Time {
	t.Helper()
	spec := familytest.Incident(t, "cashback")
	w, err := engine.NewWorld(spec, spec.Seed, set)
	if err != nil {
		t.Fatal(err)
	}
	at := engine.Time(-1)
	for at < 0 && w.Step(familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == k && (v < 0 || e.Value == v) {
			at = e.T
		}
	})) {
	}
	if at < 0 {
		t.Fatalf("no event of kind %d", k)
	}
	return at
}

// A slow supervisor: the consumer crashes and is back only ten minutes
// later. Thirty seconds in, the operator replays the pending entries idle
// that long — the crashed consumer's batch — so they are handled then,
// not at the restart, which finds none. The handler is the same, so the
// replay is exactly as safe as the restart's re-read: without dedupe the
// entry whose credit had committed is credited again (the run's
// duplicates, as many as without the replay); with it, none.
func TestActionReplayPendingOfACrashedConsumer(t *testing.T) {
	for _, dedupe := range []string{"false", "true"} {
		set := familytest.Set("restart_after", "10m", "dedupe", dedupe)
		crash := firstEvent(t, set, engine.EvCrash, -1)
		at := crash + 30*engine.Second
		base := replayRun(t, set, 0)
		pending := familytest.WorldAt(t, familytest.Incident(t, "cashback"), lessonSeed, set, at.Clock())
		_, held := pending.Family().Counts(pending)
		r := replayRun(t, set, at, "replay_pending=min_idle:30s")
		if held == 0 || r.claimed != int64(held) {
			t.Fatalf("dedupe=%s: %d pending at %s, %d claimed", dedupe, held, at.Clock(), r.claimed)
		}
		if r.s.DuplicateEffects != base.s.DuplicateEffects || r.s.Effects != base.s.Effects || r.s.Figure("balance") != base.s.Figure("balance") || r.s.Lost != 0 {
			t.Errorf("dedupe=%s: duplicates %d effects %d balance %d; without the replay %d %d %d", dedupe,
				r.s.DuplicateEffects, r.s.Effects, r.s.Figure("balance"), base.s.DuplicateEffects, base.s.Effects, base.s.Figure("balance"))
		}
		if dedupe == "true" && r.s.DuplicateEffects != 0 {
			t.Errorf("dedupe=true: %d duplicates", r.s.DuplicateEffects)
		}
		restart := ""
		for _, c := range r.captions {
			if strings.Contains(c, "consumer-1 restarts") {
				restart = c
				break
			}
		}
		if want := (crash + 10*engine.Minute).Clock() + " consumer-1 restarts"; !strings.HasPrefix(restart, want) || !strings.HasSuffix(restart, ": 0 pending") {
			t.Errorf("dedupe=%s: restart %q, want %q… 0 pending", dedupe, restart, want)
		}
	}
}

// Replaying with no idle bound while the consumer runs: XAUTOCLAIM takes
// the batch it has just read from under it, both handle the entries, and
// without dedupe each is credited twice. With min_idle:30s nothing is
// claimed, the figures are the run's own; with dedupe the replay is safe.
func TestActionReplayPendingOfALiveConsumer(t *testing.T) {
	read := firstEvent(t, nil, engine.EvDeliver, 0)
	at := read + 3*engine.Millisecond
	base := replayRun(t, nil, 0)
	bare := replayRun(t, nil, at, "replay_pending")
	bound := replayRun(t, nil, at, "replay_pending=min_idle:30s")
	if bare.claimed < 2 || bare.s.DuplicateEffects <= base.s.DuplicateEffects || bare.s.DuplicateEffects > base.s.DuplicateEffects+bare.claimed {
		t.Errorf("bare: %d claimed, duplicates %d (base %d)", bare.claimed, bare.s.DuplicateEffects, base.s.DuplicateEffects)
	}
	if d := bare.s.Figure("balance") - base.s.Figure("balance"); d != (bare.s.DuplicateEffects-base.s.DuplicateEffects)*cashback.Amount {
		t.Errorf("bare: balance %d more, %d more duplicates", d, bare.s.DuplicateEffects-base.s.DuplicateEffects)
	}
	var zero bool
	for _, c := range bare.captions {
		zero = zero || strings.Contains(c, "returns 0")
	}
	if !zero {
		t.Errorf("no XACK returned 0: %q", bare.captions)
	}
	if bound.claimed != 0 || bound.s.Effects != base.s.Effects || bound.s.Deliveries != base.s.Deliveries || bound.s.Figure("balance") != base.s.Figure("balance") {
		t.Errorf("min_idle:30s: %d claimed, effects %d deliveries %d; base %d %d", bound.claimed, bound.s.Effects, bound.s.Deliveries, base.s.Effects, base.s.Deliveries)
	}
	for _, dedupe := range []string{"true", "separate"} {
		set := familytest.Set("dedupe", dedupe)
		b := replayRun(t, set, 0)
		r := replayRun(t, set, at, "replay_pending")
		if r.claimed < 2 || r.s.DuplicateEffects != 0 || r.s.Figure("balance") != b.s.Figure("balance") || r.s.Figure("skipped") <= b.s.Figure("skipped") {
			t.Errorf("dedupe=%s: %d claimed, duplicates %d, balance %d (base %d), skipped %d (base %d)", dedupe, r.claimed,
				r.s.DuplicateEffects, r.s.Figure("balance"), b.s.Figure("balance"), r.s.Figure("skipped"), b.s.Figure("skipped"))
		}
	}
}

// The fork's name counts what XPENDING holds at its moment: what the
// replay then claims.
func TestActionReplayWords(t *testing.T) {
	at := firstEvent(t, nil, engine.EvDeliver, 0) + 3
	spec := familytest.Incident(t, "cashback")
	for _, tc := range []struct {
		do, want string
	}{
		{"replay_pending", "replay %[1]d pending entries @10:00:05.003"},
		{"replay_pending=min_idle:30s", "replay %[2]d pending entries idle ≥ 30s (of %[1]d) @10:00:05.003"},
		{"replay_pending=min_idle:2ms", "replay %[1]d pending entries idle ≥ 2ms (of %[1]d) @10:00:05.003"},
	} {
		a, _ := engine.ParseAction(tc.do)
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: at, AtDo: []engine.Action{a}})
		if err != nil {
			t.Fatal(err)
		}
		claimed := replayRun(t, nil, at, "replay_pending").claimed
		if want := fmt.Sprintf(tc.want, claimed, 0); claimed < 2 || len(s.Forks) != 1 || s.Forks[0].Name != want {
			t.Errorf("%s: forks %+v, want %q", tc.do, s.Forks, want)
		}
	}
}

func TestActionReplayRefusals(t *testing.T) {
	spec := familytest.Incident(t, "cashback")
	familytest.Refused(t, spec, [][2]string{
		{"replay_pending=30s", "want replay_pending, or replay_pending=min_idle:DURATION"},
		{"replay_pending=min_idle:x", "min_idle: duration \"x\": want a number with a unit"},
		{"replay_pending=min_idle:-1s", "min_idle: duration"},
		{"replay_pending=min_idle:48h", "min_idle 48h is longer than a day"},
		{"replay", "incident cashback's actions are replay_pending"},
	})
}

// A replay is a share code that plays the same branch again.
func TestActionReplayShareCode(t *testing.T) {
	spec := familytest.Incident(t, "cashback")
	at := firstEvent(t, nil, engine.EvDeliver, 0) + 3
	b, want, code := familytest.ForkCode(t, spec, at, []engine.Action{{Name: "replay_pending"}})
	if !strings.Contains(code, "do=replay_pending") {
		t.Errorf("code %s carries no replay", code)
	}
	familytest.CodeRoundTrip(t, spec, code, b.Name, want)
	if n := replayRun(t, nil, at, "replay_pending").claimed; b.Name != fmt.Sprintf("replay %d pending entries @10:00:05.003", n) {
		t.Errorf("branch %q", b.Name)
	}
}

// Any argument is refused in one line naming the action, or taken by the
// world with its captions rendered.
func FuzzReplayArg(f *testing.F) {
	familytest.FuzzActionArg(f, familytest.Incident(f, "cashback"),
		familytest.FuzzArg{Prefix: "replay_pending=", Until: 10*engine.Hour + 5*engine.Second + 3, Steps: 200},
		"min_idle:30s", "min_idle:0", "min_idle:1h", "min_idle:25h", "min_idle:", "min_idle:-1s", "30s", "min_idle:1m30s")
}
