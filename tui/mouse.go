package tui

import tea "github.com/charmbracelet/bubbletea"

// mouse scrolls the pane under the wheel, selects the message clicked in
// a pane, and seeks to the moment clicked on the chart. A follower's
// screen is the stage's: a click (on a message, on the chart) detaches
// into its copy first and acts there; the wheel and motion do nothing.
func (s *mainScreen) mouse(m *Model, msg tea.MouseMsg) tea.Cmd {
	if m.follower.on {
		if msg.Button != tea.MouseButtonLeft || msg.Action != tea.MouseActionPress {
			return nil
		}
		m.follower.leave(m)
	}
	if m.state != stateMain || m.width < minWidth || m.height < minHeight {
		return nil
	}
	mv := m.mainView()
	l := mv.layout()
	ev := tea.MouseEvent(msg)
	for i, r := range l.panes {
		if !r.has(ev.X, ev.Y) {
			continue
		}
		p := pane(i)
		switch {
		case ev.Button == tea.MouseButtonWheelUp:
			s.scroll[p] = max(0, s.scroll[p]-3)
		case ev.Button == tea.MouseButtonWheelDown:
			s.scroll[p] += 3
			v := mv.paneView()
			title, _, _, total := v.pane(p, r.w, 0)
			_, _, s.scroll[p] = v.paneHead(title, total, r.w, r.h, s.scroll[p])
		case ev.Button == tea.MouseButtonLeft && ev.Action == tea.MouseActionPress:
			v := mv.paneView()
			title, _, ids, total := v.pane(p, r.w, s.scroll[p]+r.h)
			head, _, off := v.paneHead(title, total, r.w, r.h, s.scroll[p])
			row := ev.Y - r.y - len(head) + off
			if row >= 0 && row < len(ids) && ids[row] >= 0 {
				s.setSel(m, ids[row])
			}
		}
		return nil
	}
	c := l.chart
	if ev.Button == tea.MouseButtonLeft && ev.Action == tea.MouseActionPress && ev.X >= c.x && ev.X < c.x+c.w && ev.Y >= c.y && ev.Y <= c.y+c.h && mv.chartReady() {
		t0, t1 := mv.chartSpan()
		m.play.pause()
		if news := m.follower.detach(); news != "" {
			m.flash = news
		}
		return seekMove(chartTime(t0, t1, ev.X-c.x, c.w), "").run(m)
	}
	return nil
}

// detach stops following the stage: this session's copy is its own now;
// news says so.
func (f *follower) detach() (news string) {
	if !f.on {
		return ""
	}
	f.on = false
	f.tag++
	return "stopped following the stage: this is your own copy now (F follows again)"
}
