// Package plan reads a workshop's plan: the beats of a session across the
// bundled incidents, in the order the presenter takes the room through
// them (inflight serve --plan FILE), each at a moment or a bookmark of its
// incident, with a title the room sees, an optional question to put to
// it and notes for the presenter alone. A plan file is YAML read as
// strictly as an incident file: every problem is reported with its file,
// line and column, and a plan that loads is one serve can show.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/termtext"
)

// Bounds on a plan: a two-hour session has a few dozen beats; a beat's
// title is read on one line of an 80-column follower.
const (
	MaxBeats      = 100
	MaxTitleRunes = 80
	MaxNotesRunes = 4000 // termtext.Text's length: nothing is cut
)

// Plan is a loaded plan.
type Plan struct {
	Title string
	Beats []Beat
}

// Beat is one step of the session.
type Beat struct {
	Incident string // a bundled incident's ID
	// At is the beat's moment on the incident's lesson run (its first
	// branch): a clock, before every event at it, or a clock and the
	// events behind it ("19:52:00 #181"), as a fork's name ends.
	At engine.ForkMoment
	// Bookmark is the incident's bookmark the beat is at (its index), -1
	// when the file gave a moment; At is then the bookmark's clock.
	Bookmark int
	Title    string
	// Question is an exercise key of the incident, "" none. Asks says it
	// has choices: the beat puts it to the room at the question's own
	// moment; without, the beat opens the exercises on it, to fork.
	Question string
	Asks     bool
	Notes    string // the presenter's only: never on stage
	Line     int    // where the beat starts in its file
}

// Where is the beat's moment in words: `bookmark "…" (19:52:00)`,
// `19:52:00 #181`, or the question's.
func (b Beat) Where() string {
	switch {
	case b.Asks && b.Bookmark < 0:
		return "question " + b.Question + " at " + b.At.At.Short()
	case b.Bookmark >= 0:
		return fmt.Sprintf("bookmark %d (%s)", b.Bookmark+1, b.At.At.Short())
	}
	return strings.TrimPrefix(b.At.String(), "@")
}

// file is the file's shape.
type file struct {
	Plan  string     `yaml:"plan"`
	Beats []beatFile `yaml:"beats"`
}

type beatFile struct {
	Incident string `yaml:"incident"`
	At       string `yaml:"at"`
	Bookmark string `yaml:"bookmark"`
	Title    string `yaml:"title"`
	Question string `yaml:"question"`
	Notes    string `yaml:"notes" text:"multiline"`
}

// Is reports whether data looks like a plan file rather than an incident
// file: its top level has a plan: key (an incident's never has one).
func Is(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if rest, ok := bytes.CutPrefix(line, []byte("plan")); ok {
			if rest = bytes.TrimLeft(rest, " \t"); len(rest) > 0 && rest[0] == ':' {
				return true
			}
		}
	}
	return false
}

