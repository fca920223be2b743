package engine

// budgetRun plays world w into sink within budget b: the events' limit, and
// with b.Bytes set the world's footprint, looked at every memSlice events.
type budgetRun struct {
	w    *World
	sink Sink
	b    Budget
}

// run is RunWithin, and with b.Bytes set a look at the world's footprint
// every memSlice events: a world past it stops there with a *BudgetError
// (the run's summary so far is still consistent).
func (m budgetRun) run() (bool, error) {
	w, b := m.w, m.b
	n := b.Limit()
	if n >= 0 {
		n = max(0, n-w.Pos)
	}
	if err := m.upTo(n); err != nil {
		return false, err
	}
	if w.Settled() {
		return true, nil
	}
	w.StoppedAt(b)
	return false, nil
}

// upTo is RunTo(sink, n) (n < 0: to the end), with b.Bytes set looking
// at the world's footprint every memSlice events.
func (m budgetRun) upTo(n int64) error {
	w, sink, b := m.w, m.sink, m.b
	if b.Bytes <= 0 {
		w.RunTo(sink, n)
		return nil
	}
	acct := Account{Limits: Limits{Bytes: b.Bytes, BytesFlag: b.BytesFlag}, Of: "the run"}
	stop := w.Pos + n
	for {
		step := int64(memSlice)
		if n >= 0 {
			step = min(step, stop-w.Pos)
		}
		from := w.Pos
		if w.RunTo(sink, step) || w.Pos == from || n >= 0 && w.Pos >= stop {
			return nil // settled, nothing left to play, or n played
		}
		if err := acct.Check(w.Footprint()); err != nil {
			return err
		}
	}
}
