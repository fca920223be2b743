package tui

import (
	"strings"
	"testing"
	"time"

	"inflight/engine"
)

// TestForkIsOneMoment: the README's cure in six keys, and the same fork
// reached by `/`, stand before 19:52:00's events and fix order 14 (136
// emails, order 14 one); a fork after some of them says so in its name
// and form, and is another experiment.
func TestForkIsOneMoment(t *testing.T) {
	cure := []string{"f", "6", "0", "s", "enter"}
	type result struct {
		code, name string
	}
	cases := []struct {
		name          string
		keys          []string
		pos           int64  // the fork's event
		named         string // the branch's name
		where         string // in the form's words
		effects, of14 int
	}{
		{"README's six keys", append([]string{"]"}, cure...), 178, "visibility_timeout=60s @19:52:00", "before all 3 events at 19:52:00", 136, 1},
		{"/19:52", append([]string{"/", "1", "9", ":", "5", "2", "enter"}, cure...), 178, "visibility_timeout=60s @19:52:00", "before all 3 events at 19:52:00", 136, 1},
		{"bookmark, back a tick and on", append([]string{"]", ",", "."}, cure...), 178, "visibility_timeout=60s @19:52:00", "before all 3 events at 19:52:00", 136, 1},
		{"after the publish", append([]string{"/", "1", "9", ":", "5", "2", "enter", "l"}, cure...), 179, "visibility_timeout=60s @19:52:00 #179", "after 1 of the 3 events at 19:52:00", 136, 1},
		// order 14 already handed over with a 30 s lease: the fork cannot save it
		{"after the delivery", append([]string{"]", "h"}, cure...), 180, "visibility_timeout=60s @19:52:00 #180", "after 2 of the 3 events at 19:52:00", 137, 2},
		{"after the email", append([]string{"]", "h", "l"}, cure...), 181, "visibility_timeout=60s @19:52:00 #181", "after all 3 events at 19:52:00", 137, 2},
		// a name's moment, typed to `/`, is that exact moment again
		{"/19:52:00 #181", append(append([]string{"/"}, strings.Split("19:52:00 #181", "")...), append([]string{"enter"}, cure...)...), 181, "visibility_timeout=60s @19:52:00 #181", "after all 3 events at 19:52:00", 137, 2},
		{"/19:52 #178", append(append([]string{"/"}, strings.Split("19:52 #178", "")...), append([]string{"enter"}, cure...)...), 178, "visibility_timeout=60s @19:52:00", "before all 3 events at 19:52:00", 136, 1},
	}
	byPos := map[int64]result{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keys := tc.keys
			form := press(start(t), keys[:len(keys)-len(cure)+1]...) // the form open
			if form.state != stateFork {
				t.Fatalf("state %s", form.state)
			}
			v := form.fork.View()
			if !strings.Contains(v, tc.where) {
				t.Fatalf("the form does not say %q:\n%s", tc.where, v)
			}
			if typed := typeText(form, "60s").fork.View(); !strings.Contains(typed, "default: "+tc.named+"\n") {
				t.Fatalf("the form's default name is not %q:\n%s", tc.named, typed)
			}
			// the form's stated moment leads back to its event
			title := strings.SplitN(v, "\n", 2)[0]
			at := strings.TrimSpace(title[strings.Index(title, " at ")+4 : strings.Index(title, " on ")])
			mo, err := engine.ParseForkMoment(at)
			if err != nil {
				t.Fatalf("title %q: %v", title, err)
			}
			if p := form.x.PosOfMoment(form.x.Branch(), mo); p != tc.pos || form.fork.pos != tc.pos {
				t.Fatalf("title %q leads to event %d, the form forks at %d, want %d", title, p, form.fork.pos, tc.pos)
			}
			m := press(form, cure[1:]...)
			if m.state != stateMain {
				t.Fatalf("state %s: %s", m.state, m.fork.err)
			}
			b := m.x.Branch()
			if b.ForkPos != tc.pos || b.Name != tc.named || b.ForkAt != clock(t, "19:52:00") {
				t.Fatalf("branch %q at event %d (%s), want %q at %d", b.Name, b.ForkPos, b.ForkAt.Short(), tc.named, tc.pos)
			}
			if h := m.mainView().viewHeader(); !strings.Contains(h, tc.named) {
				t.Fatalf("header %q", h)
			}
			m = press(m, "G")
			w := m.x.World()
			o14, _ := w.Msg(14)
			if int(w.Stats.Effects) != tc.effects || int(o14.Effects) != tc.of14 {
				t.Fatalf("%d emails, order 14 %d; want %d and %d", w.Stats.Effects, o14.Effects, tc.effects, tc.of14)
			}
			// headless, the code plays the same
			c := m.x.Code()
			sum, _, err := engine.ReplayCode(m.x.Spec, c, engine.ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Effects != int64(tc.effects) {
				t.Fatalf("run --code %s: %d emails", c, sum.Effects)
			}
			// and says where its fork stands, as the explorer names it
			if len(sum.Forks) != 1 || sum.Forks[0].Pos != tc.pos || sum.Forks[0].Name != tc.named || !strings.HasSuffix(tc.named, " "+sum.Forks[0].Moment) {
				t.Fatalf("run --code %s: forks %+v", c, sum.Forks)
			}
			r := result{c.String(), b.Name}
			if old, ok := byPos[tc.pos]; ok && old != r {
				t.Fatalf("two ways to the fork at %d differ: %+v and %+v", tc.pos, old, r)
			}
			for p, old := range byPos {
				if p != tc.pos && (old.name == r.name || old.code == r.code) {
					t.Fatalf("forks at events %d and %d share %+v", p, tc.pos, r)
				}
			}
			byPos[tc.pos] = r
		})
	}
}

