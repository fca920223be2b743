package main

import (
	"strings"
	"testing"

	"inflight/incidents"
)

// run --at takes a moment as the explorer's / does: partway through a
// clock, after the run's first N events. The fork stands there (crash B2
// after it took order 14 and its email left, not before), the code
// carries the count and replays the same, and the first count of a clock
// plays as the clock alone.
func TestRunAtMoment(t *testing.T) {
	type out struct {
		Crashes int    `json:"figures.crashes"`
		Hash    string `json:"trace_sha256"`
		Code    string `json:"code"`
		Forks   []struct {
			Name   string `json:"name"`
			Moment string `json:"moment"`
			Pos    int64  `json:"pos"`
		} `json:"forks"`
	}
	for _, tc := range []struct {
		at, do, name, moment string
		pos                  int64
		code                 string
	}{
		{"19:52:00 #181", "crash=B2", "crash B2 @19:52:00 #181", "@19:52:00 #181", 181, "/p181@19:52:00;do=crash=B2#"},
		{"@19:52:00 #179", "wedge=B2", "wedge B2's next call @19:52:00 #179", "@19:52:00 #179", 179, "/p179@19:52:00;do=wedge=B2#"},
		// #178 is the clock's first event: the fork stands before every event at it
		{"19:52:00 #178", "crash=B2", "crash B2 @19:52:00", "@19:52:00", 178, "/p178@19:52:00;do=crash=B2#"},
	} {
		o, s := runJSON[out](t, "thursday", "--at", tc.at, "--do", tc.do)
		if len(o.Forks) != 1 || o.Forks[0].Name != tc.name || o.Forks[0].Moment != tc.moment || o.Forks[0].Pos != tc.pos {
			t.Errorf("--at %q: forks %+v, want %q at %s (pos %d)", tc.at, o.Forks, tc.name, tc.moment, tc.pos)
		}
		if !strings.Contains(o.Code, tc.code) {
			t.Errorf("--at %q: code %s, want it to hold %s", tc.at, o.Code, tc.code)
		}
		if _, again := runJSON[out](t, "--code", o.Code); again != s {
			t.Errorf("run --code %s differs from --at %q:\n%s\n%s", o.Code, tc.at, again, s)
		}
	}
	first, _ := runJSON[out](t, "thursday", "--at", "19:52:00 #178", "--do", "crash=B2")
	clock, _ := runJSON[out](t, "thursday", "--at", "19:52:00", "--do", "crash=B2")
	if first.Hash != clock.Hash {
		t.Errorf("--at '19:52:00 #178' plays %s, --at 19:52:00 %s: the clock's first event is the same place", first.Hash, clock.Hash)
	}
}

// A moment the run does not have is one line naming it, exit 2.
func TestRunAtMomentRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"thursday", "--at", "19:52:00 #100", "--do", "crash=B2"}, "--at: @19:52:00 #100: after 100 events the run's clock is not 19:52:00 (a fork there stands after #178 to #181)"},
		{[]string{"thursday", "--at", "19:52:00 #300", "--set", "visibility_timeout=60s"}, "a fork there stands after #178 to #181"},
		{[]string{"thursday", "--at", "19:52:00 #9999999", "--do", "crash=B2"}, "the run ends at event 1406"},
		{[]string{"thursday", "--at", "19:52:00 #x", "--do", "crash=B2"}, "after '#' comes an event count"},
		{[]string{"thursday", "--at", "19:52:00 #181", "--do", "crash=B2", "--trace"}, ""},
	} {
		_, errOut, code := runCLI(append([]string{"run"}, tc.args...)...)
		if tc.want == "" {
			if code != 0 {
				t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
			}
			continue
		}
		line := strings.TrimSpace(errOut)
		if code != 2 || !strings.Contains(line, tc.want) || strings.Contains(line, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
	// sweep forks at a clock only
	if _, errOut, code := runCLI("sweep", "thursday", "--at", "19:52:00 #181", "--vary", "visibility_timeout=30s,60s"); code != 2 || !strings.Contains(errOut, "a moment with #N is run's") {
		t.Errorf("sweep --at with #N: exit %d, %q", code, errOut)
	}
	// a trace is not begun for a moment the run does not have
	out, _, code := runCLI("run", "thursday", "--at", "19:52:00 #100", "--do", "crash=B2", "--trace")
	if code != 2 || out != "" {
		t.Errorf("--trace with a bad moment: exit %d, %d bytes of trace", code, len(out))
	}
}

// --at reads a clock or a moment; anything else is one line of refusal.
func FuzzRunAtMoment(f *testing.F) {
	for _, s := range []string{"19:52:00", "19:52:00 #181", "@19:52:00 #0", "19:52 #", "#181", "19:52:00 #-1", "25:00", "19:52:00 # 9"} {
		f.Add(s)
	}
	spec, err := incidents.Get("thursday")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o := runFlags{at: s, format: "text"}
		m, ok, err := o.moment(spec)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: a two-line error %q", s, err)
			}
			return
		}
		if s != "" && (!ok || m.At < spec.Start || m.Pos < -1) {
			t.Fatalf("%q reads as %+v, %v", s, m, ok)
		}
	})
}
