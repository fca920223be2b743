package incidents

import (
	"bytes"
	"strings"
	"testing"

	"inflight/engine"
)

const streamFile = "id: sched\ntitle: sched\nstart: \"10:00:00\"\nfamily: cashback\nparams:\n  events: 8\n  crash_p: 0\n"

// TestPublishSchedule: the rows spell each entry's publish time, and the
// cashback producer writes each entry then; past the schedule's end it
// writes one a millisecond.
func TestPublishSchedule(t *testing.T) {
	src := streamFile + "publish: |\n  # offset ms, count, every\n  0 x3\n\n  5\n  7 x3 +2\n"
	spec, err := Parse("sched.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.PublishRun{{At: 0, Count: 3}, {At: 5, Count: 1}, {At: 7, Every: 2, Count: 3}}
	if len(spec.Publish) != len(want) {
		t.Fatalf("runs %v, want %v", spec.Publish, want)
	}
	for i := range want {
		if spec.Publish[i] != want[i] {
			t.Fatalf("runs %v, want %v", spec.Publish, want)
		}
	}
	var trace bytes.Buffer
	if _, _, err := engine.Run(spec, engine.RunOptions{Seed: 1, Trace: &trace}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(trace.String(), "\n") {
		if strings.Contains(l, `"kind":"publish"`) {
			i := strings.Index(l, `"t":"`)
			got = append(got, l[i+5:i+17])
		}
	}
	// the eighth entry is past the schedule: a millisecond after the seventh
	wantT := "10:00:00.000 10:00:00.000 10:00:00.000 10:00:00.005 10:00:00.007 10:00:00.009 10:00:00.011 10:00:00.012"
	if strings.Join(got, " ") != wantT {
		t.Errorf("publish times\n%s\nwant\n%s", strings.Join(got, " "), wantT)
	}
}

// TestPublishScheduleErrors: each bad row is named at its line and the
// column of what is wrong.
func TestPublishScheduleErrors(t *testing.T) {
	for _, c := range []struct{ publish, want string }{
		{"publish: |\n  0\n  5 x0\n", "sched.yaml:10:5: publish: row \"5 x0\": count \"x0\": want a whole number from 1 to 10000000"},
		{"publish: |\n  0\n  5 3\n", "sched.yaml:10:5: publish: row \"5 3\": count \"3\": write it x3"},
		// a row indented past the block's own: its column is the file's
		{"publish: |\n  0\n    5 3\n", "sched.yaml:10:7: publish: row \"5 3\": count \"3\": write it x3"},
		{"publish: |\n    10 x2 +5\n    14\n", "sched.yaml:10:5: publish: row \"14\": starts at 14 ms, before the previous row's last message (15 ms)"},
		{"publish: |\n  0 x2 +1 9\n", "sched.yaml:9:11: publish: row \"0 x2 +1 9\": want AT, AT xCOUNT or AT xCOUNT +EVERY (ms), got 4 words"},
		{"publish: |\n  -1\n", "sched.yaml:9:3: publish: row \"-1\": offset (ms) \"-1\": want a whole number"},
		{"publish: |\n  1.5\n", "sched.yaml:9:3: publish: row \"1.5\": offset (ms) \"1.5\""},
		{"publish: |\n  0 x10000000 +1000000\n", "its last message is 9999999000000 ms after the start; at most 3600000000"},
		{"publish: |\n  0 x9000000\n  1 x2000000\n", "sched.yaml:10:3: publish: row \"1 x2000000\": the schedule passes 10000000 messages"},
		{"publish: >\n  0\n  1\n", "sched.yaml:8:10: publish: write the schedule as a literal block"},
		{"publish: |\n  # nothing\n", "publish: no rows"},
		{"publish: 0 x2 +1 q\n", "sched.yaml:8:18: publish: row"},
		{"publish: [0, 1]\n", "sched.yaml:8:10: publish: want text"},
	} {
		_, err := Parse("sched.yaml", []byte(streamFile+c.publish))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.publish, err, c.want)
		}
	}
	// the queue publishes from its sources
	_, err := Parse("tiny.yaml", []byte(minimal+"publish: |\n  0\n"))
	if err == nil || !strings.Contains(err.Error(), "tiny.yaml:8:10: publish is a schedule for a family with its own producer") {
		t.Errorf("the queue's publish: error %v", err)
	}
}

// TestHandlePins: cashback's handler-time pins are durations, by entry
// and delivery count.
func TestHandlePins(t *testing.T) {
	spec, err := Parse("sched.yaml", []byte(streamFile+"pins:\n  - {decision: handle, message: 2, delivery: 1, value: 7ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Pins) != 1 || spec.Pins[0].Value != 7 || spec.Pins[0].Kind < engine.FamilyDecision {
		t.Errorf("pins %+v", spec.Pins)
	}
	_, err = Parse("sched.yaml", []byte(streamFile+"pins:\n  - {decision: handle, message: 2, delivery: 1, value: soon}\n"))
	if err == nil || !strings.Contains(err.Error(), "sched.yaml:9:56: duration \"soon\"") {
		t.Errorf("a handle pin that is no duration: %v", err)
	}
	_, err = Parse("tiny.yaml", []byte(minimal+"pins:\n  - {decision: handle, message: 2, delivery: 1, value: 7ms}\n"))
	if err == nil || !strings.Contains(err.Error(), `pin decision "handle": want latency, worker or crash`) {
		t.Errorf("the queue's handle pin: %v", err)
	}
}

// FuzzPublish: any publish block is read or refused with a position,
// never a panic, and what is read keeps the bounds.
func FuzzPublish(f *testing.F) {
	for _, s := range []string{"0 x3\n5\n7 x3 +2\n", "  0\n 1\n", "0 x0", "9 x9999999 +9999", "# c\n\n1 +2 x3", "1\t2", "\n\n\n", "0 x10000000\n1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rows string) {
		var b strings.Builder
		b.WriteString(streamFile + "publish: |\n")
		for _, l := range strings.Split(rows, "\n") {
			b.WriteString("  " + l + "\n")
		}
		spec, err := Parse("sched.yaml", []byte(b.String()))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sched.yaml:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		n, last := 0, engine.Duration(0)
		for _, r := range spec.Publish {
			if r.Count < 1 || r.At < last || r.Every < 0 {
				t.Fatalf("run %+v after %d", r, last)
			}
			n += r.Count
			last = r.At + r.Every*engine.Duration(r.Count-1)
		}
		if n > MaxPublish || last > MaxPublishOffset {
			t.Fatalf("%d messages, last at %d", n, last)
		}
	})
}
