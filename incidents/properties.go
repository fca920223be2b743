package incidents

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// Limits on a file's properties: a lesson names a handful, each a line of
// words and a few checks; more is a hostile file, refused with a position.
const (
	MaxProperties     = 16
	MaxPropertyChecks = 16
	maxPropertyName   = 40
	maxPropertyWords  = 300
)

// property is one entry of properties: in a file.
//
//	properties:
//	  - name: one-email
//	    words: every order gets exactly one email
//	    check:
//	      every message: effects 1
//	      lost: 0
type property struct {
	Name  string  `yaml:"name"`
	Words string  `yaml:"words" text:"multiline"`
	Check entries `yaml:"check"`
}

// everyMessage is the one quantifier a check may use: "every message:
// FIELD WANT" holds when every message's FIELD matches WANT.
const everyMessage = "every message"

// MessageFields are the facts of one message an "every message" check
// may read.
var MessageFields = []string{"effects", "deliveries", "dlq"}

// properties checks the file's properties: a unique short name, words,
// and at least one check, each one expect: could hold or the quantifier.
func (r *reader) properties(ps []property) []engine.Property {
	if len(ps) > MaxProperties {
		r.at(fmt.Sprintf("$.properties[%d]", MaxProperties), "more than %d properties; a lesson names a handful", MaxProperties)
		ps = ps[:MaxProperties]
	}
	var out []engine.Property
	seen := map[string]bool{}
	for i, p := range ps {
		path := fmt.Sprintf("$.properties[%d]", i)
		ok := true
		name := p.Name
		switch {
		case r.bad[path+".name"]:
			ok = false
		case name == "":
			r.at(path+".name", "a property needs a name (a short word, e.g. one-email)")
			ok = false
		case !shortName(name):
			r.at(path+".name", "property name %q: want at most %d letters, digits and dashes", short(name), maxPropertyName)
			ok = false
		case seen[name]:
			r.at(path+".name", "property %q is named twice", name)
			ok = false
		}
		seen[name] = true
		words := strings.Join(strings.Fields(p.Words), " ")
		switch {
		case r.bad[path+".words"]:
			ok = false
		case words == "":
			r.at(path+".words", "property %s needs words: what it promises, as the lesson says it", short(name))
			ok = false
		case len(words) > maxPropertyWords:
			r.at(path+".words", "property %s: words of %d characters; say it in at most %d", short(name), len(words), maxPropertyWords)
			ok = false
		}
		prop := engine.Property{Name: name, Words: words}
		if len(p.Check) == 0 && !r.bad[path+".check"] {
			r.at(path+".check", "property %s needs at least one check (e.g. duplicate_effects: 0)", short(name))
			ok = false
		}
		if len(p.Check) > MaxPropertyChecks {
			r.at(path+".check", "property %s: more than %d checks", short(name), MaxPropertyChecks)
			ok = false
		}
		for _, it := range p.Check {
			cp := path + ".check." + it.Key
			if r.bad[cp] {
				ok = false
				continue
			}
			if it.Key != everyMessage {
				e := engine.Expectation{Key: it.Key, Want: it.Value}
				if err := r.checkWant(cp, e, it.IsList); err != nil {
					ok = false
					continue
				}
				prop.Checks = append(prop.Checks, e)
				continue
			}
			e, err := parseEvery(it.Value)
			if err == nil {
				err = r.checkWant(cp, e, false)
			} else {
				r.at(cp, "%v", err)
			}
			if err != nil {
				ok = false
				continue
			}
			prop.Every = append(prop.Every, e)
		}
		if ok {
			out = append(out, prop)
		}
	}
	return out
}

// checkWant checks a check's value as expect: does, saying what is wrong
// at its position.
func (r *reader) checkWant(path string, e engine.Expectation, isList bool) error {
	if err := engine.CheckExpectationSyntax(e); err != nil {
		r.at(path, "%v", err)
		return err
	}
	if bad, ok := notANumber(e.Want); ok && !isList {
		err := fmt.Errorf("check %s: %q is not a number", e.Key, bad)
		r.at(path, "%v", err)
		return err
	}
	return nil
}

// parseEvery reads the quantifier's value, "FIELD WANT" (WANT may be
// quoted: effects ">=1").
func parseEvery(v string) (engine.Expectation, error) {
	f, want, _ := strings.Cut(strings.TrimSpace(v), " ")
	want = strings.TrimSpace(want)
	if len(want) >= 2 && (want[0] == '"' || want[0] == '\'') && want[len(want)-1] == want[0] {
		want = want[1 : len(want)-1]
	}
	if !contains(MessageFields, f) {
		return engine.Expectation{}, fmt.Errorf("every message: %q is not a message's fact (want %s, then a value: effects \">=1\")", short(f), strings.Join(MessageFields, ", "))
	}
	if want == "" {
		return engine.Expectation{}, fmt.Errorf("every message: %s needs a value (e.g. %s \">=1\")", f, f)
	}
	return engine.Expectation{Key: f, Want: want}, nil
}

func shortName(s string) bool {
	if len(s) > maxPropertyName {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
