package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"inflight/tui"
)

// keptWork is a real work's record text for id, written at saved.
func keptWork(t testing.TB, id string, saved time.Time) []byte {
	t.Helper()
	const work = "inflight work 1\nscreen {\"kind\":\"branches\",\"row\":1}\ndropped 0\ninflight branches 1\n" +
		"branch 0 thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=vt60\n" +
		"cursor 1 thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=vt60\n"
	w, err := tui.ParseWork([]byte(work))
	if err != nil {
		t.Fatal(err)
	}
	return formatKept(id, saved, w)
}

// The store keeps at most its cap of keys, the oldest going first, and
// nothing past the grace period.
func TestKeptStoreBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	k := newKeptStore(time.Minute, 3)
	t.Cleanup(k.close)
	k.setClock(func() time.Time { return now })
	for i := range 5 {
		id := fmt.Sprintf("%032x", i)
		k.put(id, keptWork(t, id, now), now.Add(time.Duration(i)*time.Second))
	}
	if k.len() != 3 || k.has(fmt.Sprintf("%032x", 0)) || k.has(fmt.Sprintf("%032x", 1)) || !k.has(fmt.Sprintf("%032x", 4)) {
		t.Fatalf("kept %d keys, the oldest not evicted", k.len())
	}
	if _, ok := k.take(fmt.Sprintf("%032x", 2)); !ok || k.has(fmt.Sprintf("%032x", 2)) {
		t.Fatal("take did not take")
	}
	now = now.Add(time.Minute + 3*time.Second) // past key 3's grace, within key 4's
	if k.len() != 1 || !k.has(fmt.Sprintf("%032x", 4)) {
		t.Fatalf("%d keys kept past the grace period", k.len())
	}
}

// A record is read for its own key only, within the grace period.
func TestParseKeptRefuses(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	id, other := strings.Repeat("a", 32), strings.Repeat("b", 32)
	good := keptWork(t, id, now.Add(-time.Second))
	if w, saved, err := parseKept(good, id, now, time.Minute); err != nil || w.Branches() != 1 || !saved.Equal(now.Add(-time.Second)) {
		t.Fatalf("a good record: %v", err)
	}
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"another key's": {keptWork(t, other, now), "not this key's"},
		"expired":       {keptWork(t, id, now.Add(-2*time.Minute)), "past the grace period"},
		"future":        {keptWork(t, id, now.Add(time.Hour)), "from now"},
		"header":        {[]byte(strings.Replace(string(good), keptHeader, "inflight kept 2", 1)), "line 1"},
		"saved":         {[]byte(strings.Replace(string(good), "saved ", "saved -", 1)), "line 3"},
		"too big":       {append(good, strings.Repeat("x", maxKeptBytes)...), "a kept work has at most"},
		"the work":      {[]byte(strings.Replace(string(good), "dropped 0", "dropped x", 1)), "line 3: want \"dropped N\""},
	} {
		if _, _, err := parseKept(tc.data, id, now, time.Minute); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

func FuzzParseKept(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	id := strings.Repeat("a", 32)
	f.Add(keptWork(f, id, now))
	f.Add(keptWork(f, strings.Repeat("b", 32), now))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, saved, err := parseKept(data, id, now, time.Minute)
		if err != nil {
			return
		}
		if _, _, err := parseKept(formatKept(id, saved, w), id, now, time.Minute); err != nil {
			t.Fatalf("a parsed record does not parse back: %v", err)
		}
	})
}
