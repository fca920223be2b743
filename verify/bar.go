package verify

import (
	"os"

	"github.com/charmbracelet/bubbles/progress"
	"github.com/muesli/termenv"
)

// barRenderer draws the progress bar with bubbles' progress model, static
// (ViewAs), colours chosen for stderr rather than stdout.
type barRenderer struct{ m progress.Model }

func newBar() barRenderer {
	return barRenderer{progress.New(progress.WithDefaultGradient(), progress.WithWidth(50),
		progress.WithColorProfile(termenv.NewOutput(os.Stderr).EnvColorProfile()))}
}

func (b barRenderer) render(f float64) string {
	return b.m.ViewAs(min(max(f, 0), 1))
}
