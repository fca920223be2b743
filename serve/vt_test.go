package serve

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// vt is just enough of a terminal to replay what Bubble Tea writes (text,
// CR/LF, cursor moves, erases; colours and modes ignored) into the grid a
// user would see, for goldens of a session's screen.
type vt struct {
	w, h  int
	cells [][]rune
	x, y  int
}

func newVT(w, h int) *vt {
	v := &vt{w: w, h: h}
	v.cells = make([][]rune, h)
	for i := range v.cells {
		v.cells[i] = blank(w)
	}
	return v
}

func blank(w int) []rune {
	r := make([]rune, w)
	for i := range r {
		r[i] = ' '
	}
	return r
}

// write replays out.
func (v *vt) write(out string) {
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\x1b' && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
				j++
			}
			if j < len(rs) {
				v.csi(string(rs[i+2:j]), rs[j])
			}
			i = j
		case r == '\x1b' && i+1 < len(rs) && (rs[i+1] == ']' || rs[i+1] == 'P' || rs[i+1] == '_'):
			j := i + 2
			for j < len(rs) && rs[j] != '\a' && !(rs[j] == '\x1b' && j+1 < len(rs) && rs[j+1] == '\\') {
				j++
			}
			if j < len(rs) && rs[j] == '\x1b' {
				j++
			}
			i = j
		case r == '\x1b':
			i++ // a two-byte escape
		case r == '\r':
			v.x = 0
		case r == '\n':
			v.down(1)
		case r < ' ' || r == 0x7f:
		default:
			wd := ansi.StringWidth(string(r))
			if wd == 0 || v.x+wd > v.w {
				continue
			}
			v.cells[v.y][v.x] = r
			for k := 1; k < wd; k++ {
				v.cells[v.y][v.x+k] = 0
			}
			v.x += wd
		}
	}
}

func (v *vt) down(n int) {
	for range n {
		if v.y == v.h-1 {
			v.cells = append(v.cells[1:], blank(v.w))
		} else {
			v.y++
		}
	}
}

func (v *vt) csi(params string, final rune) {
	if strings.HasPrefix(params, "?") || strings.HasPrefix(params, ">") {
		return // modes and queries
	}
	var ns []int
	for _, p := range strings.Split(params, ";") {
		n, _ := strconv.Atoi(p)
		ns = append(ns, n)
	}
	arg := func(i, def int) int {
		if i < len(ns) && ns[i] > 0 {
			return ns[i]
		}
		return def
	}
	switch final {
	case 'H', 'f':
		v.y, v.x = min(arg(0, 1)-1, v.h-1), min(arg(1, 1)-1, v.w-1)
	case 'A':
		v.y = max(0, v.y-arg(0, 1))
	case 'B':
		v.y = min(v.h-1, v.y+arg(0, 1))
	case 'C':
		v.x = min(v.w-1, v.x+arg(0, 1))
	case 'D':
		v.x = max(0, v.x-arg(0, 1))
	case 'K':
		from, to := v.x, v.w
		switch arg(0, 0) {
		case 1:
			from, to = 0, v.x+1
		case 2:
			from = 0
		}
		for k := from; k < min(to, v.w); k++ {
			v.cells[v.y][k] = ' '
		}
	case 'J':
		if arg(0, 0) == 2 {
			for y := range v.cells {
				v.cells[y] = blank(v.w)
			}
			return
		}
		for k := v.x; k < v.w; k++ {
			v.cells[v.y][k] = ' '
		}
		for y := v.y + 1; y < v.h; y++ {
			v.cells[y] = blank(v.w)
		}
	}
}

// String is the grid, one line per row, trailing spaces kept.
func (v *vt) String() string {
	var b strings.Builder
	for y, row := range v.cells {
		for _, r := range row {
			if r != 0 {
				b.WriteRune(r)
			}
		}
		if y < v.h-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
