package engine

import "slices"

// Running facts the explorer shows about the world under its cursor: when
// a message is published and what happened to it. They live here, beside
// the model that makes them true, so that a screen draws them and never
// works them out again.

// PublishTime is when message id was (or will be) published: read from the
// broker while it still holds the message, otherwise from the sources'
// schedule, which no knob but the order count changes. It reports false for
// a message no source publishes, or when the schedule is too long to read
// (more than historyScanCap messages across several sources).
func (t *Truth) PublishTime(id int32) (Time, bool) {
	w := t.w
	if m, ok := t.Msg(id); ok {
		return m.Published, true
	}
	if id < 0 {
		return 0, false
	}
	srcs := w.spec.Sources
	if len(srcs) == 1 {
		if int(id) < srcs[0].CountUnder(&w.Knobs) {
			return srcs[0].Start + Time(id)*srcs[0].Every, true
		}
		return 0, false
	}
	// several sources interleave by time: ids are handed out in
	// publishing order, so the id-th smallest publish time is id's
	var times []Time
	total := 0
	for _, src := range srcs {
		n := src.CountUnder(&w.Knobs)
		total += n
		if total > historyScanCap {
			return 0, false
		}
		for k := 0; k < n; k++ {
			times = append(times, src.Start+Time(k)*src.Every)
		}
	}
	slices.Sort(times)
	if int(id) < len(times) {
		return times[id], true
	}
	return 0, false
}

// History is message id's events on branch b from event from on (its
// publishing, when known: see PosAtTime and PublishTime), those keep
// accepts. It reads in chunks until the message has been quiet for
// historyQuiet events, the branch ends, or historyScanCap events were
// read: a message's whole life without replaying the whole branch.
func (x *Explorer) History(b *Branch, id int32, from int64, keep func(*Entry) bool) []Entry {
	var out []Entry
	x.readLife(b, from, func() bool { return false }, func(e *Entry) bool {
		if e.Event.Msg != id {
			return false
		}
		if keep(e) {
			out = append(out, *e)
		}
		return true
	})
	return out
}

// readLife reads b's events from from on, chunk by chunk, handing each to
// visit, which says whether it touched the message; it stops when the
// message has been quiet for historyQuiet events and goOn does not hold,
// the branch ends, or historyScanCap events were read.
func (x *Explorer) readLife(b *Branch, from int64, goOn func() bool, visit func(*Entry) bool) {
	quiet := int64(0)
	for pos := from; (quiet < historyQuiet || goOn()) && pos-from < historyScanCap; pos += historyChunk {
		evs := x.EventsOn(b, pos, pos+historyChunk)
		hit := false
		for i := range evs {
			if visit(&evs[i]) {
				hit = true
			}
		}
		if hit {
			quiet = 0
		} else {
			quiet += historyChunk
		}
		if int64(len(evs)) < historyChunk {
			break
		}
	}
}

// History's reading bounds: events read per chunk, events without the
// message after which its life is taken as over, and the most read (and,
// for PublishTime, the longest schedule laid out).
const (
	historyChunk   = 4096
	historyQuiet   = 16384
	historyScanCap = 1 << 20
)
