package hunt

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// On thursday-fixed with no faults forced, no decision up to depth 2
// sends an order two emails within the budget; an operator crashing
// the worker that holds an order mid-call does. The find is one action,
// its share code carries it (;do=) and replays to the duplicate, and the
// same hunt gives the same answer twice.
func TestThursdayFixedOnlyAnActionDuplicates(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	o.Faults, o.Depth, o.Budget = false, 2, 1500
	if r := hunt(t, o); r.Found {
		t.Fatalf("without actions: found %+v", r)
	}
	o.Actions = []string{"crash", "redrive"}
	r := hunt(t, o)
	if !r.Found || r.Unforced || len(r.Forced) != 1 || r.Forced[0].Act == nil || r.Forced[0].Act.Name != "crash" {
		t.Fatalf("want one crash action: %+v", r)
	}
	f := r.Forced[0]
	if f.Kind != "action" || f.ActionCode != f.Act.String() || !strings.HasPrefix(f.Words, "operator: crash ") {
		t.Errorf("forced action: %+v", f)
	}
	if !strings.Contains(r.Code, ";do="+f.ActionCode) {
		t.Errorf("code %q does not carry %s", r.Code, f.ActionCode)
	}
	reproduces(t, o, r)
	a, _ := json.Marshal(r)
	b, _ := json.Marshal(hunt(t, o))
	if string(a) != string(b) {
		t.Errorf("the same hunt twice:\n%s\n%s", a, b)
	}
}

// Shrinking drops an action the failure does not need: a redrive of an
// empty dead letter queue before the crash.
func TestShrinkDropsAnAction(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	o.Faults, o.Depth, o.Actions = false, 2, []string{"crash", "redrive"}
	s, err := newSearcher(o)
	if err != nil {
		t.Fatal(err)
	}
	redrive, crash := engine.Action{Name: "redrive"}, engine.Action{Name: "crash", Arg: "A1"}
	items := []Forced{{Index: -1, Pos: 4, Kind: "action", Msg: -1, Act: &redrive}, {Index: -1, Pos: 6, Kind: "action", Msg: -1, Act: &crash}}
	out, ok := s.breaks(items)
	if !ok {
		t.Fatalf("redrive then crash=A1 does not break one-email: %+v", out)
	}
	got := s.shrink(out).forced
	if len(got) != 1 || got[0].Act == nil || *got[0].Act != crash || got[0].Pos != 6 {
		t.Errorf("shrunk to %+v, want crash=A1 at event 6 alone", got)
	}
}

