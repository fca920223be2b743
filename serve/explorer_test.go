package serve

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// Tests of the real explorer over SSH. They know only what any attendee
// sees: the incident's title and the clock in the header, and the keys in
// the help bar (L: +1 s, l: step, f → ← → enter: fork, q: quit).

const (
	keyRight = "\x1b[C"
	keyEnter = "\r"
)

// thursday is what the explorer opens on: its title (as much of it as
// fits any header) and its starting clock.
func thursday(t testing.TB) (title string, start engine.Time) {
	t.Helper()
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec.Title[:min(20, len(spec.Title))], x.World().Now
}

// clock is a moment as the header shows it.
func clock(t engine.Time) string { return t.Clock()[:8] }

func TestExplorerOverSSH(t *testing.T) {
	s := startServer(t, Config{}, nil)
	title, start := thursday(t)
	tm := mustTerm(t, mustDial(t, s.addr, "alice", newKey(t)), 120, 40)
	tm.mustSee(t, wait, title, clock(start))

	tm.send("L")
	tm.mustSee(t, wait, clock(start+engine.Second))
	tm.send("f")
	tm.mustSee(t, wait, "Fork a branch here")
	tm.send(keyRight)
	tm.send(keyEnter)
	tm.mustSee(t, wait, "forked main")

	tm.send("q")
	if err, ok := tm.ended(wait); !ok || err != nil {
		t.Fatalf("q: ended=%v err=%v", ok, err)
	}
}

// stepsToNewClock is how many steps (l) from the start first move the
// header's clock, and the clock they move it to.
func stepsToNewClock(t testing.TB) (int, engine.Time) {
	t.Helper()
	spec, _ := incidents.Get("thursday")
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := x.World().Now
	for k := 1; k < 1000; k++ {
		x.Step(1)
		if now := x.World().Now; clock(now) != clock(start) {
			return k, now
		}
	}
	t.Fatal("the clock never moves")
	return 0, 0
}

// paused is the header's clock at t, paused.
func paused(t engine.Time) string { return clock(t) + "  ⏸" }

func endClock(t testing.TB) engine.Time {
	spec, _ := incidents.Get("thursday")
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.End()
	return x.World().Now
}

func TestFollowerSeesPresenterClock(t *testing.T) {
	presenterKey := newKey(t)
	s := startServer(t, Config{PresenterKeys: writeKeys(t, presenterKey)}, nil)
	title, start := thursday(t)
	k, moved := stepsToNewClock(t)
	end := endClock(t)

	pres := mustTerm(t, mustDial(t, s.addr, "pat", presenterKey), 120, 40)
	pres.mustSee(t, wait, title, clock(start))
	fol := mustTerm(t, mustDial(t, s.addr, "follow", newKey(t)), 100, 30)
	fol.mustSee(t, wait, title)
	// A plain attendee neither follows nor drives.
	own := mustTerm(t, mustDial(t, s.addr, "alice", newKey(t)), 100, 30)
	own.mustSee(t, wait, title, clock(start))

	for range k {
		pres.keys(t, "l")
	}
	// the header's clock: the chart's axis shows the end's clock as well
	pres.mustSee(t, wait, paused(moved))
	fol.mustSee(t, wait, paused(moved))

	pres.send("G")
	pres.mustSee(t, wait, paused(end))
	fol.mustSee(t, wait, paused(end))

	fol.mark()
	pres.send("g")
	pres.mustSee(t, wait, paused(start))
	fol.mustSee(t, wait, paused(start))

	own.mark()
	own.send("L")
	own.mustSee(t, wait, clock(start+engine.Second))
	if strings.Contains(own.screen(), paused(end)) {
		t.Error("a plain attendee moved with the presenter")
	}
	for _, tm := range []*term{pres, fol, own} {
		tm.send("q")
		tm.ended(wait)
	}
}

func TestFiftySessionsStepAndFork(t *testing.T) {
	// under the race detector a fifth of them: ten sessions at once are as
	// concurrent as fifty for finding a race, at a fifth of the time (the
	// plain run keeps fifty)
	const n = 50 / raceSlowdown
	s := startServer(t, Config{MaxSessions: n}, nil)
	title, start := thursday(t)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- oneAttendee(s.addr, i, title, start)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// oneAttendee connects, steps, forks, steps on the fork and quits.
func oneAttendee(addr string, i int, title string, start engine.Time) error {
	key, err := quickKey()
	if err != nil {
		return err
	}
	c, err := dial(addr, fmt.Sprintf("a%d", i), key)
	if err != nil {
		return err
	}
	defer c.Close()
	tm, err := openTerm(c, 80+i%40, 24+i%16)
	if err != nil {
		return err
	}
	if err := tm.waitFor(wait, title, clock(start)); err != nil {
		return fmt.Errorf("attendee %d: %w", i, err)
	}
	for j := 1; j <= 4; j++ {
		tm.send("L")
		if err := tm.waitFor(wait, clock(start+engine.Time(j)*engine.Second)); err != nil {
			return fmt.Errorf("attendee %d ticking: %w", i, err)
		}
	}
	for range 5 {
		if err := tm.key("l"); err != nil {
			return fmt.Errorf("attendee %d stepping: %w", i, err)
		}
	}
	tm.send("f")
	if err := tm.waitFor(wait, "Fork a branch here"); err != nil {
		return fmt.Errorf("attendee %d: %w", i, err)
	}
	tm.send(keyRight)
	tm.send(keyEnter)
	if err := tm.waitFor(wait, "forked main"); err != nil {
		return fmt.Errorf("attendee %d forking: %w", i, err)
	}
	if err := tm.key("l"); err != nil {
		return fmt.Errorf("attendee %d stepping the fork: %w", i, err)
	}
	tm.mark()
	tm.send("?")
	if err := tm.waitFor(wait, "follow stage"); err != nil { // in the full help only
		return fmt.Errorf("attendee %d on the fork: %w", i, err)
	}
	tm.send("q")
	if err, ok := tm.ended(wait); !ok || err != nil {
		return fmt.Errorf("attendee %d quitting: ended=%v err=%v", i, ok, err)
	}
	return nil
}
