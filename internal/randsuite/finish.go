package randsuite

import (
	"encoding/json"
	"fmt"
	"strings"

	"inflight/engine"
)

// The end of a run: the tally's counts, the summary checked against them,
// and the settled state's liveness.

// Counts are a run's messages by state, from the tally (and, for a
// family's messages that no event names as held or gone, the world's
// record of each message).
type Counts struct {
	Messages, Held, Done, DLQ, Lost int64
	Effects, Duplicates             int64
}

// Tally counts the run's messages by state at its end.
func (c *Checker) Tally(w *engine.World) Counts {
	k := Counts{Effects: c.effects, Duplicates: c.dups, Messages: c.published}
	if !c.queue && int64(w.Published()) > k.Messages {
		// kafka-restart and galewatch create messages without a publish event
		k.Messages = int64(w.Published())
	}
	for id := int32(0); int64(id) < k.Messages; id++ {
		var t tally
		if int(id) < len(c.msgs) {
			t = c.msgs[id]
		}
		st := t.state
		if !c.queue && st != sDLQ {
			// a family says a message is done by no event of its own:
			// the world's record says whether its system still holds it
			st = sDeleted
			if wm, ok := w.Msg(id); ok && wm.Held() {
				st = sHeld
			}
		}
		switch {
		case c.held(st) || st == sNone:
			k.Held++
		case st == sDLQ:
			k.DLQ++
		case t.effects > 0:
			k.Done++
		default:
			k.Lost++
		}
	}
	return k
}

// Stall is the reason the summary gives for a run that stopped with work
// left, or "": its `unfinished` line, or any field naming a stall or a
// budget that is set.
func Stall(js map[string]any) string {
	var out []string
	look := func(prefix string, m map[string]any) {
		for k, v := range m {
			if k != "unfinished" && !strings.Contains(k, "stall") && !strings.Contains(k, "budget") {
				continue
			}
			switch x := v.(type) {
			case string:
				if x != "" {
					out = append(out, prefix+k+": "+x)
				}
			case bool:
				if x {
					out = append(out, prefix+k)
				}
			case float64:
				if x != 0 {
					out = append(out, fmt.Sprintf("%s%s: %g", prefix, k, x))
				}
			}
		}
	}
	look("", js)
	if f, ok := js["figures"].(map[string]any); ok {
		look("figures.", f)
	}
	return strings.Join(out, "; ")
}

// HeldAtEnd reads held_at_end from the summary: top level, or (before it
// moved there) the figures.
func HeldAtEnd(js map[string]any) (int64, bool) {
	if v, ok := js["held_at_end"].(float64); ok {
		return int64(v), true
	}
	if f, ok := js["figures"].(map[string]any); ok {
		if v, ok := f["held_at_end"].(float64); ok {
			return int64(v), true
		}
	}
	return 0, false
}