// The searcher chooses each action's arguments from what the incident
// takes, and refuses a name its family does not declare.
func TestActionCandidates(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	w, err := engine.NewWorld(o.Spec, o.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	acts, err := actionCandidates(w, []string{"redrive", "crash", "workers", "redrive"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.String())
	}
	if want := "redrive redrive=unfinished crash=A1 crash=A2 crash=B1 crash=B2 workers=+1 workers=-1"; strings.Join(got, " ") != want {
		t.Errorf("candidates %q, want %q", strings.Join(got, " "), want)
	}
	_, err = actionCandidates(w, []string{"crash", "reboot"})
	if want := `--actions "reboot": incident thursday-fixed's actions are redrive, repair, purge, crash, wedge, workers`; err == nil || err.Error() != want {
		t.Errorf("unknown name: %v, want %s", err, want)
	}
	o.Actions = []string{"reboot"}
	if _, err := Hunt(o); err == nil || !strings.Contains(err.Error(), "reboot") {
		t.Errorf("Hunt with an unknown action: %v", err)
	}
}

// Two actions on one branch, the second taken mid-line (a depth-2 move):
// the branch plays as its share code replays, the code carrying both; a
// branch holding MaxActions actions is given no more.
func TestTwoActionsReplay(t *testing.T) {
	o := options(t, "thursday-fixed", "one-email")
	o.Faults, o.Depth, o.Actions = false, 3, []string{"crash"}
	s, err := newSearcher(o)
	if err != nil {
		t.Fatal(err)
	}
	a1, b1 := engine.Action{Name: "crash", Arg: "A1"}, engine.Action{Name: "crash", Arg: "B1"}
	n, ok := s.rebuild([]Forced{{Index: -1, Pos: 6, Kind: "action", Msg: -1, Act: &a1}, {Index: -1, Pos: 40, Kind: "action", Msg: -1, Act: &b1}})
	if !ok {
		t.Fatal("rebuild refused two crashes")
	}
	out := s.play(n, true)
	if !out.ok || len(out.forced) != 2 || out.forced[1].Pos != 40 || *out.forced[1].Act != b1 {
		t.Fatalf("played %+v", out.forced)
	}
	code := s.code(out.forced)
	if strings.Count(code, ";do=crash=") != 2 {
		t.Errorf("code %q does not carry both crashes", code)
	}
	_, sum := replay(t, o.Spec, code)
	if !reflect.DeepEqual(sum, out.sum) {
		t.Errorf("code %q replays to\n%+v\nthe hunt played\n%+v", code, sum, out.sum)
	}
	for _, k := range s.expand(node{from: n.from, root: n.from, force: n.force}, &out, false) {
		for _, c := range k.force {
			if c.act != nil {
				t.Fatalf("a branch with %d actions was given another: %+v", MaxActions, k.force)
			}
		}
	}
	one := s.play(node{from: n.from, root: n.from, force: n.force[:1]}, true)
	acts := 0
	for _, k := range s.expand(node{from: n.from, root: n.from, force: n.force[:1]}, &one, false) {
		if k.force[0].act != nil {
			acts++
			if k.force[0].pos <= 6 {
				t.Errorf("a second action at event %d, not after the first's (6)", k.force[0].pos)
			}
		}
	}
	if acts == 0 {
		t.Error("a branch with one action was given no second")
	}
	// a decision made from the action on forks from a checkpoint
	// that has the action taken
	kids := s.expand(node{from: n.from, root: n.from, force: n.force[:1]}, &one, false)
	if len(kids) == 0 || kids[0].force[0].act != nil || kids[0].from.pos < 6 {
		t.Fatalf("first child: %+v, want a decision from event 6 on", kids[:min(1, len(kids))])
	}
	for _, k := range kids[:3] {
		out := s.play(k, false)
		if !out.ok || len(out.forced) != 2 || out.forced[0].Act == nil || *out.forced[0].Act != a1 {
			t.Fatalf("child forcing %+v played %+v", k.force, out.forced)
		}
		code := s.code(out.forced)
		if _, sum := replay(t, o.Spec, code); !reflect.DeepEqual(sum, out.sum) {
			t.Errorf("code %q replays to\n%+v\nthe hunt played\n%+v", code, sum, out.sum)
		}
	}
}

// The hunt picks a crash or a wedge only of a worker in service, by the
// check a fork makes: at a checkpoint where christmas-friday's A1 lies
// dead of its KeyError (16:50:00 to 16:50:02) no branch takes crash=A1 or
// wedge=A1, and every other worker's are offered.
func TestActionsOnlyRunningWorkers(t *testing.T) {
	o := options(t, "christmas-friday", "no-order-lost")
	o.Faults, o.Actions = false, []string{"crash", "wedge"}
	s, err := newSearcher(o)
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.NewWorld(o.Spec, o.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	for w.Pos < 44 && w.Step(nil) { // past A1's crash, event 43
	}
	cp := &start{w: w, pos: w.Pos}
	var got []string
	for _, k := range s.actionKids(cp.w, cp.pos, cp, cp, nil) {
		got = append(got, k.force[0].act.String())
	}
	if want := "crash=A2 crash=B1 crash=B2 wedge=A2 wedge=B1 wedge=B2"; strings.Join(got, " ") != want {
		t.Errorf("at 16:50:00 #44 the hunt offers %q, want %q", strings.Join(got, " "), want)
	}
}

// The explorer's hunt form hands ActionNames whatever was typed: any
// string is names the hunt takes (at most 8, no separators left) or one
// line saying why not.
func FuzzActionNames(f *testing.F) {
	for _, s := range []string{"", "crash", "crash,redrive", " crash  redrive ", "reboot", "crash,,,", "step_clock", "\x1b[2J", "a,b,c,d,e,f,g,h,i"} {
		f.Add(s)
	}
	spec, err := incidents.Get("thursday-fixed")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := ActionNames(spec, spec.Seed, nil, s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || len(names) > 0 {
				t.Fatalf("%q: %q, %v", s, err, names)
			}
			return
		}
		if len(names) > 8 || strings.ContainsAny(strings.Join(names, ""), " ,") {
			t.Fatalf("%q: taken as %q", s, names)
		}
	})
}
