package engine

// The dead letter queue is ground truth every family shares: a message's
// status StDLQ, the letters (unless countOnly), and the alerts and
// operators that watch it.

// DeadLetters lists up to max dead letters still in the DLQ, newest first.
func (w *World) DeadLetters(max int) []DeadLetter {
	var out []DeadLetter
	for i := w.dlq.n - 1; i >= 0 && len(out) < max; i-- {
		if d, ok := w.dlq.at(i); ok && !d.Redriven {
			out = append(out, d)
		}
	}
	return out
}

// deadLetter moves a held message to the dead letter queue and schedules
// the alerts and operators its arrival sets off.
func (w *World) deadLetter(id int32, m *Msg) {
	if !w.remove(id, m, StDLQ) {
		return // gone already: nothing to move
	}
	if !w.countOnly {
		i := w.dlq.push(w.owner)
		*w.dlq.mut(i, w.owner) = DeadLetter{Msg: id, Receives: m.Receives, Effects: m.Effects, Poison: m.Poison && !m.Repaired,
			Source: m.Source, Published: m.Published, At: w.Now}
	}
	w.dlqLen++
	w.Stats.DLQTotal++
	w.Stats.DLQPeak = max(w.Stats.DLQPeak, int64(w.dlqLen))
	w.emit(EvDLQ, id, -1, m.Receives, int64(m.Effects), 0)
	for i, a := range w.spec.Alerts {
		if a.Kind == AlertDLQNonEmpty && w.AlertAt[i] < 0 {
			w.q.add(item{t: w.Now, op: opAlert, who: int16(i)}, w.Now)
		}
	}
	for i, a := range w.spec.WouldHave {
		if a.Kind == AlertDLQNonEmpty && w.WouldAt[i] < 0 {
			w.q.add(item{t: w.Now, op: opAlert, who: int16(i), delivery: 1}, w.Now)
		}
	}
	for i, o := range w.spec.Operators {
		if !w.opDone[i] && o.WhenDLQ > 0 && w.dlqLen >= o.WhenDLQ {
			w.opDone[i] = true
			w.q.add(item{t: w.Now, op: opOperator, who: int16(i)}, w.Now)
		}
	}
}

// Redrive takes every dead letter back out of the DLQ, as an operator's
// redrive does: a message nobody holds gets its record back (published,
// effects, source, poison); then place puts it back in the family's
// system (which sets a held status). It returns the number redriven.
func (w *World) Redrive(place func(id int32, m *Msg)) int {
	n := 0
	for j := 0; j < w.dlq.n; j++ {
		d, _ := w.dlq.at(j)
		if d.Redriven {
			continue
		}
		w.dlq.mut(j, w.owner).Redriven = true
		m := w.msgForWrite(d.Msg)
		if m.Holders == 0 {
			w.msgs.unretire(int(d.Msg), w.owner)
			*m = Msg{Published: d.Published, Effects: d.Effects, Source: d.Source, Poison: d.Poison}
			if w.famRecs != nil {
				w.famRecs.Revived(d.Msg)
			}
		}
		place(d.Msg, m)
		w.oldest = min(w.oldest, int(d.Msg))
		n++
	}
	w.dlqLen = 0
	w.Stats.Redriven += int64(n)
	return n
}
