package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
)

// teaBound only bounds a hang: every wait ends on the program's output,
// and a loaded 2-core machine may take seconds for a fork's chart.
const teaBound = time.Minute

// teaScreens are the TestGolden screens run through the real program:
// the golden's name (its keys are goldenScreens') and the texts whose
// arrival in the program's output says the screen is drawn and every job
// its keys started has ended (a screen that reads the engine opens at
// its job's end; a fork's chart axis ends where its pass ended). Each
// text is on the screen at 120×40 and at 80×24.
var teaScreens = []struct {
	name string
	wait []string
}{
	{"start", nil}, // the opening's wait is every screen's
	{"step", []string{"4 consumers start polling"}},
	{"step2", []string{"order 0 published"}},
	{"fork", []string{"Fork a branch here  at 19:52:34 on main"}},
	{"forked", []string{"⎇ main ▸ visibility_timeout=60s", "21:10:03"}},
	{"branches", []string{"Branches  enter switches"}},
	{"branchcompare", []string{"B visibility_timeout=60s @19:52:00 (forked from main)", "21:10:03.678"}},
	{"exercises", []string{"Check your understanding"}},
	{"compare", []string{"B exercise 1: late_ack=accept @19:52:34", "21:10:38.322"}},
	{"story", []string{"Life story of order 14  on main · 3 deliveries, 3 emails"}},
	{"help", []string{"What the panes' short words mean"}},
	{"huntactions", []string{"Hunt from 19:52:34", "crash,purge"}},
}

// TestTeatestGolden runs the explorer as a program under teatest, sends a
// screen's keys once the opening is drawn with its chart (as the Update
// harness starts from a charted opening), waits for the screen in the
// program's output, quits, and compares the final model's view with the
// golden TestGolden writes for that screen: both ways must agree.
func TestTeatestGolden(t *testing.T) {
	keys := map[string][]string{}
	for _, s := range goldenScreens {
		keys[s.name] = s.keys
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, s := range teaScreens {
			ks, ok := keys[s.name]
			if !ok {
				t.Fatalf("%s is no TestGolden screen", s.name)
			}
			t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], s.name), func(t *testing.T) {
				got := teaView(t, size[0], size[1], ks, s.wait)
				want := filepath.Join("testdata", "TestGolden", fmt.Sprintf("%dx%d", size[0], size[1]), s.name+".golden")
				requireGolden(t, want, got)
			})
		}
	}
}

// teaView runs the explorer at w×h under teatest and returns the final
// model's view once keys have been sent and every text in wait has been
// drawn.
func teaView(t *testing.T, w, h int, keys, wait []string) string {
	t.Helper()
	m, err := New(Options{Renderer: asciiRenderer()})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	// the opening, charted: main's whole run ends at 21:11:07
	waitOutput(t, tm, "Marlow Books, Thursday", "21:11:07")
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
	waitOutput(t, tm, wait...)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(teaBound)).View()
}

// waitOutput waits until the program has written every text since the
// last wait.
func waitOutput(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(out []byte) bool {
		for _, s := range texts {
			if !bytes.Contains(out, []byte(s)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(teaBound), teatest.WithCheckInterval(10*time.Millisecond))
}

// requireGolden compares got with the golden file at path, never writing
// it: TestGolden's -update is the one writer, so a disagreement between
// the two ways shows here instead of being overwritten.
func requireGolden(t *testing.T, path, got string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./tui -run TestGolden -update writes it)", err)
	}
	want := strings.ReplaceAll(string(b), "\r\n", "\n")
	if got == want {
		return
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var d strings.Builder
	for i := range max(len(wl), len(gl)) {
		var a, b string
		if i < len(wl) {
			a = wl[i]
		}
		if i < len(gl) {
			b = gl[i]
		}
		if a != b {
			fmt.Fprintf(&d, "line %d\n- %s\n+ %s\n", i+1, a, b)
		}
	}
	t.Fatalf("the program's view differs from %s:\n%s", path, d.String())
}
