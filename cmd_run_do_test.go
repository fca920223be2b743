package main

import (
	"encoding/json"
	"strings"
	"testing"

	"inflight/incidents"
)

// The lessons' questions as `run --do`: the figures a replay of the DLQ
// and a lost worker give, and the code that reproduces each.
func TestRunDo(t *testing.T) {
	for _, tc := range []struct {
		args               []string
		effects, dupes, dl int
		fork               string
	}{
		{[]string{"thursday", "--at", "21:15", "--do", "redrive", "--set", "visibility_timeout=60s"}, 432, 324, 0, "redrive 108 dead letters; visibility_timeout=60s @21:15:00"},
		{[]string{"thursday", "--at", "21:15", "--do", "redrive=unfinished"}, 324, 216, 108, "redrive 0 unfinished dead letters (of 108) @21:15:00"},
		{[]string{"thursday-fixed", "--at", "21:15", "--do", "redrive"}, 108, 0, 0, "redrive 0 dead letters @21:15:00"},
		{[]string{"thursday", "--at", "19:41", "--do", "workers=+2", "--do", "crash=A1"}, -1, -1, -1, "add 2 workers; crash A1 @19:41:00"},
		{[]string{"thursday", "--at", "19:45", "--do", "workers=-3"}, 324, 216, 108, "stop 3 workers (B2, B1, A2 after its message) @19:45:00"},
		{[]string{"thursday", "--at", "19:52:00", "--do", "wedge=B2"}, 324, 216, 108, "wedge B2's next call @19:52:00"},
		// the ordered queue stands behind its poison head: a purge loses the 154 behind it
		{[]string{"christmas-friday", "--at", "17:00", "--do", "purge"}, 720, 0, 6, "purge 154 messages (1 in flight) @17:00:00"},
		// the forty just after the fortieth lands, before the script: a plain
		// redrive sends them back to fail again (all forty in the drawer at
		// the end, 40 confirmations never sent); the repair empties it
		{[]string{"christmas-friday", "--at", "17:50:00 #1242", "--do", "redrive"}, 840, 0, 40, "redrive 40 dead letters @17:50:00 #1242"},
		{[]string{"christmas-friday", "--at", "17:50:00 #1242", "--do", "repair"}, 880, 0, 0, "repair and redrive 40 dead letters @17:50:00 #1242"},
		// the repair script at a moment of one's choosing: the three in the drawer by then
		{[]string{"christmas-friday", "--at", "16:55", "--do", "repair"}, 843, 0, 37, "repair and redrive 3 dead letters @16:55:00"},
	} {
		s, out := runJSON[struct {
			E     int    `json:"effects"`
			D     int    `json:"duplicate_effects"`
			Q     int    `json:"dlq"`
			Code  string `json:"code"`
			Forks []struct {
				Name string `json:"name"`
			} `json:"forks"`
		}](t, tc.args...)
		if tc.effects >= 0 && (s.E != tc.effects || s.D != tc.dupes || s.Q != tc.dl) {
			t.Errorf("%v: effects %d, duplicates %d, dlq %d; want %d, %d, %d", tc.args, s.E, s.D, s.Q, tc.effects, tc.dupes, tc.dl)
		}
		if len(s.Forks) != 1 || s.Forks[0].Name != tc.fork {
			t.Errorf("%v: forks %+v, want %q", tc.args, s.Forks, tc.fork)
		}
		again, errOut, code := runCLI("run", "--code", s.Code, "--format", "json")
		if code != 0 {
			t.Fatalf("run --code %s: exit %d: %s", s.Code, code, errOut)
		}
		if again != out {
			t.Errorf("run --code %s differs:\n%s\n%s", s.Code, again, out)
		}
	}
}

