package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/internal/savedtree"
	"inflight/internal/termtext"
	"inflight/stage"
)

// Work is what an attendee's explorer leaves when its session ends, for
// the next session of the same key (serve keeps it a grace period, in
// memory and in the hall's Redis): the branch tree of the incident on
// screen, as share codes with the forks' names, the cursor's moment on
// its branch, and the open screen. Not kept: the other incidents the
// session opened (i), play (a reconnect opens paused), the branch
// list's marks, and a half-typed form or prompt (fork, jump, goto,
// picker), which reopen closed.
type Work struct {
	Tree    savedtree.Tree
	Screen  stage.Screen // Kind "" the main view; only the kinds resumable lists
	Dropped int          // branches left out to fit the size cap
}

// workHeader is a kept work's first line; the number is the format's.
const workHeader = "inflight work 1"

// MaxWorkBytes bounds a kept work: a saved tree's cap and its few lines.
const MaxWorkBytes = savedtree.MaxBytes + 2<<10

// maxScreenLine bounds the screen's line: its kind and small numbers.
const maxScreenLine = 512

// resumable are the screens a reconnect opens again: the ones that are a
// choice of rows and messages, not typed text.
var resumable = []string{"", "help", "branches", "story", "compare", "exercises", "code"}

// WorkOf is the work the session's explorer m (NewSession's) holds, in at
// most maxBytes once formatted: a tree too big keeps its first branches,
// Dropped saying how many were left out. false for a presenter (the
// stage is theirs to resume), another model, or an explorer that holds
// nothing beyond the start (main only, at its first moment, no screen).
// Call it once the session's program has ended, before Release.
func WorkOf(tm tea.Model, maxBytes int) (Work, bool) {
	s, ok := tm.(*session)
	if !ok || s.m.x == nil || s.m.presenter {
		return Work{}, false
	}
	m := &s.m
	scr := m.stageScreen()
	if !slices.Contains(resumable, scr.Kind) {
		scr = stage.Screen{}
	}
	scr.Text, scr.Fork = "", nil
	at := m.momentCode(false)
	if len(m.x.Branches()) == 1 && m.x.Pos() == 0 && !at.HasAt && !at.HasSel && scr.Kind == "" {
		return Work{}, false
	}
	limit := savedtree.MaxBranches
	for {
		t, dropped := treeOfMax(m.x, at, limit)
		w := Work{Tree: t, Screen: scr, Dropped: dropped}
		if n := len(t.Branches) + 1; scr.A >= n || scr.B >= n {
			w.Screen = stage.Screen{} // a comparison of branches left out
		}
		data := w.Format()
		if len(data) <= maxBytes {
			return w, true
		}
		if limit == 0 {
			return Work{}, false // the cursor's code alone does not fit
		}
		// the share of the branches that fits, less one for the lines'
		// unevenness; at least one fewer each time round
		limit = min(limit-1, len(t.Branches)*maxBytes/len(data)-1, len(t.Branches)-1)
		limit = max(limit, 0)
	}
}

// Format is the work as serve keeps it: the header, the screen as JSON,
// the branches dropped, then the tree as a saved tree's file holds it.
func (w Work) Format() []byte {
	scr, _ := json.Marshal(w.Screen) // plain data: never fails
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nscreen %s\ndropped %d\n", workHeader, scr, w.Dropped)
	b.Write(w.Tree.Format())
	return b.Bytes()
}

