// Package randsuite generates valid random runs of the bundled incidents
// (a seed, knob settings, sometimes a fork moment) and checks each run's
// summary against a tally of its own events: the property tests of
// issue 9. Every case prints as the command that reproduces it.
package randsuite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/incidents"
)

// Case is one run: what `inflight run` would be given.
type Case struct {
	Spec  *engine.Spec
	Seed  uint64
	Set   []engine.Setting // from the start (the CLI has none with --at)
	HasAt bool
	At    engine.Time
	AtSet []engine.Setting // with --at: every change applies from At
}

// Options are the run options the CLI builds for the case.
func (c Case) Options() engine.RunOptions {
	o := engine.RunOptions{Seed: c.Seed, Set: c.Set}
	if c.HasAt {
		o.HasAt, o.At, o.AtSet = true, c.At, c.AtSet
	}
	return o
}

// Repro is the command line that reproduces the case.
func (c Case) Repro() string {
	var b strings.Builder
	fmt.Fprintf(&b, "inflight run %s --seed %d", c.Spec.ID, c.Seed)
	set := c.Set
	if c.HasAt {
		set = c.AtSet
	}
	for _, s := range set {
		fmt.Fprintf(&b, " --set %s=%s", s.Knob, s.Value)
	}
	if c.HasAt {
		fmt.Fprintf(&b, " --at %s", c.At.Short())
		if len(c.Set) > 0 {
			// no command line says both: a share code of the two forks does
			b.WriteString(" (and from the start:")
			for _, s := range c.Set {
				fmt.Fprintf(&b, " %s=%s", s.Knob, s.Value)
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

// Settings are the case's changes, from the start or from At.
func (c Case) Settings() []engine.Setting {
	if c.HasAt {
		return c.AtSet
	}
	return c.Set
}

var outside = regexp.MustCompile(`outside (-?\d+)…(-?\d+)`)

// IntRange reads a whole-number knob's range off its own definition: the
// error it gives for a value below every range names the range.
func IntRange(k *engine.Knob) (lo, hi int, ok bool) {
	var p engine.Params
	err := k.Set(&p, strconv.Itoa(-1<<40))
	if err == nil {
		return 0, 0, false
	}
	m := outside.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, 0, false
	}
	lo, _ = strconv.Atoi(m[1])
	hi, _ = strconv.Atoi(m[2])
	return lo, hi, true
}

// sizeCap keeps the runs small: a count knob is drawn from its range's
// bottom up to this, so a thousand runs take seconds.
var sizeCap = map[string]int{"orders": 40, "events": 200, "batch": 300}

// knobGen draws a value for one knob. Counts come from the knob's own
// range (capped for size), with the range's ends now and then, since the
// ends are where counters overflow.
type knobGen func(r *rand.Rand, k *engine.Knob, spec *engine.Spec, fork bool) string

func ms(d int64) string { return engine.FormatDuration(engine.Duration(d)) }

// logMs draws a duration between lo and hi milliseconds, evenly on a log
// scale: 20 ms and 2 minutes are both likely.
func logMs(r *rand.Rand, lo, hi int64) int64 {
	if lo < 1 {
		lo = 1
	}
	return int64(float64(lo) * math.Pow(float64(hi)/float64(lo), r.Float64()))
}

func prob(r *rand.Rand, hi float64, pOne float64) string {
	switch x := r.Float64(); {
	case x < pOne:
		return "1"
	case x < pOne+0.2:
		return "0"
	default:
		return strconv.FormatFloat(float64(int(r.Float64()*hi*10000))/10000, 'g', -1, 64)
	}
}

var gens = map[string]knobGen{
	"orders":   countGen,
	"events":   countGen,
	"batch":    countGen,
	"dedupe":   choiceGen,
	"mode":     choiceGen,
	"ack":      choiceGen,
	"claim":    choiceGen,
	"late_ack": choiceGen, "zero_rows": choiceGen, "email_crash": choiceGen, "key": choiceGen,
	"retry": choiceGen, "versions": choiceGen, "breaker": choiceGen,
	"max_receives": func(r *rand.Rand, k *engine.Knob, spec *engine.Spec, fork bool) string {
		lo, hi, _ := IntRange(k)
		if r.IntN(10) == 0 {
			return strconv.Itoa([]int{lo, 255, 256, hi}[r.IntN(4)])
		}
		return strconv.Itoa(lo + r.IntN(6))
	},
	"consumer_threads": func(r *rand.Rand, k *engine.Knob, spec *engine.Spec, fork bool) string {
		lo, hi, _ := IntRange(k)
		if r.IntN(8) == 0 {
			return strconv.Itoa(hi)
		}
		return strconv.Itoa(lo + r.IntN(8))
	},
	"repartition": func(r *rand.Rand, k *engine.Knob, spec *engine.Spec, fork bool) string {
		lo, hi, _ := IntRange(k)
		// rarely the top: a thousand partitions take seconds to simulate
		if r.IntN(60) == 0 {
			return strconv.Itoa(hi)
		}
		return strconv.Itoa(lo + r.IntN(12))
	},
	"visibility_timeout": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 20, 180_000))
	},
	"latency_min": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 1, 45_000) - 1) // 0 too
	},
	"latency_max": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 1, 60_000))
	},
	"heartbeat": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		if r.IntN(3) == 0 {
			return "0s"
		}
		return ms(logMs(r, 500, 40_000))
	},
	"claim_window": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 100, 200_000))
	},
	"crash_after_claim": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		if r.IntN(2) == 0 {
			return "0s"
		}
		return ms(logMs(r, 1, 60_000))
	},
	"restart_after": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 1, 10_000) - 1)
	},
	"wedge_p": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string { return prob(r, 0.5, 0.05) },
	"crash_p": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string { return prob(r, 0.3, 0.05) },
	"write_timeout_p": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		// every answer lost (1) re-sends each reading to its deadline:
		// 4.5 million events, so rarely; below it, up to 0.6 (a million)
		return prob(r, 0.6, 0.03)
	},
	"clock_step": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(int64(r.IntN(40_001)) - 20_000)
	},
	"dedup_window": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 1, 600_000) - 1)
	},
	"retry_deadline": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return ms(logMs(r, 1, 1_200_000) - 1)
	},
	"transactional_id": func(r *rand.Rand, _ *engine.Knob, _ *engine.Spec, _ bool) string {
		return []string{"", "orders-tx", "confirm_1"}[r.IntN(3)]
	},
}

