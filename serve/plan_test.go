package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"inflight/plan"
)

// Tests of serve --plan over SSH: the presenter's > and < move the stage
// from beat to beat; followers read the beat's title and never the notes.

func docsPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.Load(filepath.Join("..", "docs", "workshop.plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// gridUntil waits until the w×h screen holds every one of subs, waking
// as output comes, and returns it.
func (tm *term) gridUntil(t *testing.T, w, h int, subs ...string) string {
	t.Helper()
	var g string
	if !tm.until(wait, func() bool {
		g = tm.grid(w, h)
		for _, s := range subs {
			if !strings.Contains(g, s) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("the screen never came to show %q:\n%s", subs, g)
	}
	return g
}

// notesRE finds any of the plan's notes on a screen: each beat's notes
// start with its minutes ("~5 min.").
var notesRE = regexp.MustCompile(`~\d+ min\.`)

// beatKeys presses key n times, waiting after each for the presenter's
// screen to show the beat it lands on.
func beatKeys(t *testing.T, pres *term, pl *plan.Plan, from int, key string, n int) int {
	t.Helper()
	for range n {
		if key == ">" {
			from++
		} else {
			from--
		}
		if err := pres.send(key); err != nil {
			t.Fatal(err)
		}
		pres.gridUntil(t, 120, 40, fmt.Sprintf("beat %d/%d · ", from, len(pl.Beats)))
	}
	return from
}

// TestPlanOverSSH: with serve --plan, the presenter's next beat moves a
// follower to the beat's moment with its title; a beat of another
// incident switches the follower's incident; the notes are on the
// presenter's screen and in no byte a follower is sent.
func TestPlanOverSSH(t *testing.T) {
	pl := docsPlan(t)
	pk := newKey(t)
	s := startServer(t, Config{PresenterKeys: writeKeys(t, pk), Plan: pl}, nil)
	title, _ := thursday(t)
	pres := mustTerm(t, mustDial(t, s.addr, "pat", pk), 120, 40)
	pres.mustSee(t, wait, title, "PRESENTER", "> next beat")
	fol := mustTerm(t, mustDial(t, s.addr, "follow", newKey(t)), 80, 24)
	fol.mustSee(t, wait, "FOLLOWING")

	at := beatKeys(t, pres, pl, 0, ">", 2) // thursday's first bookmark
	g := pres.gridUntil(t, 120, 40, "Open the message's life story")
	if !notesRE.MatchString(g) {
		t.Errorf("the presenter's screen has no notes:\n%s", g)
	}
	g = fol.gridUntil(t, 80, 24, "beat 2/20 · "+pl.Beats[1].Title, "19:52:00", "FOLLOWING")
	if head, _, _ := strings.Cut(g, "\n"); !strings.Contains(head, "19:52:00") {
		t.Errorf("the follower's stage is not at the beat's moment:\n%s", g)
	}

	at = beatKeys(t, pres, pl, at, ">", 5) // beat 7: thursday-fixed
	fol.gridUntil(t, 80, 24, "beat 7/20 · "+pl.Beats[6].Title, "the week after", "19:52:00")
	at = beatKeys(t, pres, pl, at, "<", 1) // back to thursday
	fol.gridUntil(t, 80, 24, "beat 6/20 · "+pl.Beats[5].Title, "Marlow Books, Thursday", "The presenter asks")

	if out := fol.screen(); notesRE.MatchString(out) || strings.Contains(out, "life story if the room") {
		t.Errorf("a follower was sent the presenter's notes: %q", notesRE.FindString(out))
	}
	_ = at
	for _, tm := range []*term{fol, pres} {
		tm.send("\x03") // ctrl+c: q closes the question first
		if _, ok := tm.ended(wait); !ok {
			t.Error("a session did not end on ctrl+c")
		}
	}
}

// TestPlanThroughHall: two processes with one Redis: the presenter's beat
// on one moves a follower on the other, incident and all, and the notes
// never reach Redis's channel or the other process's follower.
func TestPlanThroughHall(t *testing.T) {
	red := startRedis(t, 0) // skips without redis-server
	url := fmt.Sprintf("redis://%s/0?key=plan", loopback(red.port))
	pl := docsPlan(t)
	pk := newKey(t)
	keys := writeKeys(t, pk)
	a := startServer(t, Config{PresenterKeys: keys, Plan: pl, Stage: url}, nil)
	b := startServer(t, Config{PresenterKeys: keys, Plan: pl, Stage: url}, nil)
	title, _ := thursday(t)

	fol := mustTerm(t, mustDial(t, b.addr, "follow", newKey(t)), 80, 24)
	fol.mustSee(t, wait, "FOLLOWING")
	pres := mustTerm(t, mustDial(t, a.addr, "pat", pk), 120, 40)
	pres.mustSee(t, wait, title, "PRESENTER", "> next beat")

	at := beatKeys(t, pres, pl, 0, ">", 2)
	fol.gridUntil(t, 80, 24, "beat 2/20 · "+pl.Beats[1].Title, "19:52:00")
	at = beatKeys(t, pres, pl, at, ">", 5) // thursday-fixed, on the other process too
	fol.gridUntil(t, 80, 24, "beat 7/20 · "+pl.Beats[6].Title, "the week after")
	if out := fol.screen(); notesRE.MatchString(out) {
		t.Errorf("the other process's follower was sent notes: %q", notesRE.FindString(out))
	}
	// what Redis keeps of the stage: the beat's number and title only
	rdb := redis.NewClient(&redis.Options{Addr: loopback(red.port), Protocol: 2, DisableIdentity: true})
	defer rdb.Close()
	state, err := rdb.Get(context.Background(), "plan:state").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(state, `"beat":{"n":7,"of":20,"title":`) || notesRE.MatchString(state) || strings.Contains(state, "notes") {
		t.Errorf("plan:state in Redis: %s", state)
	}
	_ = at
	for _, tm := range []*term{fol, pres} {
		tm.send("q")
		tm.ended(wait)
	}
}
