package tui

import (
	"fmt"
	"time"

	"inflight/engine"
	"inflight/stage"
)

// A hall's processes share the stage through a link (serve --stage); when
// it is down, each process's followers see something different: on the
// presenter's process the stage plays on, on the others it stopped where
// it was. Each is told which, and once the link is back, what it missed.

// linkNews is what this process's followers were last told of the link,
// kept with the stage's frames so that every mirror tells the same.
type linkNews struct {
	down  bool        // the last state drawn was offline
	split bool        // and a presenter was connected here
	from  engine.Time // the moment the stage showed when it stopped reaching here
	// back is the news of the link's return, said while the state it came
	// with is on stage and for backFor of a playing stage's clock after
	back    string
	backGen uint64
	backAt  int64
}

// backFor is how long a playing stage says the link is back.
const backFor = 5 * time.Second

// flash is the stage's news for a frame of state st at generation gen and
// stage time at (0 unclocked), its moment shown: the link's state if it
// is down or just came back, else the presenter's absence, else "".
func (n *linkNews) flash(st stage.State, gen uint64, at int64, shown engine.Time) string {
	if st.Offline {
		if !n.down {
			n.down, n.from = true, shown
		}
		n.split, n.back = st.Here, ""
		since := wallClock(st.LostAt)
		switch {
		case st.Here:
			return "following live · stage link down since " + since + ": the hall's other servers cannot hear the presenter (the room is split)"
		case st.Away:
			return "the presenter is away: the stage stays where they left it · stage link down since " + since
		}
		return fmt.Sprintf("stage link down: the stage stopped reaching this server at %s (since %s) and goes on when the link is back", headerClock(n.from), since)
	}
	if st.Stale && n.down {
		return fmt.Sprintf("stage link back, nothing heard from the presenter's server yet: the stage stays at %s until it is", headerClock(n.from))
	}
	if n.down {
		n.down, n.backGen, n.backAt = false, gen, at
		switch {
		case n.split:
			n.back = "stage link back: the hall's other servers follow the presenter again"
		case st.Away:
			n.back = "stage link back: the presenter is away; the stage stays where they left it"
		default:
			n.back = fmt.Sprintf("stage link back: caught up from %s to %s", headerClock(n.from), headerClock(shown))
		}
	}
	if n.back != "" {
		if gen == n.backGen && (at == 0 || at-n.backAt < backFor.Milliseconds()) {
			return n.back
		}
		n.back = ""
	}
	if st.Away {
		return "the presenter is away: the stage stays where they left it"
	}
	return ""
}

// wallClock is a stage clock reading (Unix ms) as this server's wall
// clock, to the second; "?" for none.
func wallClock(ms int64) string {
	if ms <= 0 {
		return "?"
	}
	return time.UnixMilli(ms).Format("15:04:05")
}
