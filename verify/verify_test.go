package verify

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"inflight/verify/fakeredis"
)

// TestMain lets the test binary be the consumer process: Run re-executes
// it with ConsumerEnv set, as `inflight verify` re-executes inflight.
func TestMain(m *testing.M) {
	if IsConsumer() {
		os.Exit(ConsumerMain())
	}
	if code, ok := fakeredis.FromEnv(); ok { // a stand-in redis-server: see group_unix_test.go
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func needRedis(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed: apt-get install redis-server (CI installs it)")
	}
}

func self(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}

// TestCashbackReal is the lesson's real test at 1,000 events against a
// private redis-server: without dedupe every crash credits one event
// twice, with dedupe the balance is exact, and both equal the model's.
func TestCashbackReal(t *testing.T) {
	needRedis(t)
	var out, log bytes.Buffer
	start := time.Now()
	res, err := Run(context.Background(), Options{Events: 1000, CrashP: 0.02, Consumer: self(t), Out: &out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s(%.2fs)", out.String(), log.String(), time.Since(start).Seconds())
	if len(res.Sides) != 2 {
		t.Fatalf("%d sides", len(res.Sides))
	}
	f, tr := res.Sides[0], res.Sides[1]
	if f.Dedupe || !tr.Dedupe {
		t.Fatal("sides out of order")
	}
	if f.Crashes == 0 || tr.Crashes == 0 {
		t.Fatalf("no crashes (%d, %d): the test shows nothing", f.Crashes, tr.Crashes)
	}
	if f.Expected != 100000 || tr.Expected != 100000 {
		t.Fatalf("expected balances %d, %d", f.Expected, tr.Expected)
	}
	// dedupe=False: actual − expected = 100 × crashes = the model's
	if f.Actual-f.Expected != 100*f.Crashes || f.Actual != f.Model.Balance || f.Crashes != f.Model.NCrash {
		t.Errorf("dedupe=False: actual %d, crashes %d; model balance %d, crashes %d", f.Actual, f.Crashes, f.Model.Balance, f.Model.NCrash)
	}
	// dedupe=True: actual = expected = the model's
	if tr.Actual != tr.Expected || tr.Model.Balance != tr.Expected || tr.Crashes != tr.Model.NCrash {
		t.Errorf("dedupe=True: actual %d, crashes %d; model balance %d, crashes %d", tr.Actual, tr.Crashes, tr.Model.Balance, tr.Model.NCrash)
	}
	for _, s := range res.Sides {
		if s.Restarts != int(s.Crashes)+1 || s.Pending != 0 || len(s.Problems) != 0 {
			t.Errorf("%s: %d processes for %d crashes, %d pending, problems %q", dedupeLabel(s.Dedupe), s.Restarts, s.Crashes, s.Pending, s.Problems)
		}
	}
	if !res.Agree() || !strings.Contains(out.String(), "reality and model agree") {
		t.Errorf("no agreement:\n%s", out.String())
	}
	for _, want := range []string{"dedupe=False: crashes=", "dedupe=True:  crashes=", "expected balance=100000", "simulator: crashes="} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// liar is a model that schedules crashes honestly but misstates its
// balance: the comparison must catch it.
type liar struct{ Model }

func (l liar) Run(dedupe bool) (ModelRun, error) {
	r, err := l.Model.Run(dedupe)
	r.Balance += 100
	return r, err
}

// TestDisagreement checks that a model whose figures differ from reality
// is reported, not excused.
func TestDisagreement(t *testing.T) {
	needRedis(t)
	var out bytes.Buffer
	m, _, err := NewModel(300, 0.03, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Events: 300, CrashP: 0.03, Consumer: self(t), Model: liar{m}, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	if res.Agree() || !strings.Contains(out.String(), "DISAGREE") || !strings.Contains(out.String(), "real balance") {
		t.Fatalf("a wrong model balance went unnoticed:\n%s", out.String())
	}
	for _, s := range res.Sides {
		if s.Crashes != s.Model.NCrash || s.Crashes == 0 || len(s.Problems) != 1 {
			t.Errorf("%s: crashes %d (model %d), problems %q", dedupeLabel(s.Dedupe), s.Crashes, s.Model.NCrash, s.Problems)
		}
	}
}

func TestCrashWriter(t *testing.T) {
	w := &crashWriter{}
	trace := `{"pos":1,"t":"10:00:00","kind":"deliver","message":3,"delivery":1,"actor":"c","caption":"x"}
{"pos":2,"t":"10:00:00","kind":"crash","message":3,"delivery":1,"actor":"c","caption":"\"kind\":\"crash\""}
{"pos":3,"t":"10:00:01","kind":"effect","message":4,"delivery":2,"actor":"c","caption":"says \"kind\":\"crash\""}
{"pos":4,"t":"10:00:02","kind":"crash","message":0,"delivery":2,"actor":"c","caption":"y"}`
	// in awkward pieces, as a buffered writer might hand them over
	for i := 0; i < len(trace); i += 7 {
		w.Write([]byte(trace[i:min(i+7, len(trace))]))
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	want := []Crash{{3, 1}, {0, 2}}
	if len(w.crashes) != 2 || w.crashes[0] != want[0] || w.crashes[1] != want[1] {
		t.Fatalf("crashes %v, want %v", w.crashes, want)
	}
	bad := &crashWriter{}
	bad.Write([]byte(`{"pos":9,"kind":"crash","actor":"c"}` + "\n"))
	if bad.close() == nil {
		t.Fatal("a crash without message and delivery was accepted")
	}
}

func TestNoRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Run(context.Background(), Options{Events: 10, CrashP: 0.01, Consumer: self(t)})
	if err != ErrNoRedisServer || !strings.Contains(err.Error(), "apt-get install redis-server") {
		t.Fatalf("err %v", err)
	}
}

// TestModelSchedule: the simulator's crash schedule for the lesson's run
// is the 55 crashes of its summary, each a delivery of a real entry.
func TestModelSchedule(t *testing.T) {
	m, seed, err := NewModel(5000, 0.01, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, dedupe := range []bool{false, true} {
		r, err := m.Run(dedupe)
		if err != nil {
			t.Fatal(err)
		}
		// the model credits Amount per event, once more per crash
		want := int64(5000 * Amount)
		if !dedupe {
			want += Amount * r.NCrash
		}
		if int64(len(r.Crashes)) != r.NCrash || r.NCrash != 55 || r.Balance != want {
			t.Fatalf("seed %d dedupe=%v: %d scheduled, figures crashes %d balance %d", seed, dedupe, len(r.Crashes), r.NCrash, r.Balance)
		}
		for _, c := range r.Crashes {
			if c.Entry < 0 || c.Entry >= 5000 || c.Delivery < 1 {
				t.Fatalf("crash %+v", c)
			}
		}
	}
}
