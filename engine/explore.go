package engine

import "fmt"

// Explorer is an explorable run: a tree of branches of one incident, each
// seekable and forkable, and a cursor on one of them. It keeps checkpoints,
// not history: seeking restores the nearest checkpoint and replays at most
// Every events; events for the timeline are regenerated the same way.
// An Explorer is not safe for concurrent use; each session owns its own.
type Explorer struct {
	Spec     *Spec
	Seed     uint64
	Set      []Setting // applied from the start, on every branch
	Every    int64     // events between checkpoints
	branches []*Branch
	cur      *Branch
	k        *walker // the cursor's line and world
	w        *World  // the state at the cursor (k.w)
	// read is where the last EventsOn ended: a timeline reading the
	// events since its last read after each step goes on from there
	// rather than replaying from a checkpoint
	read   *walker
	nextID int

	acct  Account // its limits (zero: unbounded), pool and checkpoint memory held
	meter *Meter  // set while Run runs
	epm   int64   // events per message from a probe, 0 until needed
}

// Branch is one line of history: its parent's events up to ForkPos, then
// its own, from knob changes and/or a forced decision at that moment.
type Branch struct {
	ID       int
	Name     string
	Parent   *Branch
	ForkPos  int64
	ForkAt   Time
	Changes  []Setting
	Override *DecisionOverride
	Faults   []Fault  // forced from the fork on
	Actions  []Action // the operator actions the fork takes at its moment
	actWords []string // Actions in words on the fork's state, as its name has them
	forkMid  bool     // events at ForkAt's clock came before the fork (Moment)
	words    []string // what the fork changes, in words (Words)

	// cps are its own checkpoints, ascending pos; cps[0] is the fork
	// point. A checkpoint is immutable once made (a fresh clone owns no
	// leaf, so cloning it writes nothing): an explorer and its Clones
	// share them read-only, from any goroutine.
	cps      []checkpoint
	frontier *World
	hash     *hashSink // hashing the frontier's events, nil until first extension
	done     bool
	series   Series
	times    timeIndex // where clock times fall on its own line (explore_timeindex.go)
}

type checkpoint struct {
	pos    int64
	w      *World
	hstate []byte // the trace hash's state at pos, when known
	hlast  Time
}

// NewExplorer starts an explorable run on the main branch, cursor at 0.
func NewExplorer(spec *Spec, seed uint64, set []Setting) (*Explorer, error) {
	w, err := NewWorld(spec, seed, set)
	if err != nil {
		return nil, err
	}
	x := &Explorer{Spec: spec, Seed: seed, Set: set, Every: 16384}
	// the frontier's hash (and its block buffer, a quarter of a megabyte)
	// is made on the first extension, from the start's state: a session
	// that never plays (a follower) holds none
	b := &Branch{ID: 0, Name: "main", frontier: w.Clone()}
	b.cps = []checkpoint{{pos: 0, w: w.Clone(), hstate: marshalHash(newHashSink(nil)), hlast: 0}}
	x.branches = []*Branch{b}
	x.cur = b
	x.k = &walker{path: []*Branch{b}, w: w, x: x}
	x.w = w
	x.nextID = 1
	return x, nil
}

// World is the state at the cursor. Callers must not change it.
func (x *Explorer) World() *World { return x.w }

// Pos is the cursor: the number of events behind it.
func (x *Explorer) Pos() int64 { return x.w.Pos }

// Branch is the branch under the cursor.
func (x *Explorer) Branch() *Branch { return x.cur }

// byID is the branch with ID id, nil none.
func (x *Explorer) byID(id int) *Branch {
	for _, b := range x.branches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// Branches lists every branch in creation order.
func (x *Explorer) Branches() []*Branch { return x.branches }

// Path lists the branch and its ancestors, root first.
func (b *Branch) Path() []*Branch {
	var out []*Branch
	for c := b; c != nil; c = c.Parent {
		out = append([]*Branch{c}, out...)
	}
	return out
}

// Done reports whether the branch has been played to its end.
func (b *Branch) Done() bool { return b.done }

// Len is the number of events known on the branch so far (all of them once
// Done).
func (b *Branch) Len() int64 { return b.frontier.Pos }

// Series is the branch's chart data so far, its parent's part included.
func (b *Branch) Series() []Sample { return b.series.Samples }

// Clone is an independent copy of the explorer, for work done on another
// goroutine and swapped in when it completes: its own branches, frontiers,
// hashes and cursor. Checkpoints are shared read-only (cloning one
// writes nothing), so the original goes on while the copy is worked on.
// Clone itself runs on the original's goroutine: it clones the frontiers
// and the cursor's world, which writes them.
func (x *Explorer) Clone() *Explorer {
	c := *x
	c.meter = nil
	c.read = nil // its world is the original's, stepped by it
	c.branches = make([]*Branch, len(x.branches))
	of := make(map[*Branch]*Branch, len(x.branches))
	for i, b := range x.branches { // creation order: parents first
		nb := *b
		nb.Parent = of[b.Parent]
		if b.Parent != nil && nb.Parent == nil {
			// forked from another explorer's copy of a branch (a job's
			// clone forking the live explorer's): the parent is this
			// explorer's branch of that ID, or the clone would lose the
			// ancestry, and its codes their first forks
			nb.Parent = of[x.byID(b.Parent.ID)]
			if nb.Parent == nil {
				panic(fmt.Sprintf("explorer: branch %q's parent %q is not one of its branches", b.Name, b.Parent.Name))
			}
		}
		nb.cps = append([]checkpoint(nil), b.cps...)
		nb.frontier = b.frontier.Clone()
		if b.hash != nil {
			nb.hash = restoreHash(marshalHash(b.hash), b.hash.last)
		}
		nb.series.Samples = append([]Sample(nil), b.series.Samples...)
		nb.times = b.times.clip()
		c.branches[i], of[b] = &nb, &nb
	}
	c.cur = of[x.cur]
	c.k = &walker{path: c.cur.Path(), seg: x.k.seg, w: x.k.w.Clone(), x: &c}
	c.w = c.k.w
	return &c
}
