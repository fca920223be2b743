package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/list"
	"github.com/charmbracelet/lipgloss"
)

// Styles are every style the explorer draws with. They are built from one
// session's renderer, so two SSH users with different terminals never
// share one. Colours are the 16 ANSI colours, so a 16-colour terminal shows
// them as meant; every mark that matters is also a glyph or a word, so
// NO_COLOR and ASCII terminals lose nothing but colour.
type Styles struct {
	Header    lipgloss.Style
	Title     lipgloss.Style
	Clock     lipgloss.Style
	Branch    lipgloss.Style
	Badge     lipgloss.Style
	PaneTitle lipgloss.Style
	Dim       lipgloss.Style
	Selected  lipgloss.Style
	Warn      lipgloss.Style
	Bad       lipgloss.Style
	Good      lipgloss.Style
	Decision  lipgloss.Style
	Words     lipgloss.Style
	Cursor    lipgloss.Style
	Status    lipgloss.Style
	Box       lipgloss.Style
	Key       lipgloss.Style
	Series    [4]lipgloss.Style // queue, in flight, DLQ, effects
	Help      help.Styles
	Item      list.DefaultItemStyles
	List      list.Styles
}

// DefaultStyles builds the explorer's styles on renderer r.
func DefaultStyles(r *lipgloss.Renderer) Styles {
	c := func(s string) lipgloss.Color { return lipgloss.Color(s) }
	s := Styles{
		Header:    r.NewStyle().Bold(true),
		Title:     r.NewStyle().Bold(true).Foreground(c("14")),
		Clock:     r.NewStyle().Bold(true).Foreground(c("11")),
		Branch:    r.NewStyle().Foreground(c("13")),
		Badge:     r.NewStyle().Bold(true).Reverse(true),
		PaneTitle: r.NewStyle().Bold(true).Underline(true),
		Dim:       r.NewStyle().Faint(true),
		Selected:  r.NewStyle().Reverse(true),
		Warn:      r.NewStyle().Foreground(c("11")),
		Bad:       r.NewStyle().Bold(true).Foreground(c("9")),
		Good:      r.NewStyle().Foreground(c("10")),
		Decision:  r.NewStyle().Foreground(c("12")),
		Words:     r.NewStyle().Italic(true).Foreground(c("14")),
		Cursor:    r.NewStyle().Bold(true).Foreground(c("11")),
		Status:    r.NewStyle(),
		Box:       r.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		Key:       r.NewStyle().Bold(true),
		Series: [4]lipgloss.Style{
			r.NewStyle().Foreground(c("12")),
			r.NewStyle().Foreground(c("11")),
			r.NewStyle().Foreground(c("9")),
			r.NewStyle().Foreground(c("10")),
		},
	}
	s.Help = help.Styles{
		Ellipsis:       r.NewStyle().Faint(true),
		ShortKey:       r.NewStyle().Bold(true),
		ShortDesc:      r.NewStyle().Faint(true),
		ShortSeparator: r.NewStyle().Faint(true),
		FullKey:        r.NewStyle().Bold(true),
		FullDesc:       r.NewStyle().Faint(true),
		FullSeparator:  r.NewStyle().Faint(true),
	}
	s.Item = list.DefaultItemStyles{
		NormalTitle:   r.NewStyle().Padding(0, 0, 0, 2),
		NormalDesc:    r.NewStyle().Faint(true).Padding(0, 0, 0, 2),
		SelectedTitle: r.NewStyle().Bold(true).Border(lipgloss.NormalBorder(), false, false, false, true).Padding(0, 0, 0, 1),
		SelectedDesc:  r.NewStyle().Border(lipgloss.NormalBorder(), false, false, false, true).Padding(0, 0, 0, 1),
		DimmedTitle:   r.NewStyle().Faint(true).Padding(0, 0, 0, 2),
		DimmedDesc:    r.NewStyle().Faint(true).Padding(0, 0, 0, 2),
		FilterMatch:   r.NewStyle().Underline(true),
	}
	ls := list.DefaultStyles()
	ls.TitleBar = r.NewStyle().Padding(0, 0, 1, 2)
	ls.Title = r.NewStyle().Bold(true).Reverse(true).Padding(0, 1)
	ls.Spinner = r.NewStyle()
	ls.FilterPrompt = r.NewStyle()
	ls.FilterCursor = r.NewStyle()
	ls.DefaultFilterCharacterMatch = r.NewStyle().Underline(true)
	ls.StatusBar = r.NewStyle().Faint(true).Padding(0, 0, 1, 2)
	ls.StatusEmpty = r.NewStyle().Faint(true)
	ls.StatusBarActiveFilter = r.NewStyle()
	ls.StatusBarFilterCount = r.NewStyle().Faint(true)
	ls.NoItems = r.NewStyle().Faint(true)
	ls.PaginationStyle = r.NewStyle().PaddingLeft(2)
	ls.HelpStyle = r.NewStyle().Padding(1, 0, 0, 2)
	ls.ActivePaginationDot = r.NewStyle().SetString("•")
	ls.InactivePaginationDot = r.NewStyle().Faint(true).SetString("•")
	ls.ArabicPagination = r.NewStyle().Faint(true)
	ls.DividerDot = r.NewStyle().Faint(true).SetString(" • ")
	s.List = ls
	return s
}
