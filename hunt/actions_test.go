package hunt

import (
	"encoding/json"
	"strings"
	"testing"

	"inflight/engine"
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
