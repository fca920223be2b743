package ordering_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/ordering"
	"inflight/engine/kafka"
)

// run plays ordering with set from the start and acts at the clock at,
// and returns the summary with the world at its end.
func run(t *testing.T, set []engine.Setting, at string, do ...string) (engine.Summary, *engine.World) {
	t.Helper()
	spec := familytest.Incident(t, "ordering")
	o := engine.RunOptions{Seed: spec.Seed, Set: set}
	if at != "" {
		c, err := engine.ParseClock(at)
		if err != nil {
			t.Fatal(err)
		}
		o.HasAt, o.At = true, c
		for _, d := range do {
			a, err := engine.ParseAction(d)
			if err != nil {
				t.Fatal(err)
			}
			o.AtDo = append(o.AtDo, a)
		}
	}
	s, w, err := engine.Run(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	return s, w
}

func fam(w *engine.World) *ordering.Family { return w.Family().(*ordering.Family) }

// "Add consumers (up to the partition count)": in the rush, three more
// consumers (one a partition) cut the lag in time; five more do no better,
// since the two beyond the partition count get no partition. A partition
// that changes owner resumes from the committed offset, so records handled
// since the last auto-commit are handled again.
func TestActionAddConsumersUpToPartitions(t *testing.T) {
	base, _ := run(t, nil, "")
	three, w3 := run(t, nil, "12:03:00", "consumers=+3")
	five, w5 := run(t, nil, "12:03:00", "consumers=+5")
	if three.MaxOldestAgeS >= base.MaxOldestAgeS/2 {
		t.Errorf("3 more consumers: oldest age %v s, base %v s: want it at least halved", three.MaxOldestAgeS, base.MaxOldestAgeS)
	}
	if five.MaxOldestAgeS != three.MaxOldestAgeS || five.Deliveries != three.Deliveries || five.TraceSHA256 == three.TraceSHA256 {
		t.Errorf("5 more: oldest %v s, %d deliveries; 3 more: %v s, %d: want the same figures from a different trace",
			five.MaxOldestAgeS, five.Deliveries, three.MaxOldestAgeS, three.Deliveries)
	}
	if three.DuplicateEffects == 0 || three.Lost != 0 || three.Figures["rebalances"] != 1 {
		t.Errorf("3 more: duplicates %d (records handled again after the rebalance), lost %d, rebalances %v", three.DuplicateEffects, three.Lost, three.Figures["rebalances"])
	}
	for _, tc := range []struct {
		w            *engine.World
		s            engine.Summary
		name         string
		idle, owners int
	}{
		{w3, three, "add 3 consumers @12:03:00", 0, 6},
		{w5, five, "add 5 consumers, 2 of 8 idle (6 partitions) @12:03:00", 2, 6},
	} {
		f := fam(tc.w)
		idle, owners := 0, map[string]bool{}
		for _, m := range f.C.Members(ordering.Group) {
			if len(f.C.Assignment(ordering.Group, m)) == 0 {
				idle++
			}
		}
		for p := 0; p < ordering.Partitions; p++ {
			owners[f.C.Owner(ordering.Group, kafka.TP{Topic: ordering.Topic, Partition: p})] = true
		}
		if idle != tc.idle || len(owners) != tc.owners || len(tc.s.Forks) != 1 || tc.s.Forks[0].Name != tc.name {
			t.Errorf("%s: %d idle members, %d owners, forks %+v", tc.name, idle, len(owners), tc.s.Forks)
		}
	}
}

// Stopping two of three consumers at 12:06: each finishes what it holds,
// commits and leaves, so nothing is lost, and the one left reads all six
// partitions: the lag in time grows.
func TestActionStopConsumers(t *testing.T) {
	base, _ := run(t, nil, "")
	var leaves []string
	spec := familytest.Incident(t, "ordering")
	w := familytest.World(t, spec)
	if err := w.ScheduleActions(mustClock(t, "12:06:00"), []engine.Action{{Name: "consumers", Arg: "-2"}}); err != nil {
		t.Fatal(err)
	}
	for w.Step(familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == ordering.EvLeave || e.Kind == ordering.EvMembers {
			leaves = append(leaves, w.Caption(e, d))
		}
	})) {
	}
	s := w.Summarize("")
	if len(leaves) != 3 || !strings.HasPrefix(leaves[0], "an operator stops 2 consumers") ||
		!strings.HasPrefix(leaves[1], "fulfilment-") || !strings.Contains(leaves[2], "1 consumer reads all 6 partitions") {
		t.Errorf("captions %q", leaves)
	}
	if s.MaxOldestAgeS <= base.MaxOldestAgeS || s.Lost != 0 || s.Messages != base.Messages || s.Figures["rebalances"] != 2 {
		t.Errorf("oldest %v s (base %v), lost %d, messages %d, rebalances %v", s.MaxOldestAgeS, base.MaxOldestAgeS, s.Lost, s.Messages, s.Figures["rebalances"])
	}
	if m := fam(w).C.Members(ordering.Group); len(m) != 1 || m[0] != "fulfilment-1" {
		t.Errorf("members at the end %v", m)
	}
	if wt, tk := w.Family().Counts(w); wt != 0 || tk != 0 {
		t.Errorf("counts at the end: %d waiting, %d taken", wt, tk)
	}
}

