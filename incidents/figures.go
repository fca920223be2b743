package incidents

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"inflight/engine"
	"inflight/internal/near"
)

// probeFields are the facts of one message an expect: key may read
// (message.N.FIELD), as engine.Probe answers them.
var probeFields = []string{"effects", "deliveries", "first_effect", "last_effect", "dlq", "dlq_at", "gone"}

// sometimes are summary keys a run gives only when they have something
// to say (omitted from its JSON otherwise).
var sometimes = []string{"unfinished", "pins_gave_way", "forks"}

// aliases are the words the explorer's status line uses for a figure,
// which a file may well write for its key.
var aliases = map[string]string{"dups": "duplicate_effects", "duplicates": "duplicate_effects", "emails": "effects"}

// figureSet is every key an expectation may name in one incident: the
// summary's keys and its family's figures, an alert's first firing, one
// message's facts, the effects of the messages published before or
// from a clock.
type figureSet struct {
	flat      map[string]bool
	names     []string // flat's keys, sorted, for suggestions
	alerts    []string
	wouldHave []string
	msgs      int // messages the run publishes; 0 when unknown
}

// figuresOf reads the keys off the incident's first event: a summary has
// every key from the start (an alert's only once it fires, so those come
// from the file). msgs bounds message.N when known.
func figuresOf(spec *engine.Spec, msgs int) (*figureSet, bool) {
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, MaxSteps: 1})
	if err != nil {
		return nil, false // refused elsewhere
	}
	fs := &figureSet{flat: map[string]bool{}, msgs: msgs}
	for k := range sum.Flat() {
		if !strings.HasPrefix(k, "alert.") && !strings.HasPrefix(k, "would_have.") {
			fs.flat[k] = true
		}
	}
	for _, k := range sometimes {
		fs.flat[k] = true
	}
	for k := range fs.flat {
		fs.names = append(fs.names, k)
	}
	sort.Strings(fs.names)
	for _, a := range spec.Alerts {
		fs.alerts = append(fs.alerts, a.Name)
	}
	for _, a := range spec.WouldHave {
		fs.wouldHave = append(fs.wouldHave, a.Name)
	}
	return fs, true
}

