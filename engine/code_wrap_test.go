package engine_test

import (
	"strings"
	"testing"

	"inflight/engine"
)

// A code copied off a screen that wrapped it arrives with the line breaks
// and the next lines' indent: it reads as the code it was, every break
// anywhere, and the codes made before reading dropped whitespace read as
// they always did.
func TestWrappedCodeReadsWhole(t *testing.T) {
	for _, s := range []string{
		"thursday@1#end.4648ade4",
		"thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec",
		"thursday@1/@19:52:00;visibility_timeout=60s#end.1dde67ec",
		"thursday@7+orders=30/p100@19:52:00;d12=31000#125.00000000",
		"thursday@1/p100@19:52:00;orders=30;d12=31000;fault=ack_lost:3.2;fault=before_ack:3.1#125.00000000",
		"thursday-fixed@1/p7@19:40:50;fault=after_claim:0.2#36.92949be0~2;sel=0;n1=hunt:%20its-email",
		"thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec~2;at=19:52:30;sel=14;n1=it%27s%20a%20name",
	} {
		c, err := engine.ParseCode(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if c.String() != s {
			t.Fatalf("%s reads back as %s", s, c.String())
		}
		for i := 1; i < len(s); i++ {
			for _, brk := range []string{"\n", "\n  ", "\r\n", " \n\t"} {
				w := s[:i] + brk + s[i:]
				got, err := engine.ParseCode("  " + w + "\n")
				if err != nil {
					t.Fatalf("%q: %v", w, err)
				}
				if got.String() != s {
					t.Fatalf("%q reads as %s, not %s", w, got, s)
				}
			}
		}
	}
	// whitespace is dropped, nothing else: a control character is still refused
	if _, err := engine.ParseCode("thursday@1#end.\x0b4648ade4"); err == nil {
		t.Fatal("a vertical tab inside a code was accepted")
	}
	if _, err := engine.ParseCode(strings.Repeat(" ", engine.MaxCodeLen) + "thursday@1#end.4648ade4"); err == nil {
		t.Fatal("a code past the cap, in spaces, was accepted")
	}
}
