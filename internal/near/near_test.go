package near

import (
	"slices"
	"strings"
	"testing"
)

func TestMeant(t *testing.T) {
	knobs := []string{"ack", "claim", "claim_window", "dedupe", "dedup_window", "latency_max", "latency_min", "visibility_timeout", "write_timeout_p"}
	for _, c := range []struct {
		typed string
		want  []string
	}{
		{"timeout", []string{"visibility_timeout", "write_timeout_p"}},
		{"latency", []string{"latency_max", "latency_min"}},
		{"visiblity_timeout", []string{"visibility_timeout"}}, // a letter left out
		{"dedup", []string{"dedupe"}},                         // one edit beats a word of dedup_window
		{"claim", []string{"claim"}},                          // a name is not a word of itself
		{"window", []string{"claim_window", "dedup_window"}},
		{"max", []string{"latency_max"}},
		{"nosuch", nil},
		{"", nil},
		{"_", nil},
		{"latency_", nil}, // a word is never empty, and the typed name has none
		{strings.Repeat("x", 10000), nil},
	} {
		got := Meant(c.typed, knobs)
		if !slices.Equal(got, c.want) {
			t.Errorf("Meant(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

func TestMisspelt(t *testing.T) {
	known := []string{"effects", "events", "deliveries"}
	for _, c := range []struct{ typed, want string }{
		{"efects", ""}, // one edit from effects, two from events: both within two
		{"delivries", "deliveries"},
		{"evnts", "events"},
		{"xyz", ""},
	} {
		if got := Misspelt(c.typed, known); got != c.want {
			t.Errorf("Misspelt(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b    string
		max, is int
	}{
		{"kitten", "sitting", 3, 3},
		{"", "abc", 3, 3},
		{"same", "same", 2, 0},
		{"a", "abcdef", 2, 3},                    // lengths differ by more than max
		{strings.Repeat("a", 65), "a", 100, 101}, // too long to measure
	} {
		if got := Distance(c.a, c.b, c.max); got != c.is {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.max, got, c.is)
		}
	}
}
