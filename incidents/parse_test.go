package incidents

import (
	"errors"
	"strings"
	"testing"
)

func TestBundledIncidentsParse(t *testing.T) {
	all := All()
	if len(all) < 3 {
		t.Fatalf("%d bundled incidents", len(all))
	}
	for _, want := range []string{"thursday", "thursday-fixed", "christmas-friday"} {
		if _, err := Get(want); err != nil {
			t.Error(err)
		}
	}
	if _, err := Get("nope"); err == nil || !strings.Contains(err.Error(), "thursday") {
		t.Errorf("unknown incident error should list the valid ones: %v", err)
	}
}

const minimal = `id: tiny
title: Tiny
start: "10:00:00"
sources:
  - {name: orders, start: "10:00:00", every: 1s, count: 3}
workers: {boxes: [A], per_box: 1}
provider: {latency_min: 1s, latency_max: 2s}
`

func TestMinimalFileParses(t *testing.T) {
	s, err := Parse("tiny.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if s.Params.Orders != 3 || s.Params.LatencyMax != 2000 {
		t.Fatalf("parsed %+v", s.Params)
	}
}

// Every problem names the file, line and column of what is wrong.
func TestErrorsHavePositions(t *testing.T) {
	cases := []struct {
		name, edit, wantPos, wantMsg string
	}{
		{"unknown top-level key", minimal + "colour: blue\n", "tiny.yaml:8:1", "unknown key \"colour\""},
		{"unknown broker key", minimal + "broker:\n  visibilty_timeout: 30s\n", "tiny.yaml:9:", "visibilty_timeout"},
		{"mistyped count", strings.Replace(minimal, "count: 3", "count: three", 1), "tiny.yaml:5:", ""},
		{"bad duration", strings.Replace(minimal, "every: 1s", "every: soon", 1), "tiny.yaml:5:", "duration"},
		{"bad clock", strings.Replace(minimal, `start: "10:00:00"`+"\nsources", `start: "10:61"`+"\nsources", 1), "tiny.yaml:3:", "minute"},
		{"bad enum", minimal + "broker: {late_ack: maybe}\n", "tiny.yaml:8:", "refuse, accept"},
		{"bad expectation", minimal + "expect: {busy: \"0.4..x\"}\n", "tiny.yaml:8:", "range"},
		{"yaml syntax", minimal + "workers: [\n", "tiny.yaml:", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("tiny.yaml", []byte(tc.edit))
			if err == nil {
				t.Fatal("no error")
			}
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %v is not a positioned Problems", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantPos) {
				t.Errorf("error %q does not start with %q", err, tc.wantPos)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tc.wantMsg)
			}
		})
	}
}

func TestEveryProblemIsReported(t *testing.T) {
	bad := minimal + "broker: {late_ack: maybe, max_receives: 0}\nalerts:\n  - {name: a, kind: loud}\n"
	_, err := Parse("tiny.yaml", []byte(bad))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 3 {
		t.Fatalf("want 3 problems, got %v", err)
	}
}

// FuzzParse feeds arbitrary bytes to the parser: it never panics, and
// every error it returns has a position.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	for _, name := range []string{"thursday.yaml", "thursday-fixed.yaml", "christmas-friday.yaml"} {
		data, _ := bundled.ReadFile(name)
		f.Add(data)
	}
	f.Add([]byte("id: [\n"))
	f.Add([]byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("fuzz.yaml", data)
		if err == nil {
			return
		}
		var ps Problems
		if !errors.As(err, &ps) || len(ps) == 0 {
			t.Fatalf("error without position: %v", err)
		}
		for _, p := range ps {
			if p.Line < 1 || p.Col < 1 || p.File != "fuzz.yaml" {
				t.Fatalf("bad position in %v", p)
			}
		}
	})
}
