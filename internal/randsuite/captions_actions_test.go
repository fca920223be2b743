package randsuite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestCaptionsAfterActions is TestCaptionsTellWhatHappened over runs that
// take an operator's actions: random knobs (the suite's cases), then one
// to five actions at random moments — crash, wedge, redrive (all or the
// unfinished), repair, no_script, purge, workers up and down — each checked against
// the world when it is taken, as the fork form and --do check it. Every
// caption and in-flight row is checked against the events before it by
// the same independent account: a redelivery's "nothing failed" never
// follows a crash or wedge of the holder, "an operator killed" follows
// an operator's crash of that delivery, "redrove it" a redrive that took
// the message (the redrive's count says whether all the dead letters or
// the unfinished ones), "purged under it" a purge while it was held,
// SUPERSEDED only while the named worker holds the message.
func TestCaptionsAfterActions(t *testing.T) {
	var y claimTally
	took := map[string]int{}
	// pinned first: the cases a random draw meets seldom (a kill or a
	// purge while the lease is current, an ack after it)
	for _, p := range []struct {
		id, set, at, do string
	}{
		{"thursday", "", "19:52:10", "crash=B2"},
		{"thursday", "visibility_timeout=60s", "19:52:10", "purge"},
		{"thursday", "heartbeat=10s", "19:52:10", "wedge=B2"},
		{"christmas-friday", "", "17:00:00", "workers=-2"},
	} {
		spec, err := incidents.Get(p.id)
		if err != nil {
			t.Fatal(err)
		}
		var set []engine.Setting
		if k, v, ok := strings.Cut(p.set, "="); ok {
			set = []engine.Setting{{Knob: k, Value: v}}
		}
		w, err := engine.NewWorld(spec, spec.Seed, set)
		if err != nil {
			t.Fatal(err)
		}
		at, _ := engine.ParseClock(p.at)
		a, _ := engine.ParseAction(p.do)
		if err := w.ScheduleActions(at, []engine.Action{a}); err != nil {
			t.Fatal(err)
		}
		c := newClaims(spec)
		for w.Step(c) {
		}
		took[a.Name]++
		y.add(fmt.Sprintf("%s %s --at %s --do %s", p.id, p.set, p.at, p.do), c)
	}
	for _, spec := range incidents.All() {
		if familyName(spec) != queueFamily {
			continue
		}
		g, err := genFor(spec)
		if err != nil {
			t.Fatal(err)
		}
		if g.Events > bigRun {
			continue
		}
		for i := 0; i < actionCases; i++ {
			cs := g.Case(*suiteSeed, 5000+i)
			r := rand.New(rand.NewPCG(*suiteSeed, uint64(i)*0x9e3779b97f4a7c15+7))
			w, err := engine.NewWorld(spec, cs.Seed, cs.Set)
			if err != nil {
				t.Fatal(err)
			}
			if cs.HasAt {
				if err := w.ScheduleKnobs(cs.At, cs.AtSet); err != nil {
					t.Fatal(err)
				}
			}
			c := newClaims(spec)
			var times []engine.Time
			for n := 1 + r.IntN(5); len(times) < n; {
				times = append(times, spec.Start+engine.Time(r.Int64N(int64(g.End-spec.Start)+1)))
			}
			slices.Sort(times)
			var did []string
			limit := 4*g.Events + 20_000 // a wedge or a lost worker may slow a run down, not stop it
			steps := int64(0)
			for _, at := range times {
				for w.Now < at && steps < limit && w.Step(c) {
					steps++
				}
				a := randomAction(r, w, c)
				if err := w.CheckActions([]engine.Action{a}); err != nil {
					continue // refused on this world (a stopped worker, the last one): as the form refuses it
				}
				if err := w.ScheduleActions(at, []engine.Action{a}); err != nil {
					t.Fatal(err)
				}
				did = append(did, a.String()+"@"+max(at, w.Now).Short())
				took[a.Name]++
			}
			for steps < limit && w.Step(c) {
				steps++
			}
			where := fmt.Sprintf("%s --do %s", cs.Repro(), strings.Join(did, ","))
			y.add(where, c)
		}
	}
	if len(y.bad) > 0 {
		t.Errorf("captions and panes after actions that say what did not happen:\n\t%s", strings.Join(y.bad, "\n\t"))
	}
	// a check that never meets its claim proves nothing
	for _, k := range []string{"nothing failed", "died holding it", "an operator killed", "redrove it", "purged under it", "wedged", "SUPERSEDED", "workers idle"} {
		if y.seen[k] == 0 {
			t.Errorf("no caption or row after an action claimed %q: the check of it checked nothing", k)
		}
	}
	for _, a := range []string{"crash", "wedge", "redrive", "repair", "no_script", "purge", "workers"} {
		if took[a] == 0 {
			t.Errorf("no run took %s", a)
		}
	}
	t.Logf("actions taken: %v; claims checked: %v", took, y.seen)
}

// actionCases is the runs with actions per queue incident.
const actionCases = 24

// randomAction draws one of the queue's actions, for one of the
// incident's workers, most often one that holds a message (by the events
// so far: c's account).
func randomAction(r *rand.Rand, w *engine.World, c *claims) engine.Action {
	spec := w.Spec()
	var workers, busy []string
	for _, b := range spec.Workers.Boxes {
		for i := 1; i <= spec.Workers.PerBox; i++ {
			workers = append(workers, fmt.Sprintf("%s%d", b, i))
		}
	}
	for id, wh := range c.where {
		if wh == wHeld {
			busy = append(busy, c.holder[id])
		}
	}
	slices.Sort(busy) // not the map's order
	worker := workers[r.IntN(len(workers))]
	if len(busy) > 0 && r.IntN(3) > 0 {
		worker = busy[r.IntN(len(busy))] // a crash or wedge of a holder: the case the captions must tell
	}
	switch r.IntN(9) {
	case 0:
		return engine.Action{Name: "crash", Arg: worker}
	case 1:
		return engine.Action{Name: "wedge", Arg: worker}
	case 2:
		return engine.Action{Name: "redrive"}
	case 3:
		return engine.Action{Name: "redrive", Arg: "unfinished"}
	case 4:
		return engine.Action{Name: "repair"}
	case 5:
		return engine.Action{Name: "purge"}
	case 6:
		return engine.Action{Name: "workers", Arg: fmt.Sprintf("+%d", 1+r.IntN(2))}
	case 7:
		return engine.Action{Name: "no_script"} // refused where there is no script
	}
	return engine.Action{Name: "workers", Arg: fmt.Sprintf("-%d", 1+r.IntN(2))}
}