// A bad --do is one line naming what is wrong, exit 2.
func TestRunDoRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"thursday", "--do", "redrive"}, "--do redrive: at what moment? give it with --at CLOCK"},
		{[]string{"thursday", "--at", "21:15", "--do", "crash=Z9"}, `--do: action "crash=Z9": incident thursday has no worker "Z9" (its workers are A1, A2, B1, B2)`},
		{[]string{"thursday", "--at", "21:15", "--do", "replay"}, `--do: action "replay": incident thursday's actions are redrive, repair, purge, crash, wedge, workers`},
		{[]string{"thursday", "--at", "21:15", "--do", "purge=all"}, `--do: action "purge=all": purge takes no argument`},
		{[]string{"thursday", "--at", "21:15", "--do", "wedge=Z9"}, `--do: action "wedge=Z9": incident thursday has no worker "Z9"`},
		{[]string{"thursday", "--at", "21:15", "--do", "wedge"}, "give wedge=WORKER"},
		{[]string{"thursday", "--at", "21:15", "--do", "workers=-4"}, `--do: action "workers=-4": 4 workers in service, and stopping 4 leaves none (at least one stays)`},
		{[]string{"thursday", "--at", "21:15", "--do", "workers=-0"}, "want +N or -N with N from 1 to 64"},
		{[]string{"thursday", "--at", "21:15", "--do", "workers=+61"}, "4 workers started and 61 more is more than 64"},
		{[]string{"thursday", "--at", "21:15", "--do", "Crash"}, "--do: action \"Crash\": a name is lower-case letters and '_'"},
		{[]string{"thursday", "--at", "21:15", "--do", "workers=2"}, "want +N to add workers or -N to stop them"},
		{[]string{"thursday", "--at", "21:15", "--do", "crash"}, "give crash=WORKER"},
		{[]string{"--code", "thursday@1#end.4648ade4", "--do", "redrive"}, "give nothing else"},
		// a worker not running at the moment: checked there, not at the start
		{[]string{"christmas-friday", "--at", "16:50:01", "--do", "crash=A1"}, `--at: action "crash=A1": worker A1 is not running at 16:50:01 (crashed at 16:50:00, down until 16:50:02)`},
		{[]string{"christmas-friday", "--at", "16:50:01", "--do", "wedge=A1", "--trace"}, `--at: action "wedge=A1": worker A1 is not running at 16:50:01 (crashed at 16:50:00, down until 16:50:02)`},
		{[]string{"christmas-friday", "--at", "16:50:00 #44", "--do", "crash=A1"}, `--at: action "crash=A1": worker A1 is not running at 16:50:00 (crashed at 16:50:00, down until 16:50:02)`},
		{[]string{"--code", "christmas-friday@1/@16:50:01;do=crash=A1#end.00000000"}, `share code fork 1 at 16:50:01: action "crash=A1": worker A1 is not running`},
		{[]string{"thursday", "--at", "21:15", "--do", "redrive", "--do", "redrive=unfinished"}, "--do: action redrive with redrive=unfinished: a fork takes one redrive"},
		{[]string{"thursday", "--at", "21:15", "--do", "crash=A1", "--do", "wedge=A1"}, "--do: action crash=A1 with wedge=A1: a fork does one thing to A1"},
		// each action meets the state the ones before it leave
		{[]string{"thursday", "--at", "19:52:00 #181", "--do", "workers=-1", "--do", "crash=A2"}, `--at: after stop 1 worker (A2): action "crash=A2": worker A2 is not running at 19:52:00 (stopped at 19:52:00 by workers=-N)`},
		{[]string{"thursday", "--at", "19:52:00", "--do", "workers=-3", "--do", "workers=-1"}, `--at: after stop 3 workers (B2, A2, A1): action "workers=-1": 1 worker in service, and stopping 1 leaves none (at least one stays)`},
		{[]string{"thursday", "--at", "19:52:00 #181", "--do", "workers=-3", "--do", "workers=-1"}, `action "workers=-1": 1 worker in service`},
	} {
		_, errOut, code := runCLI(append([]string{"run"}, tc.args...)...)
		line := strings.TrimSpace(errOut)
		if code != 2 || !strings.Contains(line, tc.want) || strings.Count(line, "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

func FuzzRunDo(f *testing.F) {
	for _, s := range []string{"redrive", "redrive=unfinished", "crash=B2", "workers=+2", "workers=+0", "crash=", "=", "x=y=z", "purge", "repair", "wedge=A1", "workers=-3", "workers=-4", "workers=--1"} {
		f.Add(s)
	}
	spec, err := incidents.Get("thursday")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		acts, err := parseDo([]string{s}, spec, spec.Seed, nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: a two-line error %q", s, err)
			}
			return
		}
		if len(acts) != 1 || acts[0].String() != s {
			t.Fatalf("%q reads as %v", s, acts)
		}
	})
}

// sweep --do takes the actions on every branch, at --at: thursday's
// replay beside a longer timeout, and the recovery row after a crash.
func TestSweepDo(t *testing.T) {
	out, errOut, code := runCLI("sweep", "thursday", "--at", "21:15", "--do", "redrive", "--vary", "visibility_timeout=30s,60s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	found := false
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "effects" {
			found = f[1] == "648" && f[2] == "432"
		}
	}
	if !found || !strings.Contains(out, "(changes and redrive from 21:15:00)") || strings.Contains(out, "worst_recovery") {
		t.Errorf("sweep --do redrive:\n%s", out)
	}
	out, errOut, code = runCLI("sweep", "thursday", "--at", "19:52:10", "--do", "crash=B2", "--vary", "visibility_timeout=30s,60s", "--format", "json")
	if code != 0 || !strings.Contains(out, `"words": "order 14 invisible 20.0s after B2 crashed"`) {
		t.Errorf("sweep --do crash=B2: exit %d %s\n%s", code, errOut, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--do", "redrive"}, "at what moment?"},
		{[]string{"--at", "21:15", "--do", "crash=Z9"}, `no worker "Z9"`},
	} {
		_, errOut, code := runCLI(append([]string{"sweep", "thursday", "--vary", "visibility_timeout=30s,60s"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A redriven message starts a new life: the incident's pins (order 14's
// first delivery to box B, its first call 34 s) are about the story's
// first life, so a replay of the DLQ neither applies them again nor says
// that one gave way.
func TestRedriveLeavesThePinsBehind(t *testing.T) {
	out, errOut, code := runCLI("run", "thursday", "--at", "21:15", "--do", "redrive", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, "gave way") {
		t.Errorf("a pin gave way on the redriven life:\n%s", errOut)
	}
	var s struct {
		Pins []any `json:"pins_gave_way"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Pins) != 0 {
		t.Errorf("pins_gave_way %v, want none", s.Pins)
	}
}
