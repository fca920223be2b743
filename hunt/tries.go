package hunt

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
)

// chunk is how many branches are played between looks at their results:
// fixed, so that what is found never depends on the number of cores.
const chunk = 64

// try plays nodes in order, their outcomes appended to *outs, until one
// breaks the property or the budget is spent. hit is the breaking one's
// index in *outs (-1: none); complete says every node was played. When
// the next depth expands them, r drops the decisions it cannot reach.
func (s *searcher) try(nodes []node, depth int, outs *[]outcome, r *reach) (hit int, complete bool) {
	base := len(*outs)
	*outs = append(*outs, make([]outcome, len(nodes))...)
	o := (*outs)[base:]
	for at := 0; at < len(nodes); at += chunk {
		end := min(at+chunk, len(nodes), at+s.o.Budget-s.tried)
		if end <= at {
			return -1, false
		}
		if s.err = s.stop(); s.err != nil {
			return -1, false
		}
		keep := depth < s.o.Depth
		s.parallel(end-at, func(i int) {
			if !s.cancelled() {
				o[at+i] = s.play(nodes[at+i], keep)
			}
		})
		if s.cancelled() {
			s.err = ErrCancelled
			return -1, false
		}
		if keep { // the outcomes are kept for the next depth
			freed := 0
			for i := at; i < end; i++ {
				freed += r.played(base+i, s.score(&o[i]), base+at)
			}
			s.mem.free(int64(freed) * decBytes)
			if s.err = s.mem.keep(o[at:end], depth+1 == s.o.Depth); s.err != nil {
				return -1, false
			}
		}
		for i := at; i < end; i++ {
			if o[i].ok && len(o[i].broken) > 0 {
				s.tried += i - at + 1
				return base + i, false
			}
			if o[i].ok {
				s.nearer(&o[i])
			}
		}
		s.tried += end - at
		if s.o.Progress != nil {
			s.o.Progress(Progress{Tried: s.tried, Depth: depth, Best: s.bestDiff})
		}
		if end < min(at+chunk, len(nodes)) {
			return -1, false // the budget ran out in this chunk
		}
	}
	return -1, true
}

// cancelled reports whether Options.Cancel is closed.
func (s *searcher) cancelled() bool {
	select {
	case <-s.o.Cancel:
		return true
	default:
		return false
	}
}

// stop asks Options.Stop whether to go on.
func (s *searcher) stop() error {
	if s.cancelled() {
		return ErrCancelled
	}
	if s.o.Stop == nil {
		return nil
	}
	return s.o.Stop()
}

// nearer keeps o as the best so far when it moved the figures more than
// any branch before it.
func (s *searcher) nearer(o *outcome) {
	sc := s.score(o)
	if sc <= s.best {
		return
	}
	s.best = sc
	a, b := &o.sum, &s.baseSum
	var parts []string
	for _, f := range []struct {
		d    int64
		name string
	}{
		{a.DuplicateEffects - b.DuplicateEffects, "duplicates"},
		{a.Lost - b.Lost, "lost"},
		{a.DLQ - b.DLQ, "in the DLQ"},
		{a.Deliveries - b.Deliveries, "deliveries"},
		{a.Effects - b.Effects, "effects"},
		{a.HeldAtEnd - b.HeldAtEnd, "held at the end"},
	} {
		if f.d != 0 {
			parts = append(parts, fmt.Sprintf("%+d %s", f.d, f.name))
		}
	}
	s.bestDiff = strings.Join(parts, ", ")
}

// parallel runs f(0..n-1) on the searcher's workers.
func (s *searcher) parallel(n int, f func(i int)) {
	if s.workers <= 1 || n == 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for k := 0; k < min(s.workers, n); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// score is how near a branch came to breaking the property: how far it
// moved the figures a violation needs (deliveries, dead letters,
// duplicates, losses) from the base line's. Deeper search starts from the
// branches that moved them most.
func (s *searcher) score(o *outcome) int64 {
	a, b := &o.sum, &s.baseSum
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	return abs(a.Deliveries-b.Deliveries) + 4*abs(a.DLQ-b.DLQ) + 4*abs(a.DuplicateEffects-b.DuplicateEffects) +
		4*abs(a.Lost-b.Lost) + abs(a.Effects-b.Effects) + abs(a.HeldAtEnd-b.HeldAtEnd)
}

// byScore orders a level's nodes for expansion: those whose run moved
// the figures most first, ties in branch order.
func (s *searcher) byScore(level []node, outs []outcome) []int {
	order := make([]int, len(level))
	for i := range order {
		order[i] = i
		level[i].score = s.score(&outs[i])
	}
	sort.SliceStable(order, func(a, b int) bool { return level[order[a]].score > level[order[b]].score })
	return order
}

// random plays seeded random schedules until the budget is spent: a
// random forcible decision of the base line, then up to Depth of them,
// each drawn from the line the one before made.
func (s *searcher) random(decs []dec, res *Result) (*Result, int) {
	r := rand.New(rand.NewPCG(s.o.Seed, 0x68756e74)) // "hunt"
	n, looked := 0, 0
	for s.tried < s.o.Budget {
		if s.cancelled() {
			s.err = ErrCancelled
			return nil, n
		}
		d := decs[r.IntN(len(decs))]
		nd := node{from: d.cp, root: d.cp, force: []choice{d.choice(d.alt[r.IntN(len(d.alt))], s.points)}}
		want := 1 + r.IntN(max(1, s.o.Depth+1))
		var o outcome
		for {
			o = s.play(nd, len(nd.force) < want)
			s.tried++
			n++
			if o.ok && len(o.broken) > 0 {
				res.Random = n
				r, _ := s.found(res, o)
				return r, n
			}
			if len(nd.force) >= want || len(o.decs) == 0 || s.tried >= s.o.Budget {
				break
			}
			c := o.decs[r.IntN(len(o.decs))]
			nd.force = append(nd.force, c.choice(c.alt[r.IntN(len(c.alt))], s.points))
		}
		if n-looked >= chunk {
			looked = n
			if s.o.Progress != nil {
				s.o.Progress(Progress{Tried: s.tried, Best: s.bestDiff})
			}
			if s.err = s.stop(); s.err != nil {
				return nil, n
			}
		}
	}
	return nil, n
}
