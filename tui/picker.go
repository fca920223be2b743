package tui

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
	"inflight/incidents"
)

// bundled is the bundled incidents, parsed once per process on first use.
// Specs are never changed once parsed, so every session shares them (and
// the whole-run charts keyed by them).
var bundled = sync.OnceValue(incidents.All)

// bundledSpec is the bundled incident id.
func bundledSpec(id string) (*engine.Spec, error) {
	for _, s := range bundled() {
		if s.ID == id {
			return s, nil
		}
	}
	var ids []string
	for _, s := range bundled() {
		ids = append(ids, s.ID)
	}
	return nil, fmt.Errorf("unknown incident %q (incidents: %s)", id, strings.Join(ids, ", "))
}

// picker chooses another bundled incident.
type picker struct{ list list.Model }

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

func newPicker(st Styles) picker {
	d := list.NewDefaultDelegate()
	d.Styles = st.Item
	l := list.New(nil, d, 80, 20)
	l.Title = "Incidents · enter opens · esc closes"
	l.Styles = st.List
	l.SetShowHelp(false)
	l.SetFilteringEnabled(false)
	l.SetShowStatusBar(false)
	return picker{list: l}
}

func (p *picker) setSize(w, h int) { p.list.SetSize(max(w, 1), max(h-4, 1)) }

func (m *Model) openPicker() {
	var items []list.Item
	sel := 0
	for i, s := range bundled() {
		items = append(items, incidentItem{s})
		if s.ID == m.x.Spec.ID {
			sel = i
		}
	}
	m.picker.list.SetItems(items)
	m.picker.list.Select(sel)
	m.state = statePicker
}

func (m *Model) updatePicker(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "q", "i":
		m.state = stateMain
		return nil
	case "enter":
		m.state = stateMain
		it, ok := m.picker.list.SelectedItem().(incidentItem)
		if !ok {
			return nil
		}
		x, err := engine.NewExplorer(it.spec, it.spec.Seed, nil)
		if err != nil {
			m.flash = err.Error()
			return nil
		}
		m.setExplorer(x)
		m.flash = "opened " + it.spec.ID + ": ] jumps to the first beat of the story"
		return nil
	}
	var cmd tea.Cmd
	m.picker.list, cmd = m.picker.list.Update(k)
	return cmd
}
