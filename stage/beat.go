package stage

import (
	"errors"
	"fmt"

	"inflight/internal/termtext"
)

// Beat is the plan's beat on stage (serve --plan) as the room reads it:
// its place in the plan and its title. The presenter's notes are never in
// it: nothing of them is published, here or through a link.
type Beat struct {
	N     int    `json:"n"`  // 1 is the first
	Of    int    `json:"of"` // the plan's beats
	Title string `json:"title"`
}

// maxBeats bounds a beat's numbers from another process: far above any
// plan (package plan allows 100).
const maxBeats = 1 << 10

// String is the beat as followers see it: "beat 3/9 · The sent_at fix".
func (b Beat) String() string { return fmt.Sprintf("beat %d/%d · %s", b.N, b.Of, b.Title) }

// check says why b is not a beat a presenter of this build sends.
func (b *Beat) check() error {
	switch {
	case b == nil:
		return nil
	case b.Of < 1 || b.Of > maxBeats || b.N < 1 || b.N > b.Of:
		return fmt.Errorf("beat %d of %d out of range", b.N, b.Of)
	case b.Title == "" || !fits(b.Title, termtext.Line):
		return errors.New("the beat's title is not one line of plain text within its length")
	}
	return nil
}
