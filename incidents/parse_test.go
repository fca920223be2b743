package incidents

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"inflight/engine"
	"inflight/engine/families/sqs"
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

// The catalogue is parsed once per process, whoever asks first and from
// however many goroutines: every caller gets the same specs, in an order
// its own (All's slice is a copy), and the default incident is one of them.
func TestCatalogueParsedOnce(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]*engine.Spec, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = Get(DefaultID)
		}()
	}
	wg.Wait()
	for _, s := range got {
		if s == nil || s != got[0] {
			t.Fatalf("Get(%q) answered %p and %p", DefaultID, s, got[0])
		}
	}
	a := All()
	a[0], a[1] = a[1], a[0]
	if b := All(); b[0] != got[0] || b[1] == got[0] {
		t.Errorf("All's slice is shared: the catalogue starts with %s", b[0].ID)
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

func TestFeaturedKnobsParse(t *testing.T) {
	s, err := Parse("tiny.yaml", []byte(minimal+"featured_knobs: [visibility_timeout, late_ack]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.FeaturedKnobs, ",") != "visibility_timeout,late_ack" {
		t.Fatalf("featured knobs %q", s.FeaturedKnobs)
	}
}

func TestMinimalFileParses(t *testing.T) {
	s, err := Parse("tiny.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if k := sqs.KnobsOf(&s.Params); k.Orders != 3 || k.LatencyMax != 2000 {
		t.Fatalf("parsed %+v", k)
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
		{"unknown featured knob", minimal + "featured_knobs: [visibility_timeout, visibilty]\n", "tiny.yaml:8:", "featured knob \"visibilty\" is not one of"},
		{"foreign featured knob", minimal + "featured_knobs: [dedupe]\n", "tiny.yaml:8:", "featured knob \"dedupe\""},
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
	// the hostile cases of issue 10, small enough to mutate
	f.Add([]byte(aliasBomb()))
	f.Add([]byte(strings.Repeat("[", 200) + strings.Repeat("]", 200)))
	f.Add([]byte(strings.Repeat("- ", 100)))
	f.Add([]byte(indentNest(40)))
	f.Add([]byte(strings.Replace(minimal, `start: "10:00:00"`+"\nsources", `start: "2562047788016:00"`+"\nsources", 1)))
	f.Add([]byte(strings.Replace(minimal, "count: 3", "count: 60.9", 1)))
	f.Add([]byte(strings.Replace(minimal, "count: 3", "count: null", 1)))
	f.Add([]byte(strings.Replace(minimal, "per_box: 1", "per_box: 2.9", 1)))
	f.Add([]byte(minimal + "seed: 18446744073709551616\n"))
	f.Add([]byte(minimal + "seed: 1.5\n"))
	f.Add([]byte(strings.Replace(minimal, "every: 1s", "every: 30s45s", 1)))
	f.Add([]byte(strings.Replace(minimal, "latency_max: 2s", "latency_max: 2s, wedge_p: .nan", 1)))
	f.Add([]byte(strings.Replace(minimal, "title: Tiny", `title: "t\x1b]0;pwned\x07\x1b[2J"`, 1)))
	f.Add([]byte(minimal + "colour: blue\nshape: round\nsize: 9\n"))
	f.Add([]byte(strings.Replace(minimal, "title: Tiny", "title: [a, b]", 1)))
	f.Add([]byte(strings.Replace(minimal, "latency_max: 2s", "latency_max: 500ms", 1)))
	f.Add([]byte("a: &a [*a]\nexpect: {x: *a}\n"))
	f.Add([]byte(streamFile + "publish: |\n  0 x3\n  5 x2 +4\npins:\n  - {decision: handle, message: 1, delivery: 1, value: 3ms}\n"))
	// issue 20's mistakes validate used to let through
	if ex, err := os.ReadFile("../docs/example-incident.yaml"); err == nil {
		f.Add(ex)
		for _, e := range [][2]string{
			{`    at: "14:10:00"`, `    at: "13:00:00"`},
			{`    at: "14:10:00"`, `    at: "23:00:00"`},
			{"    set: {visibility_timeout: 20s}\n    expect: {effects", "    set: {orders: 100}\n    expect: {effects"},
			{`  - at: "14:01:00"`, `  - at: "99999:00:00"`},
			{`  - at: "14:01:10.5"`, `  - at: "14:19:48"`},
			{`late_acks_refused: "10..25"`, `late_acks_refused: "25..10"`},
			{"featured: 3\n", "featured: 99\n"},
			{"  messages: 60\n", "  messags: 60\n"},
			{"  dlq: 0\n", "  dups: 3\n"},
			{"  message.3.effects: 2\n", "  message.60.efects: 2\n"},
		} {
			f.Add([]byte(strings.Replace(string(ex), e[0], e[1], 1)))
		}
	}
	f.Add([]byte(minimal + "expect: {busy: \"0.9..0.1\", alert.x: \"10:00\", published_from.25:61.effects: 1}\n"))
	f.Add([]byte(withTable("# decision message delivery value", "latency 0 1 1500ms", "worker 0 1 B", "", "crash 2 1 x", "worker 0 1 A B")))
	f.Add([]byte(minimal + "pins:\n  - {decision: worker, message: 0, delivery: 1, box: A}\npin_table: |\n  worker 0 1 A\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := Parse("fuzz.yaml", data)
		if err == nil {
			// the run's own checks, within a budget a fuzzer can afford:
			// a refusal is positioned like any other
			if _, _, verr := Validate("fuzz.yaml", data, 20_000); verr != nil {
				var ps Problems
				if !errors.As(verr, &ps) || len(ps) == 0 || ps[0].Line < 1 || ps[0].Col < 1 {
					t.Fatalf("run check without position: %v", verr)
				}
			}
			// whatever was accepted is plain text a terminal shows as is
			texts := []string{spec.ID, spec.Title, spec.Label}
			for _, src := range spec.Sources {
				texts = append(texts, src.Name)
			}
			texts = append(texts, spec.Workers.Boxes...)
			for _, b := range spec.Bookmarks {
				texts = append(texts, b.Title)
			}
			for _, s := range texts {
				if !printable(s, false) {
					t.Fatalf("accepted unprintable text %q", s)
				}
			}
			if !printable(spec.Story, true) {
				t.Fatalf("accepted unprintable story %q", spec.Story)
			}
			if spec.Start < 0 || spec.Start >= engine.MaxClockHours*engine.Hour {
				t.Fatalf("start %d outside the clock's bounds", spec.Start)
			}
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
