package serve

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestAskTheRoomOverSSH: a presenter and fifty followers over SSH. The
// presenter asks thursday's question 5 from the exercises screen; every
// follower sees it and answers with one key; the presenter's tally counts
// fifty with none waiting; enter reveals the answer to every follower and
// shows the tally beside the truth.
func TestAskTheRoomOverSSH(t *testing.T) {
	const n = 50
	presenterKey := newKey(t)
	s := startServer(t, Config{PresenterKeys: writeKeys(t, presenterKey), MaxSessions: n + 1}, nil)
	title, _ := thursday(t)
	pres := mustTerm(t, mustDial(t, s.addr, "pat", presenterKey), 120, 40)
	pres.mustSee(t, wait, title)

	fols := make([]*term, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, err := quickKey()
			if err != nil {
				errs <- err
				return
			}
			c, err := dial(s.addr, "follow", key)
			if err != nil {
				errs <- err
				return
			}
			t.Cleanup(func() { c.Close() })
			tm, err := openTerm(c, 80, 24)
			if err != nil {
				errs <- err
				return
			}
			if err := tm.waitFor(wait, title); err != nil {
				errs <- fmt.Errorf("follower %d: %w", i, err)
				return
			}
			fols[i] = tm
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	pres.send("e")
	pres.mustSee(t, wait, "a: ask the room")
	pres.send("5")
	pres.mustSee(t, wait, "Asking the room")

	// follower i answers a, b or c by turns: 17 answer b, the right one
	right := 0
	answer := func(i int, tm *term) error {
		if err := tm.waitFor(wait, "The presenter asks", "B2's call returns"); err != nil {
			return fmt.Errorf("follower %d: %w", i, err)
		}
		tm.send(string(rune('a' + i%3)))
		if err := tm.waitFor(wait, fmt.Sprintf("your answer: %c", 'a'+i%3)); err != nil {
			return fmt.Errorf("follower %d answering: %w", i, err)
		}
		return nil
	}
	errs = make(chan error, n)
	for i, tm := range fols {
		if i%3 == 1 {
			right++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- answer(i, tm)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	pres.mustSee(t, wait, fmt.Sprintf("%d attendees answered · 0 not yet", n))

	pres.send(keyEnter)
	pres.mustSee(t, wait, fmt.Sprintf("The answer is b. %d of %d attendees answered it.", right, n))
	for i, tm := range fols {
		want := "Right: the answer is b."
		if i%3 != 1 {
			want = fmt.Sprintf("You answered %c; the answer is b.", 'a'+i%3)
		}
		tm.mustSee(t, wait, want)
	}
	for _, tm := range append(fols, pres) {
		tm.send("\x03") // ctrl+c: the overlay keeps q for itself
		tm.ended(wait)
	}
	// the sessions' waits on the poll and the stage end within their
	// two-second bound (a wait on the poll ends with its session:
	// tui's TestLeavingEndsTheWait); let them before goleak looks
	s.logged(t, func() bool { return s.Sessions() == 0 })
	waitUntil(t, func() bool { return !running("watchPoll") && !running("follower.wait") })
}

// running reports whether a goroutine has fn on its stack.
func running(fn string) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Contains(string(buf[:n]), fn)
		}
		buf = make([]byte, 2*len(buf))
	}
}
