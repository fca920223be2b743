package stage

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBeatCheck: a beat of a plan passes, on stage and through JSON as a
// link carries it; a forged one does not move the stage.
func TestBeatCheck(t *testing.T) {
	base := State{Code: "thursday@1#end.00000000", Branches: []string{"thursday@1#end.00000000"}, Speed: 10,
		Beat: &Beat{N: 3, Of: 9, Title: "The sent_at fix"}}
	if err := base.Check(); err != nil {
		t.Fatalf("a presenter's beat refused: %v", err)
	}
	if got := base.Beat.String(); got != "beat 3/9 · The sent_at fix" {
		t.Errorf("the room reads %q", got)
	}
	b, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil || back.Beat == nil || *back.Beat != *base.Beat {
		t.Fatalf("through JSON: %s → %+v %v", b, back.Beat, err)
	}
	if strings.Contains(string(b), "notes") {
		t.Errorf("a state carries notes: %s", b)
	}
	// another incident's state, with its beat, is a state like any
	other := base
	other.Code, other.Branches = "christmas-friday@1#end.00000000", []string{"christmas-friday@1#end.00000000"}
	if err := other.Check(); err != nil {
		t.Errorf("a beat of another incident: %v", err)
	}
	s := New()
	if err := s.Receive(base); err != nil {
		t.Fatal(err)
	}
	for name, beat := range map[string]*Beat{
		"beat 0":                {N: 0, Of: 9, Title: "x"},
		"past the plan":         {N: 10, Of: 9, Title: "x"},
		"a plan of no beats":    {N: 0, Of: 0, Title: "x"},
		"a huge plan":           {N: 1, Of: 1 << 30, Title: "x"},
		"no title":              {N: 1, Of: 2},
		"a title with controls": {N: 1, Of: 2, Title: "\x1b[2Jgone"},
		"a title on two lines":  {N: 1, Of: 2, Title: "a\nb"},
		"a title too long":      {N: 1, Of: 2, Title: strings.Repeat("x", 201)},
	} {
		st := base
		st.Beat = beat
		if err := st.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
		before, gen := s.State()
		if err := s.Receive(st); err == nil {
			t.Errorf("%s: received", name)
		}
		if after, g := s.State(); g != gen || *after.Beat != *before.Beat {
			t.Errorf("%s: the refused state moved the stage", name)
		}
	}
}
