package incidents

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestBookmarkKeysRefused: a bookmark's event: that names no event of the
// incident (a misspelling), or a message: its sources never publish, is
// refused at load with the value's line and column, instead of landing
// silently at the end of its clock.
func TestBookmarkKeysRefused(t *testing.T) {
	bm := func(keys string) string {
		return minimal + "bookmarks:\n  - at: \"10:00:01\"\n    title: t\n" + keys
	}
	cases := []struct {
		name, file, wantPos, wantMsg string
	}{
		{"misspelt event", bm("    event: ack_refsed\n"), "tiny.yaml:11:12", `bookmark event "ack_refsed" is not an event of this incident (did you mean "ack_refused"?)`},
		{"foreign event", bm("    event: clock_step\n"), "tiny.yaml:11:12", `bookmark event "clock_step"`},
		{"message past the sources", bm("    event: ack\n    message: 3\n"), "tiny.yaml:12:14", "publishes messages 0 to 2"},
		{"negative message", bm("    event: ack\n    message: -1\n"), "tiny.yaml:12:14", "numbered from 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("tiny.yaml", []byte(tc.file))
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Fatalf("want one positioned problem, got %v", err)
			}
			if got := ps.Error(); !strings.HasPrefix(got, tc.wantPos) || !strings.Contains(got, tc.wantMsg) {
				t.Fatalf("got %q, want %s … %s", got, tc.wantPos, tc.wantMsg)
			}
		})
	}
	if _, err := Parse("tiny.yaml", []byte(bm("    event: ack\n    message: 2\n"))); err != nil {
		t.Fatalf("a bookmark on an event and message the incident has: %v", err)
	}
}

// TestBundledIncidentsValidate: every bundled incident and the worked
// example pass validate's checks against their run (every bookmark, fork
// and exercise within it, the featured message one it publishes), played
// to the end within the default budget, not skipped.
func TestBundledIncidentsValidate(t *testing.T) {
	names := []string{"../docs/example-incident.yaml"}
	entries, err := bundled.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, name := range names {
		var data []byte
		if strings.HasPrefix(name, "../") {
			data, err = os.ReadFile(name)
		} else {
			data, err = bundled.ReadFile(name)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, rc, err := Validate(name, data, DefaultValidateEvents)
		if err != nil || !rc.Played || rc.Skipped != "" {
			t.Errorf("%s: %v (played %v, %s)", name, err, rc.Played, rc.Skipped)
		}
	}
}

// TestValidateFamilyMessages: a family that makes its own traffic
// (cashback writes its 5000 entries from its knobs) has no sources to
// count, so a featured message or a message.N past its run is found by
// validate's run, at its line, while Parse, which does not play it,
// lets it by.
func TestValidateFamilyMessages(t *testing.T) {
	data, err := bundled.ReadFile("cashback.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{"seed: 10\n", "seed: 10\nfeatured: 5000\n", "cashback.yaml:38:11: featured message 5000: this incident publishes messages 0 to 4999"},
		{"expect:\n", "expect:\n  message.5000.effects: 1\n", `cashback.yaml:75:3: expect: "message.5000.effects": this incident publishes messages 0 to 4999`},
	} {
		src := []byte(strings.Replace(string(data), tc.old, tc.new, 1))
		if _, err := Parse("cashback.yaml", src); err != nil {
			t.Fatalf("Parse: %v", err)
		}
		_, rc, err := Validate("cashback.yaml", src, DefaultValidateEvents)
		if err == nil || err.Error() != tc.want || !rc.Played {
			t.Errorf("Validate: %v (played %v), want %s", err, rc.Played, tc.want)
		}
	}
}
