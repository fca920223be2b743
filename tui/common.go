package tui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
)

// common is the per-session bundle every screen embeds: the session's
// renderer, the styles built on it, the explorer's keys and the size the
// screen draws in. Each session builds its own, so two SSH users with
// different terminals never share a style or a disabled key.
type common struct {
	r      *lipgloss.Renderer
	st     *Styles // shared by the session's screens, never changed: a copy each was most of the model's size
	keys   KeyMap
	width  int
	height int

	openVia string // how a share code opens over SSH ("ssh -t -p PORT HOST"); "" locally
}

func newCommon(r *lipgloss.Renderer) common {
	st := DefaultStyles(r)
	return common{r: r, st: &st, keys: DefaultKeyMap()}
}

// SetSize is the size the screen draws in.
func (c *common) SetSize(w, h int) { c.width, c.height = w, h }

// outcome is what a modal screen asks of the root after a key: stay open,
// close, or act on what it holds (a fork to make, an incident to open).
// The root reads it right after the screen's Update, in the same message.
type outcome int

const (
	stay outcome = iota
	closed
	submitted
)

func (o outcome) String() string { return [...]string{"stay", "closed", "submitted"}[o] }

// binding is a key.Binding with its keys and its help.
func binding(keys []string, k, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
}
