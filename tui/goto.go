package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/internal/termtext"
)

// gotoInput reads a message's number on the news line: `#` selects any
// message, on a pane or not (orders the panes no longer list, or list
// past their cap), so that its life story and inbox can be read.
type gotoInput struct {
	common
	keys  jumpKeyMap
	input textinput.Model
	done  outcome
}

// newGotoInput is the prompt, in the incident's word for a message.
func newGotoInput(c common, spec *engine.Spec) gotoInput {
	ti := formInput(c.st, "")
	ti.Prompt = "go to " + msgLabel(spec) + " number, enter selects, esc cancels: "
	ti.CharLimit = 12 // an int32 and a little
	ti.Focus()
	return gotoInput{common: c, input: ti, keys: jumpKeyMap{
		Go:     binding([]string{"enter"}, "enter", "select"),
		Cancel: binding([]string{"esc"}, "esc", "cancel"),
	}}
}

// msgLabel is the incident's word for one message: "order", "event".
func msgLabel(spec *engine.Spec) string {
	if spec.Label == "" {
		return "message"
	}
	return spec.Label
}

// Update edits the number; enter asks the root to select, esc to close.
func (g gotoInput) Update(msg tea.Msg) (gotoInput, tea.Cmd) {
	g.done = stay
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, g.keys.Cancel):
			g.done = closed
			return g, nil
		case key.Matches(k, g.keys.Go):
			g.done = submitted
			return g, nil
		}
	}
	var cmd tea.Cmd
	g.input, cmd = g.input.Update(msg)
	return g, cmd
}

// View is the prompt, one line as wide as the screen.
func (g gotoInput) View() string { return fitLine(g.input.View(), g.width) }

func (g *gotoInput) helpKeys() help.KeyMap { return g.keys }

func (g *gotoInput) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	if cmd, ok := escFirst(m, k, g.onKey); ok {
		return cmd
	}
	var cmd tea.Cmd
	*g, cmd = g.Update(k)
	switch g.done {
	case closed:
		m.state = stateMain
	case submitted:
		m.state = stateMain
		m.flash = m.main.gotoMsg(m, g.input.Value())
	}
	return cmd
}

// parseMsgNumber reads "14", "#14" or "order 14" (label is the incident's
// word); the error names what was typed.
func parseMsgNumber(typed, label string) (int32, error) {
	s := strings.TrimSpace(typed)
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(s, label), "#"))
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return -1, fmt.Errorf("# %q is not a number: type digits (# 14 selects %s 14)", termtext.Clean(typed, termtext.Name), label)
	}
	return int32(n), nil
}

// gotoMsg selects the message typed, whether or not a pane lists it, and
// says what it did: the message's place, or why there is none.
func (s *mainScreen) gotoMsg(m *Model, typed string) string {
	spec := m.x.Spec
	id, err := parseMsgNumber(typed, msgLabel(spec))
	if err != nil {
		return err.Error()
	}
	w := m.x.World()
	name := w.MsgName(id)
	published := w.Published()
	if int(id) >= published {
		at, ok := w.Truth().PublishTime(id)
		if !ok {
			total := 0
			for i := range spec.Sources {
				total += spec.Sources[i].CountUnder(&w.Knobs)
			}
			if total > 0 && total >= published {
				return fmt.Sprintf("no %s on this branch: it publishes %ss 0–%d", name, msgLabel(spec), total-1)
			}
			if published == 0 {
				return fmt.Sprintf("no %s: nothing has been published by the cursor, and no source publishes one numbered %d", name, id)
			}
			return fmt.Sprintf("no %s on this branch: %s 0–%d are published by the cursor, and no source publishes one numbered %d", name, msgLabel(spec)+"s", published-1, id)
		}
		s.setSel(m, id)
		return fmt.Sprintf("selected %s: it is published at %s, after the cursor (step on to read its story)", name, at.Short())
	}
	s.setSel(m, id)
	for _, on := range m.snap.selectable {
		if on == id {
			return fmt.Sprintf("selected %s: enter tells its life story", name)
		}
	}
	return fmt.Sprintf("selected %s (on no pane now): enter tells its life story", name)
}
