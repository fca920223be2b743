package engine

import "strings"

// actName is a fork's name from what it takes as written (not in words
// on a state): "redrive; visibility_timeout=60s @21:15:00". An
// exercise's branch is found again by it, whatever the state says.
func actName(acts []Action, set []Setting, o *DecisionOverride, m ForkMoment) string {
	words := make([]string, len(acts))
	for i, a := range acts {
		words[i] = a.String()
	}
	return (*Forcing)(nil).labelActs(set, o, nil, words, m)
}

// ThenBranch is the name of the fork an exercise with DoAt takes its
// actions in: "exercise 6: then crash=B2 @19:52:00 #182".
func (e *Exercise) ThenBranch() string {
	if e.DoAt == nil {
		return ""
	}
	if len(e.Set) == 0 && e.Override == nil {
		// no earlier fork to follow: "exercise 2: redrive @17:50:00 #1242"
		return "exercise " + e.Key + ": " + actName(e.Do, nil, nil, *e.DoAt)
	}
	return "exercise " + e.Key + ": then " + actName(e.Do, nil, nil, *e.DoAt)
}

// Open forks the lesson's run (the first branch) as the exercise asks,
// or switches to the fork an earlier Open made: at At with its changes
// (and its actions, without DoAt); with DoAt, a fork of that fork at the
// later moment taking the actions (with no changes, one fork of the
// lesson's run there). The cursor is left at the last fork's
// point. An exercise that changes nothing leaves the cursor on the
// lesson's run where it was.
func (e *Exercise) Open(x *Explorer) error {
	root := x.Branches()[0]
	if x.Branch() != root {
		x.Switch(root)
	}
	if !e.Changes() {
		return nil
	}
	if e.DoAt != nil && len(e.Set) == 0 && e.Override == nil {
		// actions alone, at a moment partway through a clock ("just after
		// the fortieth lands"): one fork of the lesson's run
		if b := childNamed(x, root, e.ThenBranch()); b != nil {
			x.Switch(b)
			return nil
		}
		x.Goto(x.PosOfMoment(root, *e.DoAt))
		_, err := x.Fork(ForkOptions{Name: e.ThenBranch(), Pos: x.Pos(), At: e.DoAt.At, Actions: e.Do})
		return err
	}
	acts := e.Do
	if e.DoAt != nil {
		acts = nil
	}
	if b := childNamed(x, root, e.Branch()); b != nil && b.ForkAt == e.At {
		x.Switch(b)
	} else {
		x.SeekTime(e.At)
		if _, err := x.Fork(ForkOptions{Name: e.Branch(), Pos: x.Pos(), At: e.At, Set: e.Set, Override: e.Override, Actions: acts}); err != nil {
			return err
		}
	}
	if e.DoAt == nil {
		return nil
	}
	first := x.Branch()
	if b := childNamed(x, first, e.ThenBranch()); b != nil {
		x.Switch(b)
		return nil
	}
	x.Goto(x.PosOfMoment(first, *e.DoAt))
	_, err := x.Fork(ForkOptions{Name: e.ThenBranch(), Pos: x.Pos(), At: e.DoAt.At, Actions: e.Do})
	return err
}

// childNamed is parent's child fork of that name, nil none.
func childNamed(x *Explorer, parent *Branch, name string) *Branch {
	var found *Branch
	for _, b := range x.Branches() {
		if b.Parent == parent && b.Name == name {
			found = b
		}
	}
	return found
}

// ExerciseWhat is what an exercise does, for its row in a list: its
// fork's name without the "exercise K: " prefix, and the later fork's.
func (e *Exercise) ExerciseWhat() string {
	if e.DoAt != nil && len(e.Set) == 0 && e.Override == nil {
		return strings.TrimPrefix(e.ThenBranch(), "exercise "+e.Key+": ")
	}
	what := strings.TrimPrefix(e.Branch(), "exercise "+e.Key+": ")
	if e.DoAt != nil {
		what += ", " + strings.TrimPrefix(e.ThenBranch(), "exercise "+e.Key+": ")
	}
	return what
}
