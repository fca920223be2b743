package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/incidents"
)

// pickerKeyMap is the incident picker's keys; the list moves with its own.
type pickerKeyMap struct {
	Open  key.Binding
	Close key.Binding
}

func defaultPickerKeyMap() pickerKeyMap {
	return pickerKeyMap{
		Open:  binding([]string{"enter"}, "enter", "open"),
		Close: binding([]string{"esc", "q", "i"}, "esc", "close"),
	}
}

// ShortHelp is the picker's keys in one line.
func (k pickerKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Open, k.Close} }

// FullHelp is the picker's keys in columns.
func (k pickerKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// picker chooses another bundled incident. The root opens the one chosen
// when done is submitted.
type picker struct {
	common
	keys pickerKeyMap
	list list.Model
	done outcome
}

type incidentItem struct{ spec *engine.Spec }

func (i incidentItem) Title() string       { return i.spec.ID + " — " + i.spec.Title }
func (i incidentItem) Description() string { return oneLine(i.spec.Story) }
func (i incidentItem) FilterValue() string { return i.spec.ID + " " + i.spec.Title }

// oneLine is a story's first sentence.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

func newPicker(c common) picker {
	d := list.NewDefaultDelegate()
	d.Styles = c.st.Item
	l := list.New(nil, d, 80, 20)
	l.Title = "Incidents · enter opens · esc closes"
	l.Styles = c.st.List
	l.SetShowHelp(false)
	l.SetFilteringEnabled(false)
	l.SetShowStatusBar(false)
	return picker{common: c, keys: defaultPickerKeyMap(), list: l}
}

// SetSize is the body's size, between the header and the status line.
func (p *picker) SetSize(w, h int) {
	p.common.SetSize(w, h)
	p.list.SetSize(max(w, 1), max(h, 1))
}

// show lists the bundled incidents with current selected.
func (p *picker) show(current string) {
	var items []list.Item
	sel := 0
	for i, s := range incidents.All() {
		items = append(items, incidentItem{s})
		if s.ID == current {
			sel = i
		}
	}
	p.list.SetItems(items)
	p.list.Select(sel)
}

// Update moves in the list; enter asks the root to open the selected
// incident, esc to close.
func (p picker) Update(msg tea.Msg) (picker, tea.Cmd) {
	p.done = stay
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, p.keys.Close):
			p.done = closed
			return p, nil
		case key.Matches(k, p.keys.Open):
			p.done = submitted
			return p, nil
		}
	}
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	return p, cmd
}

// View is the list.
func (p picker) View() string { return p.list.View() }

// selected is the incident under the list's cursor.
func (p picker) selected() (*engine.Spec, bool) {
	it, ok := p.list.SelectedItem().(incidentItem)
	return it.spec, ok
}

// onKey gives the picker the key and opens the incident it asks for.
func (p *picker) onKey(m *Model, k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	*p, cmd = p.Update(k)
	switch p.done {
	case closed:
		m.state = stateMain
	case submitted:
		m.state = stateMain
		spec, ok := p.selected()
		if !ok || spec.ID == m.x.Spec.ID {
			return nil
		}
		if k, ok := m.kept[spec.ID]; ok {
			m.kept.swap(m, k.x)
			m.sel, m.at = k.sel, max(k.at, m.x.World().Now)
			m.refresh(true)
			m.flash = fmt.Sprintf("back to %s as you left it: %s (b lists them)", spec.ID, plural(len(m.x.Branches()), "branch", "branches"))
			return nil
		}
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			m.flash = err.Error()
			return nil
		}
		m.kept.swap(m, x)
		m.flash = "opened " + spec.ID + ": ] jumps to the first beat of the story"
		if n := m.kept.branches(); n > 0 {
			m.flash += fmt.Sprintf(" · %s of other incidents kept (i goes back)", plural(n, "fork", "forks"))
		}
		return nil
	}
	return cmd
}