var movesRE = regexp.MustCompile(`^raise partitions 6 → 8: (\d+) of (\d+) unfinished orders' keys move @12:03:00$`)

// The lesson's "changing the partition count": at 12:03 the keyed topic
// goes from 6 to 8 partitions, and orders whose key hash(key) % 8 sends
// elsewhere are handled out of order; versions bring wrong_final back to 0.
func TestActionRaisePartitions(t *testing.T) {
	base, _ := run(t, nil, "")
	s, _ := run(t, nil, "12:03:00", "partitions=8")
	if base.Figure("out_of_order") != 0 || s.Figure("out_of_order") <= 0 || s.Figure("partitions") != 8 || s.Figure("rebalances") != 1 || s.Lost != 0 {
		t.Errorf("out_of_order %v (base %v), partitions %v, rebalances %v, lost %d", s.Figure("out_of_order"), base.Figure("out_of_order"), s.Figure("partitions"), s.Figure("rebalances"), s.Lost)
	}
	m := movesRE.FindStringSubmatch(s.Forks[0].Name)
	if m == nil {
		t.Fatalf("fork %q", s.Forks[0].Name)
	}
	moved, _ := strconv.Atoi(m[1])
	open, _ := strconv.Atoi(m[2])
	if moved == 0 || moved >= open {
		t.Errorf("%d of %d keys move: want some, not all (a key stays when hash %% 6 == hash %% 8)", moved, open)
	}
	v, _ := run(t, familytest.Set("versions", "true"), "12:03:00", "partitions=8")
	if v.Figure("wrong_final") != 0 || v.Figure("ignored_stale")+v.Figure("ignored_duplicate") <= 0 {
		t.Errorf("versions: wrong_final %v, ignored %v + %v", v.Figure("wrong_final"), v.Figure("ignored_stale"), v.Figure("ignored_duplicate"))
	}
	// at 12:05, a minute behind, the action is the repartition knob's
	// change: the same figures, the lesson's rows going backwards
	act, _ := run(t, nil, "12:05:00", "partitions=8")
	knob, _ := run(t, familytest.Set("repartition", "8"), "")
	for _, k := range []string{"out_of_order", "wrong_final", "partitions", "rebalances"} {
		if act.Figure(k) != knob.Figure(k) {
			t.Errorf("%s: %d by the action at 12:05, %d by the knob", k, act.Figure(k), knob.Figure(k))
		}
	}
	if act.Figure("wrong_final") == 0 || act.DuplicateEffects != knob.DuplicateEffects {
		t.Errorf("at 12:05: wrong_final %d, duplicates %d (knob %d)", act.Figure("wrong_final"), act.DuplicateEffects, knob.DuplicateEffects)
	}
	// unkeyed, there is no key to move
	k, _ := run(t, familytest.Set("key", "none"), "12:03:00", "partitions=8")
	if k.Forks[0].Name != "raise partitions 6 → 8 (unkeyed: no key to move) @12:03:00" {
		t.Errorf("unkeyed fork %q", k.Forks[0].Name)
	}
}

var mustClock = familytest.Clock

