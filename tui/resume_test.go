package tui

import (
	"bytes"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/internal/savedtree"
)

// workOfFork is the work of a session that forked visibility_timeout=60s
// at the first bookmark and has the branch list open.
func workOfFork(t testing.TB) []byte {
	t.Helper()
	const tree = savedtree.Header + "\nbranch 0 thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=vt60\n" +
		"cursor 1 thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=vt60\n"
	return []byte(workHeader + "\nscreen {\"kind\":\"branches\",\"row\":1}\ndropped 0\n" + tree)
}

func TestParseWorkRoundTrip(t *testing.T) {
	w, err := ParseWork(workOfFork(t))
	if err != nil {
		t.Fatal(err)
	}
	if w.Branches() != 1 || w.Screen.Kind != "branches" || w.Screen.Row != 1 || w.Tree.Cursor != 1 {
		t.Fatalf("parsed %+v", w)
	}
	if got := w.Format(); !bytes.Equal(got, workOfFork(t)) {
		t.Fatalf("formats as\n%s", got)
	}
}

// A work that is not one this version writes is refused, saying why.
func TestParseWorkRefuses(t *testing.T) {
	good := string(workOfFork(t))
	for name, tc := range map[string]struct{ data, want string }{
		"header":           {strings.Replace(good, workHeader, "inflight work 2", 1), "line 1"},
		"typed screen":     {strings.Replace(good, `{"kind":"branches","row":1}`, `{"kind":"jump","text":"19:52"}`, 1), "not one a reconnect opens"},
		"unknown field":    {strings.Replace(good, `"row":1`, `"row":1,"evil":2`, 1), "not one this version writes"},
		"screen too long":  {strings.Replace(good, `"row":1`, `"row":1`+strings.Repeat(" ", maxScreenLine), 1), "line 2"},
		"row past range":   {strings.Replace(good, `"row":1`, `"row":99999999`, 1), "out of range"},
		"compare past":     {strings.Replace(good, `{"kind":"branches","row":1}`, `{"kind":"compare","a":0,"b":5}`, 1), "compare 0 with 5"},
		"dropped":          {strings.Replace(good, "dropped 0", "dropped -1", 1), "line 3"},
		"unknown incident": {strings.ReplaceAll(good, "thursday@1", "nosuch@1"), "unknown incident"},
		"tree":             {strings.Replace(good, "cursor 1", "cursor 2", 1), "the tree: line"},
		"too big":          {good + strings.Repeat("x", MaxWorkBytes), "a kept work has at most"},
	} {
		if _, err := ParseWork([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// WorkOf keeps a tree within the size it is given, its first branches,
// and says how many it left out; what it formats parses back.
func TestWorkOfFitsTheCap(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	x := m.x
	for i := range 30 {
		x.Switch(x.Branches()[0])
		x.Goto(int64(100 + i))
		if _, err := x.Fork(engine.ForkOptions{Name: "vt" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Pos: x.Pos(),
			Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}}); err != nil {
			t.Fatal(err)
		}
	}
	s := &session{m: m}
	all, ok := WorkOf(s, MaxWorkBytes)
	if !ok || all.Branches() != 30 || all.Dropped != 0 {
		t.Fatalf("the whole tree: %d branches, %d dropped, %v", all.Branches(), all.Dropped, ok)
	}
	limit := len(all.Format()) / 3
	w, ok := WorkOf(s, limit)
	if !ok || len(w.Format()) > limit || w.Branches()+w.Dropped != 30 || w.Dropped == 0 {
		t.Fatalf("in %d bytes: %d bytes, %d branches, %d dropped, %v", limit, len(w.Format()), w.Branches(), w.Dropped, ok)
	}
	if _, err := ParseWork(w.Format()); err != nil {
		t.Fatal(err)
	}
	if _, ok := WorkOf(&session{m: Model{}}, MaxWorkBytes); ok {
		t.Fatal("work of a model without an explorer")
	}
}

func FuzzParseWork(f *testing.F) {
	f.Add(workOfFork(f))
	f.Add([]byte(workHeader + "\nscreen {}\ndropped 0\n" + savedtree.Header + "\ncursor 0 thursday@1#12.0badc0de\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWork(data)
		if err != nil {
			return
		}
		again, err := ParseWork(w.Format())
		if err != nil {
			t.Fatalf("a parsed work does not parse back: %v", err)
		}
		if !bytes.Equal(again.Format(), w.Format()) {
			t.Fatal("a parsed work formats two ways")
		}
	})
}