func countGen(r *rand.Rand, k *engine.Knob, spec *engine.Spec, fork bool) string {
	lo, hi, _ := IntRange(k)
	top := min(hi, sizeCap[k.Name])
	if fork {
		// at a fork the run is the incident's own size: lower the count
		// below what is already published as often as above it
		def, _ := strconv.Atoi(k.Get(&spec.Params))
		top = min(hi, max(top, def+def/4+1))
	}
	if r.IntN(10) == 0 {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo + r.IntN(top-lo+1))
}

func choiceGen(r *rand.Rand, k *engine.Knob, _ *engine.Spec, _ bool) string {
	return k.Choices[r.IntN(len(k.Choices))]
}

// capped is the family's cap on knob k for random runs
// (Descriptor.ExploreMax), if it declares one.
func capped(spec *engine.Spec, k string) (float64, bool) {
	d := incidents.FamilyOf(spec)
	if d == nil {
		return 0, false
	}
	hi, ok := d.ExploreMax[k]
	return hi, ok
}

// draw is a value for knob k: its generator's, or under the family's cap.
func draw(r *rand.Rand, k *engine.Knob, spec *engine.Spec, fork bool) string {
	if hi, ok := capped(spec, k.Name); ok && k.Type == engine.KnobProbability {
		return prob(r, hi, 0)
	}
	return gens[k.Name](r, k, spec, fork)
}

// HasGen reports whether the generator knows how to draw knob name.
func HasGen(name string) bool { _, ok := gens[name]; return ok }

// Gen makes cases for one incident.
type Gen struct {
	Spec *engine.Spec
	// End is when the incident's own run ends: --at moments fall between
	// its start and this (the CLI refuses a moment after the end).
	End engine.Time
	// Events is the size of the incident's own run, for the budget.
	Events int64
}

// NewGen measures the incident's own run for its fork moments.
func NewGen(spec *engine.Spec) (*Gen, error) {
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
	if err != nil {
		return nil, err
	}
	end, err := engine.ParseClock(sum.End)
	if err != nil {
		return nil, err
	}
	return &Gen{Spec: spec, End: end, Events: sum.Events}, nil
}