// Refusals name what is wrong.
func TestActionRefusals(t *testing.T) {
	spec := familytest.Incident(t, "ordering")
	familytest.Refused(t, spec, [][2]string{
		{"consumers", "give consumers=+N or -N"},
		{"consumers=3", "want +N to start consumers or -N to stop them"},
		{"consumers=+0", "want +N or -N with N from 1 to 16"},
		{"consumers=+x", "want +N or -N with N from 1 to 16"},
		{"consumers=+14", "the group has had 3 consumers; 14 more is more than 16"},
		{"consumers=-3", "the group has 3 running consumers; stopping 3 leaves none to read"},
		{"partitions=4", "Kafka cannot lower a topic's partition count (order-events has 6)"},
		{"partitions=6", "order-events already has 6 partitions"},
		{"partitions=2000", "a number from 1 to 1024"},
		{"partitions=+2", "want the new partition count"},
		{"partitions=0", "want the new partition count"},
		{"rebalance", "incident ordering's actions are consumers, partitions"},
	})
}

// An action checked when the fork was made, and no change by its moment:
// the knob's repartition took the topic to 8 at 12:05, so partitions=7 at
// 12:06 is told as refused, and the topic keeps its 8.
func TestActionPartitionsOvertaken(t *testing.T) {
	spec := familytest.Incident(t, "ordering")
	w := familytest.World(t, spec, familytest.Set("repartition", "8")...)
	if err := w.ScheduleActions(mustClock(t, "12:06:00"), []engine.Action{{Name: "partitions", Arg: "7"}}); err != nil {
		t.Fatal(err)
	}
	var refused string
	for w.Step(familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == ordering.EvRepartition && e.T == mustClock(t, "12:06:00") {
			refused = w.Caption(e, d)
		}
	})) {
	}
	if want := "an operator asks for 7 partitions, and nothing changes: Kafka cannot lower a topic's partition count (order-events has 8)"; !strings.HasPrefix(refused, want) {
		t.Errorf("caption %q, want %q…", refused, want)
	}
	if s := w.Summarize(""); s.Figure("partitions") != 8 || s.Figure("rebalances") != 1 {
		t.Errorf("partitions %v rebalances %v", s.Figure("partitions"), s.Figure("rebalances"))
	}
}

// A fork with an action is a share code that plays the same run again;
// forks with actions at positions play as the explorer made them.
func TestActionShareCode(t *testing.T) {
	spec := familytest.Incident(t, "ordering")
	for _, do := range [][]engine.Action{
		{{Name: "consumers", Arg: "+3"}},
		{{Name: "partitions", Arg: "12"}, {Name: "consumers", Arg: "-1"}},
	} {
		b, want, code := familytest.ForkCode(t, spec, mustClock(t, "12:04:00"), do)
		familytest.CodeRoundTrip(t, spec, code, b.Name, want)
		if !strings.Contains(code, "do=") {
			t.Errorf("code %s carries no action", code)
		}
	}
}

// Any argument is refused in one line naming the action, or taken by the
// world with its captions rendered.
func FuzzActionArgs(f *testing.F) {
	familytest.FuzzActionArg(f, familytest.Incident(f, "ordering"), familytest.FuzzArg{Until: 12*engine.Hour + 3*engine.Minute, Steps: 400},
		"consumers=+3", "consumers=-2", "consumers=+16", "consumers=-0", "consumers=+1e3", "partitions=8", "partitions=1024", "partitions=06", "partitions=-8", "partitions=99999999999999999999")
}

// Two stops checked at the start, and at the second's moment only one
// consumer runs: it keeps reading, and the caption says nothing changed.
func TestActionStopOvertaken(t *testing.T) {
	spec := familytest.Incident(t, "ordering")
	w := familytest.World(t, spec)
	for _, at := range []string{"12:06:00", "12:07:00"} {
		if err := w.ScheduleActions(mustClock(t, at), []engine.Action{{Name: "consumers", Arg: "-2"}}); err != nil {
			t.Fatal(err)
		}
	}
	var second string
	for w.Step(familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == ordering.EvMembers && e.T == mustClock(t, "12:07:00") {
			second = w.Caption(e, d)
		}
	})) {
	}
	if !strings.HasPrefix(second, "an operator's change of consumers finds nothing to change") || !strings.Contains(second, "1 consumer reads all 6 partitions") {
		t.Errorf("caption %q", second)
	}
	if s := w.Summarize(""); s.Lost != 0 || s.Figure("rebalances") != 2 {
		t.Errorf("lost %d rebalances %v", s.Lost, s.Figure("rebalances"))
	}
}
