package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Faults as decisions. Besides the decisions a run records (latency,
// worker, late ack, claim branch, wedge, crash draws), each family declares
// fault points: places where its system could fail — a worker crash at a
// step of the handler, an ack lost on the way to the broker. A fault point
// is a potential decision whose default is "no fault". An unforced one
// records nothing and takes no decision index, so a run that forces no
// fault keeps its trace hash, decision count and d-codes: the check at a
// fault point is one nil pointer test (World.Fault).
//
// A fault is forced by a fork (ForkOptions.Faults, CodeFork.Faults, or
// Forcing.Faults on a world of one's own), and it is named by where it
// strikes, not when: a point, a message and its delivery ("after_claim",
// order 14, delivery 1). A forced fault fires the first time the run passes
// that point for that message and delivery, then never again. A forced
// fault of the queue is a plain crash (or a lost ack) in the trace, with
// no decision; where a family already decides a crash at that point
// (cashback, stagefront, kafka-restart), forcing the fault forces that
// decision, which the trace then marks forced.
//
// Forcing.Observe lists the fault points a run passes, forced or not,
// without changing its trace: the search a hunt makes.

// FaultPoint is one fault point a family declares.
type FaultPoint struct {
	// Name is the point's word in share codes and on the command line:
	// "after_claim".
	Name string
	// Words tell the fault in the lesson's words with %s for who suffers
	// it: "%s crashes after its claim".
	Words string
	// Doc says where the point is and what forcing it does.
	Doc string
}

// FamilyFaults is implemented by a family that declares fault points.
// FaultPoints lists them (World.Fault's point is an index into it);
// FaultActor names who suffers a fault ("worker B1"; for actor -1, as a
// branch's default name has it, "the worker").
type FamilyFaults interface {
	FaultPoints() []FaultPoint
	FaultActor(w *World, actor int) string
}

// Fault names one fault to force: a point, the message and the delivery
// it strikes.
type Fault struct {
	Point    string
	Msg      int32
	Delivery uint16
}

// FaultPass is a fault point a run passed, as Forcing.Observe reports
// it: where, who, when, and Pos, the events emitted before the step that
// passed it. A fork at Pos (or earlier) that forces the Fault fires it.
type FaultPass struct {
	Fault
	Actor  int16
	T      Time
	Pos    int64
	Forced bool // this run forces it: it fires here
}

// faultKey is a forced fault resolved to its family's point index.
type faultKey struct {
	point    uint8
	msg      int32
	delivery uint16
}

// faultState is a world's forced faults and observer: nil in a world that
// forces none and is not watched, which is what keeps World.Fault cheap.
type faultState struct {
	forced  []faultKey // not yet fired; never changed in place (clones share it)
	observe func(FaultPass)
	points  []FaultPoint // with observe: the family's, looked up once, not at every pass
}

// Forcing is what a fork forces on a world's future: faults at its
// family's fault points and the outcomes of decisions by index.
type Forcing struct {
	w         *World      // whose family declares the points and whose clock a pass reports
	faults    *faultState // nil for none (see Fault)
	override  *DecisionOverride
	overrides []DecisionOverride // more forced decisions after override, ascending (Decisions)
}

// Forcing is what forks force on the world (see Forcing).
func (w *World) Forcing() *Forcing { return &w.forcing }

// clone is f's copy for world c: the forced faults and decisions, no
// observer.
func (f *Forcing) clone(c *World) Forcing {
	n := Forcing{w: c, overrides: f.overrides}
	if f.override != nil {
		o := *f.override
		n.override = &o
	}
	if f.faults != nil && len(f.faults.forced) > 0 {
		n.faults = &faultState{forced: f.faults.forced}
	}
	return n
}

// Fault is a family's fault point: it reports the pass to the observer, if
// any, and whether this run forces point p (an index into FaultPoints)
// for message msg's delivery here, in which case the family makes the
// fault happen. Call it before the step emits its event.
func (w *World) Fault(p uint8, msg int32, actor int, delivery uint16) bool {
	if w.forcing.faults == nil {
		return false
	}
	return w.forcing.at(p, msg, actor, delivery)
}

func (f *Forcing) at(p uint8, msg int32, actor int, delivery uint16) bool {
	fs := f.faults
	forced := false
	for i, k := range fs.forced {
		if k.point == p && k.msg == msg && k.delivery == delivery {
			forced = true
			rest := make([]faultKey, 0, len(fs.forced)-1)
			fs.forced = append(append(rest, fs.forced[:i]...), fs.forced[i+1:]...)
			break
		}
	}
	if fs.observe != nil {
		name := ""
		if int(p) < len(fs.points) {
			name = fs.points[p].Name
		}
		fs.observe(FaultPass{Fault: Fault{Point: name, Msg: msg, Delivery: delivery},
			Actor: int16(actor), T: f.w.Now, Pos: f.w.Pos, Forced: forced})
	}
	if len(fs.forced) == 0 && fs.observe == nil {
		f.faults = nil
	}
	return forced
}

// Points lists the fault points the world's family declares (none for a
// family that declares none).
func (f *Forcing) Points() []FaultPoint {
	if ff, ok := f.w.fam.(FamilyFaults); ok {
		return ff.FaultPoints()
	}
	return nil
}

func (f *Forcing) index(name string) (uint8, error) {
	pts := f.Points()
	for i, p := range pts {
		if p.Name == name {
			return uint8(i), nil
		}
	}
	if len(pts) == 0 {
		return 0, fmt.Errorf("fault %q: incident %s declares no fault points", clip(name), f.w.spec.ID)
	}
	names := make([]string, len(pts))
	for i, p := range pts {
		names[i] = p.Name
	}
	return 0, fmt.Errorf("fault %q: incident %s's fault points are %s", clip(name), f.w.spec.ID, strings.Join(names, ", "))
}

// Faults forces faults in this world's future, besides any it forces
// already. It refuses a point the family does not declare, a negative
// message and delivery 0.
func (f *Forcing) Faults(fs ...Fault) error {
	if len(fs) == 0 {
		return nil
	}
	var keys []faultKey
	for _, ft := range fs {
		p, err := f.index(ft.Point)
		if err != nil {
			return err
		}
		if ft.Msg < 0 || ft.Delivery == 0 {
			return fmt.Errorf("fault %s: message %d, delivery %d: want a message from 0 and a delivery from 1", ft.Point, ft.Msg, ft.Delivery)
		}
		if k := (faultKey{p, ft.Msg, ft.Delivery}); !slices.Contains(keys, k) && (f.faults == nil || !slices.Contains(f.faults.forced, k)) {
			keys = append(keys, k)
		}
	}
	st := &faultState{}
	if f.faults != nil {
		*st = *f.faults
	}
	st.forced = append(slices.Clip(st.forced), keys...)
	f.faults = st
	return nil
}

// Observe calls fn at every fault point the world passes from now on,
// forced or not, until it is called with nil. Watching changes nothing in
// the run. A clone of the world (a checkpoint, a fork) is not watched.
func (f *Forcing) Observe(fn func(FaultPass)) {
	st := &faultState{}
	if f.faults != nil {
		*st = *f.faults
	}
	st.observe, st.points = fn, f.Points()
	if fn == nil && len(st.forced) == 0 {
		f.faults = nil
		return
	}
	f.faults = st
}

// Pending lists the faults this world forces that have not fired yet.
func (f *Forcing) Pending() []Fault {
	if f.faults == nil {
		return nil
	}
	pts := f.Points()
	out := make([]Fault, 0, len(f.faults.forced))
	for _, k := range f.faults.forced {
		out = append(out, Fault{Point: pts[k.point].Name, Msg: k.msg, Delivery: k.delivery})
	}
	return out
}

// Words tell a fault in the lesson's words: "worker B1 crashes after its
// claim on order 14, delivery 1". Actor -1 is the family's word for
// whoever it is ("the worker").
func (fc *Forcing) Words(f Fault, actor int) string {
	w := fc.w
	ff, ok := w.fam.(FamilyFaults)
	if !ok {
		return fmt.Sprintf("fault %s on %d, delivery %d", f.Point, f.Msg, f.Delivery)
	}
	words := "%s: fault " + f.Point
	for _, p := range ff.FaultPoints() {
		if p.Name == f.Point {
			words = p.Words
		}
	}
	label := w.spec.Label
	if label == "" {
		label = "message"
	}
	return fmt.Sprintf(words, ff.FaultActor(w, actor)) + fmt.Sprintf(" on %s %d, delivery %d", label, f.Msg, f.Delivery)
}

// FaultCode is a fault as a share code writes it: "after_claim:14.1".
func (f Fault) String() string { return fmt.Sprintf("%s:%d.%d", f.Point, f.Msg, f.Delivery) }

// ParseFault reads a fault as Fault.String writes it. The point's name is
// checked against the incident when the fault is forced.
func ParseFault(s string) (Fault, error) {
	name, rest, ok := strings.Cut(s, ":")
	msg, del, ok2 := strings.Cut(rest, ".")
	var f Fault
	if !ok || !ok2 || name == "" || len(s) > maxCodeField {
		return f, fmt.Errorf("fault %q: want point:message.delivery, e.g. after_claim:14.1", clip(s))
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && c != '_' {
			return f, fmt.Errorf("fault %q: a point is a word of a-z and _", clip(s))
		}
	}
	var m, d int64
	if _, err := fmt.Sscanf(msg, "%d", &m); err != nil || fmt.Sprint(m) != msg || m < 0 || m > 1<<31-1 {
		return f, fmt.Errorf("fault %q: %q is not a message number", clip(s), clip(msg))
	}
	if _, err := fmt.Sscanf(del, "%d", &d); err != nil || fmt.Sprint(d) != del || d < 1 || d > 1<<16-1 {
		return f, fmt.Errorf("fault %q: %q is not a delivery number (from 1)", clip(s), clip(del))
	}
	return Fault{Point: name, Msg: int32(m), Delivery: uint16(d)}, nil
}

// Override forces the outcome of decision index in this world's future
// (see Decisions for several).
func (f *Forcing) Override(o DecisionOverride) { f.override, f.overrides = &o, nil }

// Decisions forces the outcomes of several decisions in this world's
// future, by index, as Override does for one: a branch that forces more
// than one decision from one moment (a hunt's depth 2). It replaces any
// override not yet reached.
func (f *Forcing) Decisions(os ...DecisionOverride) {
	if len(os) == 0 {
		return
	}
	s := slices.Clone(os)
	slices.SortStableFunc(s, func(a, b DecisionOverride) int { return int(a.Index - b.Index) })
	o := s[0]
	f.override, f.overrides = &o, s[1:]
}

// nextOverride moves to the next forced decision once one is used.
func (f *Forcing) nextOverride() {
	f.override = nil
	for len(f.overrides) > 0 {
		o := f.overrides[0]
		f.overrides = f.overrides[1:]
		if o.Index >= f.w.Decisions {
			f.override = &o
			return
		}
	}
}

// ForceDecided forces a decision a family already makes at a fault point
// (cashback's crash between COMMIT and XACK): it records the decision as
// Decide does, with value 1 marked forced, unless a fork's override of
// that very decision says otherwise. It returns the value.
func (w *World) ForceDecided(k DecisionKind, msg int32, worker int, delivery uint16, lo, hi int64) int64 {
	v := w.DecideAmong(k, msg, worker, delivery, 1, lo, hi, 0)
	if v == 1 {
		w.dec.Forced = true
	}
	return v
}