// Load reads the plan file at path, as incident files are read: a
// regular file of at most incidents.MaxFileBytes.
func Load(path string) (*Plan, error) {
	data, err := incidents.ReadCapped(path)
	if err != nil {
		var ps incidents.Problems
		if !errors.As(err, &ps) {
			if u := errors.Unwrap(err); u != nil {
				err = u // the file system's error names the file
			}
			return nil, fmt.Errorf("plan file: %w", err)
		}
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads one plan file; name is used in error positions. Every
// problem is reported, in file order.
func Parse(name string, data []byte) (*Plan, error) {
	var f file
	d, ok := incidents.DecodeStrict(name, data, &f, "plan", "notes")
	if !ok {
		return nil, d.Err()
	}
	p := &Plan{Title: f.Plan}
	switch {
	case f.Plan == "" && !d.Bad("$.plan"):
		d.Add("$", "missing plan: the plan's title (plan: \"Thursday night, two hours\")")
	case f.Plan != "":
		title(d, "$.plan", "plan", f.Plan, termtext.Line.Max)
	}
	switch {
	case len(f.Beats) == 0 && !d.Bad("$.beats"):
		d.Add("$.beats", "beats: a plan needs at least one beat")
	case len(f.Beats) > MaxBeats:
		d.Add("$.beats", "beats: %d beats; a plan may have at most %d", len(f.Beats), MaxBeats)
		return nil, d.Err()
	}
	for i, bf := range f.Beats {
		if b, ok := beat(d, fmt.Sprintf("$.beats[%d]", i), bf); ok {
			p.Beats = append(p.Beats, b)
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return guard(p), nil
}

// beat checks one beat against its incident.
func beat(d *incidents.Doc, path string, bf beatFile) (Beat, bool) {
	b := Beat{Incident: bf.Incident, Title: bf.Title, Question: bf.Question, Notes: bf.Notes, Bookmark: -1, Line: d.Line(path)}
	ok := true
	bad := func(field, format string, args ...any) {
		ok = false
		p := path + "." + field
		if !d.Has(p) {
			p = path
		}
		d.Add(p, "%s: %s", strings.TrimPrefix(p, "$."), fmt.Sprintf(format, args...))
	}
	if bf.Title == "" && !d.Bad(path+".title") {
		bad("title", "missing title: the room reads it (\"beat 3/9 · The sent_at fix\")")
	} else if bf.Title != "" && !title(d, path+".title", strings.TrimPrefix(path, "$.")+".title", bf.Title, MaxTitleRunes) {
		ok = false
	}
	if n := utf8.RuneCountInString(bf.Notes); n > MaxNotesRunes {
		bad("notes", "%d characters; a beat's notes may have at most %d", n, MaxNotesRunes)
	}
	if bf.Incident == "" {
		if !d.Bad(path + ".incident") {
			bad("incident", "missing incident: a bundled incident's ID (incidents: %s)", strings.Join(incidents.IDs(), ", "))
		}
		return b, false
	}
	spec, err := incidents.Get(bf.Incident)
	if err != nil {
		bad("incident", "unknown incident %q (incidents: %s)", termtext.Clean(bf.Incident, termtext.Quote), strings.Join(incidents.IDs(), ", "))
		return b, false
	}
	var ex *engine.Exercise
	if bf.Question != "" {
		i := slices.IndexFunc(spec.Exercises, func(e engine.Exercise) bool { return e.Key == bf.Question })
		if i < 0 {
			bad("question", "%s has no exercise %q (its exercises: %s)", spec.ID, termtext.Clean(bf.Question, termtext.Quote), exerciseKeys(spec))
			return b, false
		}
		ex = &spec.Exercises[i]
		b.Asks = len(ex.Choices) > 0
	}
	switch {
	case bf.At != "" && bf.Bookmark != "":
		bad("bookmark", "give at or bookmark, not both")
		return b, false
	case bf.At != "":
		m, err := engine.ParseForkMoment(bf.At)
		if err != nil {
			bad("at", "%v (a moment: \"19:52:00\", or \"19:52:00 #181\" after the run's first 181 events)", err)
			return b, false
		}
		if m.At < spec.Start {
			bad("at", "%s is before %s starts (%s)", m.At.Short(), spec.ID, spec.Start.Short())
			return b, false
		}
		b.At = m
	case bf.Bookmark != "":
		i := bookmarkIndex(spec, bf.Bookmark)
		switch {
		case i == -2:
			bad("bookmark", "%s has two bookmarks titled %q: give the beat's moment with at instead", spec.ID, termtext.Clean(bf.Bookmark, termtext.Quote))
			return b, false
		case i < 0:
			bad("bookmark", "%s has no bookmark titled %q (its bookmarks: %s)", spec.ID, termtext.Clean(bf.Bookmark, termtext.Quote), bookmarkTitles(spec))
			return b, false
		}
		b.Bookmark, b.At = i, engine.ForkMoment{At: spec.Bookmarks[i].At, Pos: -1}
	case b.Asks:
		// a question with choices is asked at its own moment
		b.At = engine.ForkMoment{At: ex.AskAt(), Pos: -1}
		return b, ok
	default:
		bad("at", "missing at or bookmark: the beat's moment (at: \"19:52:00\") or one of %s's bookmarks by its title (%s)", spec.ID, bookmarkTitles(spec))
		return b, false
	}
	if b.Asks && (b.At.At != ex.AskAt() || b.At.Pos >= 0) {
		field := "at"
		if bf.Bookmark != "" {
			field = "bookmark"
		}
		bad(field, "question %s is asked at its own moment, %s, and the beat goes there: leave %s out, or make it %s", ex.Key, ex.AskAt().Short(), field, ex.AskAt().Short())
		return b, false
	}
	return b, ok
}

// title checks a title: one line (the decoder refused line breaks) of at
// most max characters, and says so at path, naming the field.
func title(d *incidents.Doc, path, field, s string, max int) bool {
	if strings.TrimSpace(s) == "" {
		d.Add(path, "%s: blank; write what the room should read", field)
		return false
	}
	if n := utf8.RuneCountInString(s); n > max {
		d.Add(path, "%s: %d characters; at most %d (it is read on one line)", field, n, max)
		return false
	}
	return true
}

// bookmarkIndex is the index of spec's bookmark titled t, -1 none, -2
// more than one.
func bookmarkIndex(spec *engine.Spec, t string) int {
	i := -1
	for j, bm := range spec.Bookmarks {
		if bm.Title == t {
			if i >= 0 {
				return -2
			}
			i = j
		}
	}
	return i
}

func bookmarkTitles(spec *engine.Spec) string {
	if len(spec.Bookmarks) == 0 {
		return "none"
	}
	var ts []string
	for _, bm := range spec.Bookmarks {
		ts = append(ts, fmt.Sprintf("%q", bm.Title))
	}
	return strings.Join(ts, ", ")
}

func exerciseKeys(spec *engine.Spec) string {
	if len(spec.Exercises) == 0 {
		return "none"
	}
	var ks []string
	for _, ex := range spec.Exercises {
		ks = append(ks, ex.Key)
	}
	return strings.Join(ks, ", ")
}

// guard passes every text of p that reaches a screen through the text
// guard. Parse has refused control and bidi characters and long texts
// with a position; this is the second wall.
func guard(p *Plan) *Plan {
	p.Title = termtext.Clean(p.Title, termtext.Line)
	for i := range p.Beats {
		b := &p.Beats[i]
		b.Title = termtext.Clean(b.Title, termtext.Line)
		b.Notes = termtext.Clean(b.Notes, termtext.Text)
		b.Question = termtext.Clean(b.Question, termtext.Name)
		b.Incident = termtext.Clean(b.Incident, termtext.Name)
	}
	return p
}
