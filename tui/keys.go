package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is every key the explorer answers. Each session gets its own from
// DefaultKeyMap, so disabling a binding (step back at the first event)
// never touches another session's help.
type KeyMap struct {
	Play      key.Binding
	Step      key.Binding
	Back      key.Binding
	Tick      key.Binding
	TickBack  key.Binding
	NextDec   key.Binding
	PrevDec   key.Binding
	NextMark  key.Binding
	PrevMark  key.Binding
	Faster    key.Binding
	Slower    key.Binding
	Start     key.Binding
	End       key.Binding
	Jump      key.Binding
	Fork      key.Binding
	Branches  key.Binding
	NextBr    key.Binding
	Compare   key.Binding
	Hunt      key.Binding
	Exercises key.Binding
	Up        key.Binding
	Down      key.Binding
	Story     key.Binding
	Goto      key.Binding
	Code      key.Binding
	Incidents key.Binding
	Follow    key.Binding
	// Question shows again the room's question a follower hid (esc);
	// enabled only while there is one.
	Question key.Binding
	Help     key.Binding
	Close    key.Binding
	Quit     key.Binding
	// ForceQuit quits from every screen, a text input's too; it is in no
	// help, since Quit names it.
	ForceQuit key.Binding
}

// DefaultKeyMap returns the explorer's keys.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return KeyMap{
		Play:      b([]string{" "}, "space", "play/pause"),
		Step:      b([]string{"l", "right"}, "l/→", "step"),
		Back:      b([]string{"h", "left"}, "h/←", "step back"),
		Tick:      b([]string{"L", "shift+right"}, "L", "+1 s"),
		TickBack:  b([]string{"H", "shift+left"}, "H", "−1 s"),
		NextDec:   b([]string{"n"}, "n", "next decision"),
		PrevDec:   b([]string{"N"}, "N", "prev decision"),
		NextMark:  b([]string{"]"}, "]", "next bookmark"),
		PrevMark:  b([]string{"["}, "[", "prev bookmark"),
		Faster:    b([]string{"+", "="}, "+", "faster"),
		Slower:    b([]string{"-", "_"}, "-", "slower"),
		Start:     b([]string{"g", "home"}, "g", "start"),
		End:       b([]string{"G", "end"}, "G", "end"),
		Jump:      b([]string{"/"}, "/", "jump to clock"),
		Fork:      b([]string{"f"}, "f", "fork here"),
		Branches:  b([]string{"b"}, "b", "branches"),
		NextBr:    b([]string{"tab"}, "tab", "next branch"),
		Compare:   b([]string{"c"}, "c", "compare"),
		Hunt:      b([]string{"x"}, "x", "hunt a break"),
		Exercises: b([]string{"e"}, "e", "exercises"),
		Up:        b([]string{"k", "up"}, "↑/k", "select prev msg"),
		Down:      b([]string{"j", "down"}, "↓/j", "select next msg"),
		Story:     b([]string{"enter"}, "enter", "life story"),
		Goto:      b([]string{"#"}, "#", "select msg N"),
		Code:      b([]string{"y"}, "y", "share code"),
		Incidents: b([]string{"i"}, "i", "incidents"),
		Follow:    b([]string{"F"}, "F", "follow stage"),
		Question:  key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "the question"), key.WithDisabled()),
		Help:      b([]string{"?"}, "?", "keys, legend"),
		Close:     b([]string{"esc"}, "esc", "close"),
		Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit"),
	}
}

// ShortHelp is the help bar: the keys a newcomer needs first.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Question, k.Play, k.Step, k.Back, k.NextMark, k.NextDec, k.Fork, k.Exercises, k.Help, k.Quit}
}

// FullHelp is every key, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Play, k.Faster, k.Slower, k.Step, k.Back, k.Tick, k.TickBack},
		{k.NextDec, k.PrevDec, k.NextMark, k.PrevMark, k.Start, k.End, k.Jump},
		{k.Fork, k.Branches, k.NextBr, k.Compare, k.Hunt, k.Exercises, k.Follow, k.Question},
		{k.Up, k.Down, k.Goto, k.Story, k.Code, k.Incidents, k.Help, k.Quit},
	}
}

// movesCursor reports whether msg moves the cursor or forks: the keys that
// detach a follower from the stage and make old news stale. Listing the
// branches is not one: a follower's b lists its own, and choosing one
// detaches onto it.
func (k KeyMap) movesCursor(msg tea.KeyMsg) bool {
	for _, b := range []key.Binding{k.Play, k.Step, k.Back, k.Tick, k.TickBack, k.NextDec, k.PrevDec,
		k.NextMark, k.PrevMark, k.Start, k.End, k.Jump, k.Fork, k.NextBr, k.Exercises, k.Incidents, k.Hunt} {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}
