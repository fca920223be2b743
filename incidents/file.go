package incidents

import "reflect"

// The file's shape. Fields tagged text:"multiline" may hold newlines.
// Knob sections are lists of entries checked against the engine's knobs,
// so the file and --set accept exactly the same values.
type file struct {
	ID       string `yaml:"id"`
	Title    string `yaml:"title"`
	Story    string `yaml:"story" text:"multiline"`
	Label    string `yaml:"label"`
	Start    string `yaml:"start"`
	Seed     uint64 `yaml:"seed"`
	Featured *int32 `yaml:"featured"`
	// FeaturedKnobs are the knobs the lesson is about, first in the fork
	// form: featured_knobs: [visibility_timeout, late_ack]
	FeaturedKnobs []string `yaml:"featured_knobs"`
	Sources       []source `yaml:"sources"`
	Workers       workers  `yaml:"workers"`
	// Sections are the families' own knob sections (the queue's broker,
	// handler and provider), as the file writes them: which family's
	// they are is known only once family: is read
	Sections sections `yaml:"-"`
	Family   string   `yaml:"family"`
	Params   entries  `yaml:"params"`
	Pins     []pin    `yaml:"pins"`
	// PinTable is pins one a line (pintable.go), for files that pin
	// thousands of decisions
	PinTable pinTable `yaml:"pin_table"`
	// Publish is a publish schedule (a family with Descriptor.Publish):
	// a block of rows "AT [xCOUNT [+EVERY]]", publish.go
	Publish    string     `yaml:"publish" text:"multiline"`
	Alerts     []alert    `yaml:"alerts"`
	WouldHave  []alert    `yaml:"would_have"`
	Operators  []operator `yaml:"operators"`
	Bookmarks  []bookmark `yaml:"bookmarks"`
	Expect     entries    `yaml:"expect"`
	Forks      []fork     `yaml:"forks"`
	Exercises  []exercise `yaml:"exercises"`
	Properties []property `yaml:"properties"`
}

type source struct {
	Name   string `yaml:"name"`
	Start  string `yaml:"start"`
	Every  string `yaml:"every"`
	Count  int    `yaml:"count"`
	Poison bool   `yaml:"poison"`
}

type workers struct {
	Boxes        []string `yaml:"boxes"`
	PerBox       int      `yaml:"per_box"`
	Start        string   `yaml:"start"`
	RestartAfter string   `yaml:"restart_after"`
}

type pin struct {
	Decision string `yaml:"decision"`
	Message  int32  `yaml:"message"`
	Delivery int    `yaml:"delivery"`
	Value    string `yaml:"value"`
	Box      string `yaml:"box"`
}

type alert struct {
	Name      string `yaml:"name"`
	Kind      string `yaml:"kind"`
	Threshold string `yaml:"threshold"`
}

type operator struct {
	Name        string `yaml:"name"`
	Action      string `yaml:"action"`
	WhenDLQ     int    `yaml:"when_dlq"`
	Description string `yaml:"description" text:"multiline"`
}

type bookmark struct {
	At    string `yaml:"at"`
	Title string `yaml:"title"`
	Words string `yaml:"words" text:"multiline"`
	Event string `yaml:"event"`
	// Message narrows event: to one message's event at the clock.
	Message *int32 `yaml:"message"`
}

type fork struct {
	Name   string  `yaml:"name"`
	At     string  `yaml:"at"`
	Set    entries `yaml:"set"`
	Expect entries `yaml:"expect"`
}

type exercise struct {
	Key      string  `yaml:"key"`
	Question string  `yaml:"question" text:"multiline"`
	At       string  `yaml:"at"`
	Set      entries `yaml:"set"`
	Explain  string  `yaml:"explain" text:"multiline"`
	From     string  `yaml:"from"` // "lesson": one of its "Check your understanding" questions; else written for the incident
	// Do are operator actions taken at at (with set), or with do_at in a
	// fork of that fork at the later moment; doActions() reads them.
	Do   []string `yaml:"do"`
	DoAt string   `yaml:"do_at"`
	// Choices, the right one's number (answer: 1 is the first), the
	// bookmark it is asked at and the moment that proves the answer make
	// the exercise a question; questions() reads them.
	Choices  []string `yaml:"choices"`
	Answer   *int     `yaml:"answer"`
	Bookmark string   `yaml:"bookmark"`
	Proof    string   `yaml:"proof"`
}

// entries is a map section (knobs, expectations) in file order. A value is
// a scalar written as --set would take it, or a flat list of scalars
// written "[a,b]".
type entries []entry

type entry struct {
	Key    string
	Value  string
	IsList bool
}

var entriesType = reflect.TypeOf(entries(nil))

// sections are the top-level knob sections a file writes, in file order.
// The decoder takes every section a registered family declares
// (familySections) and the builder checks them against the file's family.
type sections []section

type section struct {
	Name    string
	Entries entries
}

var sectionsType = reflect.TypeOf(sections(nil))

// get is the section named name, if the file has it.
func (ss sections) get(name string) entries {
	for _, s := range ss {
		if s.Name == name {
			return s.Entries
		}
	}
	return nil
}