// ParseWork reads a kept work, strictly, as it reads a share code or a
// saved tree: bounded, the header, a screen of the resumable kinds whose
// numbers fit the tree, then a tree savedtree.Parse takes whose codes
// are of a bundled incident. A work another process wrote (the hall's
// Redis, which anyone reaching it may write) is held to this before any
// of it is used.
func ParseWork(data []byte) (Work, error) {
	var w Work
	if len(data) > MaxWorkBytes {
		return w, fmt.Errorf("%d bytes; a kept work has at most %d", len(data), MaxWorkBytes)
	}
	head, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(head) != workHeader {
		return w, fmt.Errorf("line 1: want %q", workHeader)
	}
	line, rest, ok := bytes.Cut(rest, []byte("\n"))
	js, isScreen := bytes.CutPrefix(line, []byte("screen "))
	if !ok || !isScreen || len(line) > maxScreenLine {
		return w, fmt.Errorf("line 2: want \"screen {…}\", at most %d bytes", maxScreenLine)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w.Screen); err != nil || dec.More() {
		return Work{}, fmt.Errorf("line 2: the screen is not one this version writes: %v", err)
	}
	if s := w.Screen; !slices.Contains(resumable, s.Kind) || s.Text != "" || s.Fork != nil {
		return Work{}, fmt.Errorf("line 2: screen %q is not one a reconnect opens", termtext.Clean(s.Kind, termtext.Quote))
	}
	line, rest, ok = bytes.Cut(rest, []byte("\n"))
	num, isDropped := strings.CutPrefix(string(line), "dropped ")
	n, err := strconv.Atoi(num)
	if !ok || !isDropped || err != nil || n < 0 || n > 1<<20 || strconv.Itoa(n) != num {
		return Work{}, errors.New("line 3: want \"dropped N\"")
	}
	w.Dropped = n
	if w.Tree, err = savedtree.Parse(rest); err != nil {
		return Work{}, fmt.Errorf("the tree: %w", err)
	}
	// the stage's own check: a bundled incident, the screen's numbers
	// within the tree's branches
	st := stage.State{Code: w.Tree.At.String(), Speed: stage.Speeds[0], Screen: w.Screen,
		Branches: []string{engine.Code{Incident: w.Tree.At.Incident, Seed: w.Tree.At.Seed, Set: w.Tree.At.Set}.String()}}
	for _, b := range w.Tree.Branches {
		st.Branches = append(st.Branches, b.Code.String())
	}
	if err := st.Check(); err != nil {
		return Work{}, err
	}
	return w, nil
}

// Branches is how many branches w holds besides main.
func (w Work) Branches() int { return len(w.Tree.Branches) }

// resumeExplorer rebuilds w's tree on a new explorer of its incident,
// within the session's budget, under the explorer's Run (a budget
// overrun is an error, not a panic). Like a presenter resuming the
// stage, it runs before the session's program starts: nothing is drawn
// yet that it could hold up.
func resumeExplorer(w Work, sh *Shared) (*engine.Explorer, error) {
	c := w.Tree.At
	spec, err := bundledSpec(c.Incident)
	if err != nil {
		return nil, err
	}
	x, err := engine.NewExplorer(spec, c.Seed, c.Set)
	if err != nil {
		return nil, err
	}
	x.Limit(sh.Budget, sh.Pool)
	var werr error
	if err = x.Run(nil, func() { werr = restoreTree(x, w.Tree) }); err == nil {
		err = werr
	}
	if err != nil {
		if sh.Pool != nil {
			sh.Pool.Release(x.Bytes())
		}
		return nil, err
	}
	return x, nil
}

// resumeShown puts on screen what w says was shown beyond the tree (the
// clock, the selection, the open screen) and says what came back.
func resumeShown(m *Model, w Work, follow bool) {
	showMoment(m, &w.Tree.At)
	m.refresh(true)
	m.snap.readPanes(m.x, m.at, m.sel, false)
	if !follow && w.Screen.Kind != "" {
		m.openScreen(w.Screen)
	}
	m.flash = welcomeBack(m, w)
}

// welcomeBack is the line a reconnect is told: what was restored.
func welcomeBack(m *Model, w Work) string {
	n := w.Branches()
	what := "your moment is restored"
	switch {
	case w.Dropped > 0:
		what = fmt.Sprintf("the first %d of your %d branches are restored (the rest did not fit what a reconnect keeps)", n, n+w.Dropped)
	case n == 1:
		what = "your branch is restored"
	case n > 1:
		what = fmt.Sprintf("your %d branches are restored", n)
	}
	s := fmt.Sprintf("welcome back: %s · the cursor on %s at %s", what,
		termtext.Clean(m.x.Branch().Name, termtext.Name), m.at.Clock()[:8])
	if name := resumedScreen(w.Screen); name != "" {
		s += " · " + name + " open"
	}
	return s
}

// resumedScreen names a screen a reconnect opens, for welcomeBack.
func resumedScreen(s stage.Screen) string {
	switch s.Kind {
	case "help":
		return "the help"
	case "branches":
		return "the branch list"
	case "story":
		return fmt.Sprintf("message %d's story", s.Msg)
	case "compare":
		return "the comparison"
	case "exercises":
		return "the exercises"
	case "code":
		return "the share code"
	}
	return ""
}

// resumeFailed is the line a reconnect is told when its work could not be
// rebuilt: it starts fresh.
func resumeFailed(err error) string {
	return fmt.Sprintf("welcome back: your branches could not be restored (%s); starting fresh", termtext.Clean(errLine(err), termtext.Line))
}