// Finish checks the summary of the run against the tally, conservation of
// the states, and the settled state (liveness).
func (c *Checker) Finish(w *engine.World, sum engine.Summary) Counts {
	k := c.Tally(w)
	raw, _ := json.Marshal(sum)
	var js map[string]any
	_ = json.Unmarshal(raw, &js)
	eq := func(name string, got, want int64) {
		if got != want {
			c.fail(nil, "summary "+name+" %d, the events give %d", got, want)
		}
	}
	eq("messages", sum.Messages, k.Messages)
	eq("effects", sum.Effects, k.Effects)
	eq("duplicate_effects", sum.DuplicateEffects, k.Duplicates)
	eq("dlq", sum.DLQ, k.DLQ)
	eq("lost", sum.Lost, k.Lost)
	eq("events", sum.Events, c.events)
	if h, ok := HeldAtEnd(js); ok {
		eq("held_at_end", h, k.Held)
	}
	if d, ok := js["done"].(float64); ok {
		eq("done", int64(d), k.Done)
	}
	if c.queue {
		eq("deliveries", sum.Deliveries, c.deliveries)
		eq("late_acks_refused", sum.LateAcksRefused, c.refuse)
	}
	for i, got := range [2][]engine.AlertFiring{sum.Alerts, sum.WouldHaveFired} {
		var g []string
		for _, a := range got {
			g = append(g, a.Name+" at "+a.At)
		}
		// the summary lists alerts in the incident's order, the events in
		// firing order: compare as sets
		if !sameSet(g, c.alerts[i]) {
			c.fail(nil, "summary "+[]string{"alerts", "would_have_fired"}[i]+" %v, the events fire %v", g, c.alerts[i])
		}
	}
	if k.Held+k.Done+k.DLQ+k.Lost != k.Messages {
		c.fail(nil, "held %d + done %d + dlq %d + lost %d is not messages %d", k.Held, k.Done, k.DLQ, k.Lost, k.Messages)
	}
	if end, err := engine.ParseClock(sum.End); err != nil {
		c.fail(nil, "summary end %q: %v", sum.End, err)
	} else {
		if end < c.spec.Start {
			c.fail(nil, "summary end %s is before the start %s", sum.End, c.spec.Start.Short())
		}
		if c.events > 0 && sum.End != c.lastT.Short() {
			c.fail(nil, "summary end %s, the last event %s", sum.End, c.lastT.Short())
		}
	}
	c.brokerFinish(sum, c.lastT)
	if f, ok := sum.Figures["dead_letters_sold"]; ok {
		// stagefront's false failures: seats in the drawer that were sold
		sold := int64(0)
		for _, id := range c.dlq {
			if c.msgs[id].effects > 0 {
				sold++
			}
		}
		if fmt.Sprint(f) != fmt.Sprint(sold) {
			c.fail(nil, "summary figures.dead_letters_sold %v, the events give %d", f, sold)
		}
	}
	if f, ok := sum.Figures["dead_lettered_never_applied"]; ok {
		// cashback's dead letters that carry no credit
		none := int64(0)
		for _, id := range c.dlq {
			if c.msgs[id].effects == 0 {
				none++
			}
		}
		if fmt.Sprint(f) != fmt.Sprint(none) {
			c.fail(nil, "summary figures.dead_lettered_never_applied %v, the events give %d", f, none)
		}
	}
	stall := Stall(js)
	if !w.Settled() {
		if stall == "" {
			c.fail(nil, "did not settle after %d events (it may never), and the summary says nothing of it", c.events)
		}
		return k
	}
	c.liveness(w, k, stall)
	if stall != "" && k.Held == 0 {
		c.fail(nil, "the summary says the run was left unfinished (%s), but nothing is left", stall)
	}
	return k
}

// liveness: at a settled state no message waits beside an idle worker,
// and nothing is in flight without a worker that will never let go of it;
// a run that stops with work left says why.
func (c *Checker) liveness(w *engine.World, k Counts, stall string) {
	if !c.queue {
		if k.Held > 0 && stall == "" {
			c.fail(nil, "settled with %d messages still held, and the summary gives no reason", k.Held)
		}
		return
	}
	// settled, a worker is idle or wedged (a busy one's call would
	// return, a dead one restart, an unstarted one start): the queue's
	// count of wedged ones, its start event's of them all
	wedged := 0
	if fs, ok := w.Family().(engine.FamilySummary); ok {
		_, wedged, _ = fs.Running(w, w.Now)
	}
	idle := c.workers - int64(wedged)
	if c.n[sWaiting] > 0 && idle > 0 {
		if stall == "" || c.knob(w, "mode") != "ordered" {
			// in a standard queue an idle worker takes any waiting message
			c.fail(nil, "settled with %d waiting and %d idle workers (stall note: %q)", c.n[sWaiting], idle, stall)
		}
	}
	for id := int32(0); int64(id) < c.published; id++ {
		// in flight at the end: only a wedged handler keeps a lease
		if m, ok := w.Msg(id); ok && m.Status == engine.StInFlight && m.Holders == 0 {
			c.fail(nil, "settled with message %d in flight and no worker holding it", id)
			break
		}
	}
	if k.Held > 0 && stall == "" {
		c.fail(nil, "settled with %d messages held (%d wedged workers), and the summary gives no reason", k.Held, wedged)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[string]int{}
	for _, x := range a {
		in[x]++
	}
	for _, x := range b {
		in[x]--
	}
	for _, n := range in {
		if n != 0 {
			return false
		}
	}
	return true
}