// check says what is wrong with key as a figure of this incident's run,
// or "" when it is one. fields are the message facts allowed.
func (fs *figureSet) check(key string, fields []string) string {
	if fs.flat[key] {
		return ""
	}
	if why := fs.special(key, fields); why != "-" {
		if why != "" {
			why = fmt.Sprintf("%q: %s", short(key), why)
		}
		return why
	}
	hint := ""
	switch a, ok := aliases[key]; {
	case ok && fs.flat[a]:
		hint = fmt.Sprintf(" (did you mean %q?)", a)
	case fs.flat["figures."+key]:
		hint = fmt.Sprintf(" (did you mean %q?)", "figures."+key)
	default:
		hint = didYouMean(key, fs.names)
	}
	if hint == "" {
		// one of the two lists, each a line's worth
		var names []string
		for _, n := range fs.names {
			if strings.HasPrefix(n, "figures.") == strings.HasPrefix(key, "figures.") {
				names = append(names, n)
			}
		}
		what := "the summary's keys"
		if strings.HasPrefix(key, "figures.") {
			what = "its family's figures"
		}
		hint = fmt.Sprintf("; %s: %s", what, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%q is not a figure this incident's run gives%s", short(key), hint)
}

// special checks the keys with a part of the file's choosing (a message,
// a clock, an alert): "" when fine, "-" when key is none of them.
func (fs *figureSet) special(key string, fields []string) string {
	parts := strings.Split(key, ".")
	switch head := parts[0]; {
	case head == "message" && len(parts) == 3:
		n, err := strconv.Atoi(parts[1])
		switch {
		case err != nil || n < 0 || !isDigits(parts[1]):
			return fmt.Sprintf("%q is not a message number (messages are numbered from 0)", short(parts[1]))
		case !contains(fields, parts[2]):
			return fmt.Sprintf("%q is not a message's fact (want %s)%s", short(parts[2]), strings.Join(fields, ", "), didYouMean(parts[2], fields))
		case fs.msgs > 0 && n >= fs.msgs:
			return fmt.Sprintf("this incident publishes messages 0 to %d", fs.msgs-1)
		}
		return ""
	case (head == "published_before" || head == "published_from") && len(parts) >= 3:
		if parts[len(parts)-1] != "effects" {
			return fmt.Sprintf("want %s.CLOCK.effects", head)
		}
		if _, err := engine.ParseClock(strings.Join(parts[1:len(parts)-1], ".")); err != nil {
			return err.Error()
		}
		return ""
	case head == "alert" && len(parts) == 2:
		return fs.named(parts[1], fs.alerts, "alerts")
	case head == "would_have" && len(parts) == 2:
		return fs.named(parts[1], fs.wouldHave, "would_have")
	}
	return "-"
}

func (fs *figureSet) named(name string, names []string, section string) string {
	if contains(names, name) {
		return ""
	}
	if len(names) == 0 {
		return fmt.Sprintf("no alert %q: the file's %s names none", short(name), section)
	}
	return fmt.Sprintf("no alert %q in the file's %s (%s)%s", short(name), section, strings.Join(names, ", "), didYouMean(name, names))
}

// didYouMean suggests the known name k is closest to, within near.Limit's
// edits, when one is closer than the others: figure names are many
// and alike ("efects" is two edits from events, one from effects).
func didYouMean(k string, known []string) string {
	limit := near.Limit(k)
	best, bestD, ties := "", limit+1, 0
	for _, c := range known {
		switch d := near.Distance(k, c, limit); {
		case d < bestD:
			best, bestD, ties = c, d, 1
		case d == bestD:
			ties++
		}
	}
	if bestD <= limit && ties == 1 {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// sourceMessages is how many messages the incident's sources publish
// under its knobs; 0 for a family that makes its own traffic (then only
// a run knows).
func sourceMessages(spec *engine.Spec) int {
	n := 0
	for i := range spec.Sources {
		n += spec.Sources[i].CountUnder(&spec.Params)
	}
	return n
}

// figureKeys refuses an expect: or check: key that names no figure of
// the incident's run, with the key it was probably meant to be: such a
// figure would show "(no such figure)" in check and fail, or, in a
// property, never be broken. It also refuses a featured message the
// sources never publish. Run only on a file without other problems, so
// that the spec's lists line up with the file's.
func (r *reader) figureKeys(spec *engine.Spec, f *file) {
	msgs := sourceMessages(spec)
	r.featuredIn(spec, msgs)
	fs, ok := figuresOf(spec, msgs)
	if !ok {
		return
	}
	for _, e := range spec.Expect {
		if why := fs.check(e.Key, probeFields); why != "" {
			r.atKey("$.expect."+e.Key, "expect: %s", why)
		}
	}
	// a fork's knobs may change how many messages there are
	forkFigs := *fs
	forkFigs.msgs = 0
	for i, fk := range spec.Forks {
		for _, e := range fk.Expect {
			if why := forkFigs.check(e.Key, probeFields); why != "" {
				r.atKey(fmt.Sprintf("$.forks[%d].expect.%s", i, e.Key), "fork %s: expect: %s", short(fk.Name), why)
			}
		}
	}
	for i, p := range f.Properties {
		for _, it := range p.Check {
			if it.Key == everyMessage {
				continue
			}
			if why := forkFigs.check(it.Key, MessageFields); why != "" {
				r.atKey(fmt.Sprintf("$.properties[%d].check.%s", i, it.Key), "property %s: %s", short(p.Name), why)
			}
		}
	}
}

// featuredIn refuses a featured message past the messages the incident
// publishes (msgs; 0: not known without its run): the explorer would
// select a message that never comes.
func (r *reader) featuredIn(spec *engine.Spec, msgs int) {
	if msgs > 0 && int(spec.Featured) >= msgs {
		r.at("$.featured", "featured message %d: this incident publishes messages 0 to %d", spec.Featured, msgs-1)
	}
}