// Case draws case i of the stream seeded by seed: the same (seed, i)
// always gives the same case.
func (g *Gen) Case(seed uint64, i int) Case {
	r := rand.New(rand.NewPCG(seed, uint64(i)*0x9e3779b97f4a7c15+1))
	c := Case{Spec: g.Spec, Seed: r.Uint64N(1 << 20)}
	fork := r.IntN(4) == 0 // a quarter are forks with --at
	knobs := engine.KnobsFor(g.Spec)
	for try := 0; ; try++ {
		var set []engine.Setting
		for _, k := range knobs {
			isCount := sizeCap[k.Name] > 0
			if (isCount && !fork) || r.IntN(5) < 2 {
				set = append(set, engine.Setting{Knob: k.Name, Value: draw(r, k, g.Spec, fork)})
			}
		}
		if fork && len(set) == 0 {
			k := knobs[r.IntN(len(knobs))]
			set = append(set, engine.Setting{Knob: k.Name, Value: draw(r, k, g.Spec, fork)})
		}
		p := g.Spec.Params
		if err := p.Apply(set); err != nil || engine.CheckKnobsFor(g.Spec, set) != nil {
			if try > 50 {
				panic(fmt.Sprintf("randsuite: no valid settings for %s: %v", g.Spec.ID, err))
			}
			continue // latency_max below latency_min: draw again
		}
		set = tame(g.Spec, set)
		if fork {
			c.HasAt, c.AtSet = true, set
			// within the first nine tenths: another seed may end a little sooner
			c.At = g.Spec.Start + engine.Time(r.Int64N(int64(g.End-g.Spec.Start)*9/10+1))
		} else {
			c.Set = set
		}
		return c
	}
}

// tame keeps a case inside the budget when the family caps a rate: with
// a receive limit above 10, each failure the rate causes may come back
// that many times (stagefront's crashed sales, zero rows taken for
// failure), so a capped rate is a tenth of its cap.
func tame(spec *engine.Spec, set []engine.Setting) []engine.Setting {
	many := false
	for _, s := range set {
		if n, err := strconv.Atoi(s.Value); s.Knob == "max_receives" && err == nil && n > 10 {
			many = true
		}
	}
	if !many {
		return set
	}
	for _, k := range engine.KnobsFor(spec) {
		hi, ok := capped(spec, k.Name)
		if !ok {
			continue
		}
		out := []engine.Setting{}
		for _, s := range set {
			if s.Knob != k.Name {
				out = append(out, s)
			}
		}
		set = append(out, engine.Setting{Knob: k.Name, Value: strconv.FormatFloat(hi/10, 'g', -1, 64)})
	}
	return set
}

// ForkCase draws case i of a stream of forks from a changed state: knobs
// set from the start, and some of them (or others) set again at a moment,
// as the explorer's forks of a branch do. A fork then meets state its
// knobs shaped (a breaker open, leases renewing, a window remembered)
// instead of the incident's defaults. No command line gives both; the
// run's share code does.
func (g *Gen) ForkCase(seed uint64, i int) Case {
	r := rand.New(rand.NewPCG(seed^0x666f726b, uint64(i)*0x9e3779b97f4a7c15+3))
	knobs := engine.KnobsFor(g.Spec)
	for try := 0; ; try++ {
		c := Case{Spec: g.Spec, Seed: r.Uint64N(1 << 20), HasAt: true}
		for _, k := range knobs {
			isCount := sizeCap[k.Name] > 0
			if isCount || r.IntN(2) == 0 {
				c.Set = append(c.Set, engine.Setting{Knob: k.Name, Value: draw(r, k, g.Spec, false)})
			}
		}
		for _, k := range knobs {
			if r.IntN(3) == 0 {
				c.AtSet = append(c.AtSet, engine.Setting{Knob: k.Name, Value: draw(r, k, g.Spec, true)})
			}
		}
		if len(c.AtSet) == 0 {
			k := knobs[r.IntN(len(knobs))]
			c.AtSet = append(c.AtSet, engine.Setting{Knob: k.Name, Value: draw(r, k, g.Spec, true)})
		}
		c.At = g.Spec.Start + engine.Time(r.Int64N(int64(g.End-g.Spec.Start)*9/10+1))
		w, err := engine.NewWorld(c.Spec, c.Seed, c.Set)
		if err == nil {
			err = w.ScheduleKnobs(c.At, c.AtSet)
		}
		if err == nil {
			return c
		}
		if try > 50 {
			panic(fmt.Sprintf("randsuite: no valid fork from a changed state for %s: %v", g.Spec.ID, err))
		}
	}
}
