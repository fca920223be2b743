package tui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// viewAfter opens the explorer at w×h, sends keys through Update one by
// one, each job's end delivered as its message once it has ended and each
// chart waited for (no progress line in a golden), and returns the view.
func viewAfter(t *testing.T, w, h int, keys ...string) string {
	t.Helper()
	return viewAfterOn(t, Options{}, w, h, keys...)
}

// viewAfterOn is viewAfter on the incident o names.
func viewAfterOn(t *testing.T, o Options, w, h int, keys ...string) string {
	t.Helper()
	return press(newTest(t, o, w, h), keys...).View()
}

// goldenScreens are TestGolden's screens, each a golden per size, named
// by the keys that reach it; TestTeatestGolden runs some of them through
// the real program against the same files.
var goldenScreens = []struct {
	name string
	keys []string
}{
	{"start", nil},
	{"step", []string{"l"}},
	{"step2", []string{"l", "l"}},
	{"bookmark1", []string{"]"}},
	{"bookmark2", []string{"]", "]"}},
	{"bookmark3", []string{"]", "]", "]"}},
	{"bookmark4", []string{"]", "]", "]", "]"}},
	{"bookmark5", []string{"]", "]", "]", "]", "]"}},
	{"fork", []string{"]", "]", "]", "f"}},
	{"forked", []string{"]", "f", "6", "0", "s", "enter"}},
	{"branches", []string{"b"}},
	{"branchcompare", []string{"]", "f", "6", "0", "s", "enter", "b", "c"}},
	{"exercises", []string{"e"}},
	{"compare", []string{"e", "1", "c"}},
	{"story", []string{"]", "]", "]", "]", "]", "enter"}},
	{"help", []string{"?"}},
	{"huntactions", []string{"]", "]", "]", "x", "tab", "c", "r", "a", "s", "h", ",", "p", "u", "r", "g", "e"}},
}

// TestGolden pins the explorer's screens at 200×60, 120×40 and 80×24:
// update with go test ./tui -run TestGolden -update
func TestGolden(t *testing.T) {
	screens := goldenScreens
	for _, size := range [][2]int{{200, 60}, {120, 40}, {80, 24}} {
		for _, s := range screens {
			t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], s.name), func(t *testing.T) {
				golden.RequireEqual(t, []byte(viewAfter(t, size[0], size[1], s.keys...)))
			})
		}
	}
	for _, size := range [][2]int{{59, 24}, {80, 15}, {1, 1}} {
		t.Run(fmt.Sprintf("toosmall/%dx%d", size[0], size[1]), func(t *testing.T) {
			golden.RequireEqual(t, []byte(viewAfter(t, size[0], size[1])))
		})
	}
}
