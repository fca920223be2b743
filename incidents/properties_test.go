package incidents

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// withProperties is thursday-fixed's file with its properties: section
// replaced by props.
func withProperties(t *testing.T, props string) []byte {
	t.Helper()
	b, err := os.ReadFile("thursday-fixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\nproperties:")
	if i < 0 {
		t.Fatal("thursday-fixed.yaml has no properties: section")
	}
	return []byte(s[:i+1] + props)
}

func TestPropertiesRead(t *testing.T) {
	spec, err := Get("thursday-fixed")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range spec.Properties {
		got = append(got, fmt.Sprintf("%s|%s|%v|%v", p.Name, p.Words, p.Checks, p.Every))
	}
	want := []string{
		"one-email|every order gets exactly one email|[]|[{effects 1}]",
		"its-email|every order gets its email|[]|[{effects >=1}]",
		"dlq-empty|nothing lands in the dead letter queue|[{dlq 0}]|[]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("properties:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEveryBundledIncidentHasProperties(t *testing.T) {
	for _, id := range IDs() {
		spec, err := Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(spec.Properties) == 0 {
			t.Errorf("%s names no properties", id)
		}
	}
}

// Every problem in a properties: section is reported at its line and
// column, in file order, and none stops the others being found.
func TestPropertiesProblems(t *testing.T) {
	props := `properties:
  - name: one-email
    words: every order gets exactly one email
    check:
      every message: emails 1
  - name: one-email
    words: again
    check:
      lost: 0
  - name: "bad name!"
    words: x
    check:
      lost: 0
  - name: empty
    words: nothing to check
  - name: nan
    words: a figure that is never a number
    check:
      lost: NaN
  - name: ctl
    words: "a bell \a here"
    check:
      every message: effects
`
	_, err := Parse("p.yaml", withProperties(t, props))
	if err == nil {
		t.Fatal("want problems")
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		lines = append(lines, l)
	}
	base := strings.Count(string(withProperties(t, "")), "\n")
	at := func(line, col int, msg string) string { return fmt.Sprintf("p.yaml:%d:%d: %s", base+line, col, msg) }
	want := []string{
		at(5, 22, `every message: "emails" is not a message's fact (want effects, deliveries, dlq, then a value: effects ">=1")`),
		at(6, 11, `property "one-email" is named twice`),
		at(10, 11, `property name "bad name!": want at most 40 letters, digits and dashes`),
		at(14, 9, `property empty needs at least one check (e.g. duplicate_effects: 0)`),
		at(19, 13, `check lost: "NaN" is not a number`),
		at(21, 12, `properties[5].words: a control character (\a); incident text must be plain, printable text`),
		at(23, 22, `every message: effects needs a value (e.g. effects ">=1")`),
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// A file may name only so many properties: a hostile one with thousands
// is refused with a position, not read.
func TestPropertiesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("properties:\n")
	for i := 0; i < MaxProperties+5; i++ {
		fmt.Fprintf(&b, "  - {name: p%d, words: w, check: {lost: 0}}\n", i)
	}
	_, err := Parse("p.yaml", withProperties(t, b.String()))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d properties", MaxProperties)) {
		t.Fatalf("want a refusal of more than %d properties, got %v", MaxProperties, err)
	}
}
