package stage

import "testing"

// What a process tells its followers of the link: when it went down, whether
// the presenter is here (the room split) and whether the state is the last
// heard before it went down (Stale), until a state, the presenter's
// silence or the presenter here says where the stage is.
func TestStageSaysWhatTheLinkLeft(t *testing.T) {
	clk := newClock()
	s := NewWithClock(clk.Now)
	s.Link(&fakeLink{})
	if err := s.Receive(State{Code: codeA}); err != nil {
		t.Fatal(err)
	}
	s.SetOnline(false)
	st, _ := s.State()
	if !st.Offline || st.LostAt != clk.Now().UnixMilli() || !st.Stale || st.Here {
		t.Fatalf("offline, the presenter elsewhere: %+v", st)
	}
	s.SetOnline(true)
	if st, _ = s.State(); st.Offline || st.LostAt != 0 || !st.Stale {
		t.Fatalf("back, nothing heard yet: %+v", st)
	}
	_, gen := s.State()
	if err := s.Receive(State{Code: codeA}); err != nil { // the same state, heard again
		t.Fatal(err)
	}
	if st, g := s.State(); st.Stale || g == gen {
		t.Fatalf("heard again: stale %v, generation %d → %d", st.Stale, gen, g)
	}

	s.SetOnline(false)
	s.Lost() // the presenter's process fell silent meanwhile
	if st, _ = s.State(); st.Stale || !st.Away {
		t.Fatalf("lost: %+v", st)
	}

	s.Arrive() // a presenter here: its followers follow live
	if st, _ = s.State(); !st.Here || st.Stale {
		t.Fatalf("a presenter here: %+v", st)
	}
	s.SetOnline(true)
	_, gen = s.State()
	s.SetOnline(false) // with the presenter here: split, not stale
	if st, g := s.State(); !st.Here || st.Stale || !st.Offline || g == gen {
		t.Fatalf("split: %+v, generation %d → %d", st, gen, g)
	}
	s.Publish(State{Code: codeB})
	if st, _ = s.State(); !st.Here || !st.Offline || st.LostAt == 0 {
		t.Fatalf("the presenter's publish dropped what is this process's to say: %+v", st)
	}
	s.Leave()
	if st, _ = s.State(); st.Here {
		t.Fatalf("the presenter left: %+v", st)
	}
}
