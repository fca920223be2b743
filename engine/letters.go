package engine

// The dead letter queue is ground truth every family shares: a message's
// status StDLQ, the letters (unless countOnly), and the alerts and
// operators that watch it.

// DeadLetters lists up to max dead letters still in the DLQ, newest first.
func (t *Truth) DeadLetters(max int) []DeadLetter {
	var out []DeadLetter
	for i := t.dlq.n - 1; i >= 0 && len(out) < max; i-- {
		if d, ok := t.dlq.at(i); ok && !d.Redriven {
			out = append(out, d)
		}
	}
	return out
}

// deadLetter moves a held message to the dead letter queue and schedules
// the alerts and operators its arrival sets off.
func (t *Truth) deadLetter(id int32, m *Msg) {
	if !t.remove(id, m, StDLQ) {
		return // gone already: nothing to move
	}
	w := t.w
	if !t.countOnly {
		i := t.dlq.push(t.owner)
		*t.dlq.mut(i, t.owner) = DeadLetter{Msg: id, Receives: m.Receives, Effects: m.Effects, Poison: m.Poison && !m.Repaired,
			Source: m.Source, Published: m.Published, At: w.Now}
	}
	t.dlqLen++
	w.Stats.DLQTotal++
	w.Stats.DLQPeak = max(w.Stats.DLQPeak, int64(t.dlqLen))
	w.Emit(EvDLQ, id, -1, m.Receives, int64(m.Effects), 0)
	w.watch.deadLettered(t.dlqLen)
}

// Redrive takes every dead letter back out of the DLQ, as an operator's
// redrive does: a message nobody holds gets its record back (published,
// effects, source, poison); then place puts it back in the family's
// system (which sets a held status). It returns the number redriven.
func (t *Truth) Redrive(place func(id int32, m *Msg)) int {
	return t.RedriveIf(nil, place)
}

// RedriveIf is Redrive of the dead letters keep takes (all, for nil): an
// operator's redrive of only the messages whose work was never done.
func (t *Truth) RedriveIf(keep func(DeadLetter) bool, place func(id int32, m *Msg)) int {
	n := 0
	for j := 0; j < t.dlq.n; j++ {
		d, _ := t.dlq.at(j)
		if d.Redriven || keep != nil && !keep(d) {
			continue
		}
		t.dlq.mut(j, t.owner).Redriven = true
		m := t.MsgForWrite(d.Msg)
		if m.Holders == 0 {
			t.msgs.unretire(int(d.Msg), t.owner)
			*m = Msg{Published: d.Published, Effects: d.Effects, Source: d.Source, Poison: d.Poison}
			if t.recs != nil {
				t.recs.Revived(d.Msg)
			}
		}
		m.Redriven = true
		place(d.Msg, m)
		t.oldest = min(t.oldest, int(d.Msg))
		t.backs++
		n++
	}
	t.dlqLen -= n
	t.w.Stats.Redriven += int64(n)
	return n
}
