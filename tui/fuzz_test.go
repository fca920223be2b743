package tui

import (
	"math/rand/v2"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestRandomInput feeds 10,000 random keys, mouse events, resizes (down to
// 1×1) and autoplay ticks, drawing after each: nothing may panic.
func TestRandomInput(t *testing.T) {
	keys := []string{" ", "l", "h", "L", "H", "n", "N", "]", "[", "+", "-", "g", "G", "/", "f", "b",
		"tab", "c", "e", "enter", "y", "i", "F", "?", "esc", "up", "down", "left", "right", "j", "k",
		"1", "2", "3", "4", "5", "backspace", "shift+tab", "x", "0", ":", "s", "home", "end"}
	r := rand.New(rand.NewPCG(1, 2))
	m := newTest(t, Options{Stage: NewStage()}, 120, 40)
	for i := 0; i < 10_000; i++ {
		var msg tea.Msg
		switch n := r.IntN(100); {
		case n < 70:
			k := keys[r.IntN(len(keys))]
			if k == "q" {
				continue
			}
			msg = keyMsg(k)
		case n < 80:
			msg = tea.MouseMsg{X: r.IntN(130), Y: r.IntN(50), Button: tea.MouseButton(r.IntN(8)), Action: tea.MouseAction(r.IntN(3))}
		case n < 88:
			msg = tea.WindowSizeMsg{Width: 1 + r.IntN(220), Height: 1 + r.IntN(70)}
		case n < 98:
			msg = playTickMsg{gen: m.play.gen}
		default:
			msg = stageMsg{tag: m.fol.tag, code: m.x.Code().String(), gen: uint64(i)}
		}
		nm, _ := m.Update(msg)
		m = nm.(Model)
		if i%3 == 0 {
			_ = m.View()
		}
	}
}
