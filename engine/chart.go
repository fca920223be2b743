package engine

// Sample is one point of the chart: the counts after event Pos.
type Sample struct {
	Pos      int64
	T        Time
	Queue    int32
	InFlight int32
	DLQ      int32
	Effects  int64
}

// Series is a branch's chart data, decimated to at most maxSamples points.
// Each point holds the highest values its stretch of events reached, not
// only the state at its first event, so that the chart's peaks are the
// run's whatever the decimation.
type Series struct {
	Samples []Sample
	stride  int64
}

const maxSamples = 4096

// raise lifts s's values to at least o's.
func (s *Sample) raise(o Sample) {
	s.Queue, s.InFlight = max(s.Queue, o.Queue), max(s.InFlight, o.InFlight)
	s.DLQ, s.Effects = max(s.DLQ, o.DLQ), max(s.Effects, o.Effects)
}

func (s *Series) add(w *World) {
	if s.stride == 0 {
		s.stride = 1
	}
	waiting, taken := w.fam.Counts(w)
	now := Sample{w.Pos, w.Now, int32(waiting), int32(taken), int32(w.DLQLen()), w.Stats.Effects}
	if n := len(s.Samples); n > 0 && w.Pos-s.Samples[n-1].Pos < s.stride {
		s.Samples[n-1].raise(now)
		return
	}
	s.Samples = append(s.Samples, now)
	if len(s.Samples) >= maxSamples {
		j := 0
		for i := 0; i < len(s.Samples); i += 2 {
			s.Samples[j] = s.Samples[i]
			if i+1 < len(s.Samples) {
				s.Samples[j].raise(s.Samples[i+1])
			}
			j++
		}
		s.Samples = s.Samples[:j]
		s.stride *= 2
	}
}

// ChartStart is the state a chart pass of branch b starts from: its fork
// point (the start, for the main branch), a world of the caller's own.
func (x *Explorer) ChartStart(b *Branch) *World { return b.clone(b.cps[0]) }

// ChartRun plays w to its end headless (no checkpoints, no hash: the
// memory of one world) and returns its chart samples, in at most
// maxSamples points. It stops at limit events (0: none) with a
// *BudgetError, or when m is cancelled; publish, when set, gets a copy of
// the samples so far every few thousand events, for a chart that fills in.
// The samples are those a branch's own series would hold; last is the
// moment of the last event played (decimation may drop its sample).
func ChartRun(w *World, limit int64, m *Meter, publish func([]Sample)) (out []Sample, last Time, err error) {
	if m == nil {
		m = NewMeter()
	}
	defer m.settle(&err)
	var s Series
	last = w.Now
	sink := sinkFunc(func(w *World, e *Event, _ *Decision) {
		s.add(w)
		last = e.T
	})
	const every = 1 << 15
	for w.Step(sink) {
		m.tick()
		if limit > 0 && w.Pos >= limit {
			return s.Samples, last, &BudgetError{What: "events", Need: w.Pos, Limit: limit, During: true}
		}
		if m.Memory != nil && w.Pos%memSlice == 0 {
			if err := m.Memory.Check(w.Footprint()); err != nil {
				return s.Samples, last, err
			}
		}
		if publish != nil && w.Pos%every == 0 {
			publish(append([]Sample(nil), s.Samples...))
		}
	}
	return s.Samples, last, nil
}

// LastPublish is when the line w is on publishes its last message, by its
// sources' schedule under its knobs: a floor for where its run ends.
func LastPublish(w *World) Time {
	p := w.Knobs
	if len(w.pending) > 0 {
		_ = p.Apply(w.pending)
	}
	var last Time
	for i := range w.spec.Sources {
		s := &w.spec.Sources[i]
		n := int64(s.CountUnder(&p))
		if n > 0 {
			last = max(last, s.Start+Time(n-1)*s.Every)
		}
	}
	return last
}