// `/` with a moment whose count and clock disagree goes by the count and
// says so; a count past the branch's end says where it ends.
func TestJumpToMomentRefusals(t *testing.T) {
	jump := func(typed string) Model {
		return press(start(t), append(append([]string{"/"}, strings.Split(typed, "")...), "enter")...)
	}
	m := jump("19:52:00 #200")
	if m.x.Pos() != 200 || !strings.Contains(m.flash, "#200 is at") || !strings.Contains(m.flash, "#178 to #181") {
		t.Fatalf("at %d: %q", m.x.Pos(), m.flash)
	}
	m = jump("19:52:00 #99999")
	if !strings.Contains(m.flash, "the branch ends at event") {
		t.Fatalf("at %d: %q", m.x.Pos(), m.flash)
	}
	m = jump("19:52:00 #x")
	if !strings.Contains(m.flash, "an event count") {
		t.Fatalf("%q", m.flash)
	}
}

// `f` reads back from checkpoints, so it is a job: Update only starts it,
// the progress line says so, esc cancels it (no form, the explorer as it
// was) and a late end changes nothing; let run, the form opens.
func TestForkFormOpensByJob(t *testing.T) {
	m, release := gated(press(start(t), "]"))
	defer release()
	x0, pos := m.x, m.x.Pos()
	m, _ = send(t, m, "f")
	j := m.jobs.cur
	if j == nil || m.state != stateMain {
		t.Fatalf("f opened the form inside Update (job %v, state %s)", j, m.state)
	}
	if v := m.View(); !strings.Contains(v, "opening the fork form") || !strings.Contains(v, "esc cancels") {
		t.Fatalf("no progress line while the form's job runs:\n%s", v)
	}
	m, _ = send(t, m, "esc")
	if m.jobs.cur != nil || m.state != stateMain || m.x != x0 || m.x.Pos() != pos {
		t.Fatalf("esc: job %v, state %s, explorer swapped %v, pos %d (was %d)", m.jobs.cur, m.state, m.x != x0, m.x.Pos(), pos)
	}
	release()
	<-j.done
	if nm, _ := m.Update(jobDoneMsg{id: j.id}); nm.(Model).state != stateMain {
		t.Fatal("a cancelled form's job opened the form")
	}
	if m = press(m, "f"); m.state != stateFork || m.x != x0 || m.fork.pos != 178 {
		t.Fatalf("f let run: state %s, explorer swapped %v, fork at %d", m.state, m.x != x0, m.fork.pos)
	}
}

// BenchmarkForkFormOpen is `f` on the big run, 10,000 queued, as Update
// sees it: the key starts the job that finds the clock's events either
// side of the cursor and the last decision (on a clone, off the loop),
// and the job's end builds the form. ns/op is both of Update's parts;
// key-ms and open-ms are each, job-ms is the job's own work, off the loop.
//
//	go test ./tui -run '^$' -bench ForkFormOpen -benchtime 50x
func BenchmarkForkFormOpen(b *testing.B) {
	m := bigModel(b)
	var key, open, work time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		nm, _ := m.Update(keyMsg("f"))
		t1 := time.Now()
		m = nm.(Model)
		b.StopTimer()
		j := m.jobs.cur
		if j == nil {
			b.Fatal("f started no job")
		}
		<-j.done
		t2 := time.Now()
		b.StartTimer()
		nm, _ = m.Update(jobDoneMsg{id: j.id})
		t3 := time.Now()
		b.StopTimer()
		m = nm.(Model)
		if m.state != stateFork {
			b.Fatalf("state %s", m.state)
		}
		nm, _ = m.Update(keyMsg("esc"))
		m = nm.(Model)
		key, work, open = key+t1.Sub(t0), work+t2.Sub(t1), open+t3.Sub(t2)
		b.StartTimer()
	}
	n := float64(b.N) * float64(time.Millisecond)
	b.ReportMetric(float64(key)/n, "key-ms")
	b.ReportMetric(float64(open)/n, "open-ms")
	b.ReportMetric(float64(work)/n, "job-ms")
}
