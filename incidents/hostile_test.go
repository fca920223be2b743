package incidents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// measure runs f once and returns the bytes it allocated and how long it
// took. Allocation is the bound these tests assert; time only backs it up.
func measure(f func()) (uint64, time.Duration) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	f()
	d := time.Since(t0)
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc, d
}

// aliasBomb is nine levels of nine aliases: decoded naively, 9^9 values.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("id: bomb\nexpect:\n a: &a [x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < 9; i++ {
		n, p := string(rune('a'+i)), string(rune('a'+i-1))
		b.WriteString(" " + n + ": &" + n + " [" + strings.TrimSuffix(strings.Repeat("*"+p+",", 9), ",") + "]\n")
	}
	return b.String()
}

func indentNest(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

// A wall-clock backstop only: the slowest case here takes about 0.2 s on a
// loaded two-core machine (most take a few ms); the bound these tests
// assert is each case's allocation cap.
const hostileTimeCap = 2 * time.Second

// Each hostile file is refused before it is parsed: quickly, in bounded
// memory, with a position where the file has one.
func TestHostileFilesRefused(t *testing.T) {
	aliasList := "expect:\n  a: &a [" + strings.Repeat("1,", 30000) + "1]\n"
	for i := 0; i < 30; i++ {
		aliasList += fmt.Sprintf("  b%d: *a\n", i)
	}
	cases := []struct {
		name, src       string
		wantPos, wantIn string
		allocCap        uint64
	}{
		{"alias bomb", aliasBomb(), "x.yaml:7:", "more than 32 aliases", 4 << 20},
		{"64 KB of [", strings.Repeat("[", 32768) + strings.Repeat("]", 32768), "x.yaml:1:17:", "nested more than 16 levels", 40 << 20},
		{"64 KB of {a: ", strings.Repeat("{a: ", 16384), "x.yaml:1:", "nested more than 16 levels", 40 << 20},
		{"64 KB of - ", strings.Repeat("- ", 32768), "x.yaml:1:", "nested more than 16 levels", 40 << 20},
		{"indented maps 360 deep", indentNest(360), "x.yaml:17:", "nested more than 16 levels", 40 << 20},
		{"list expanded by 30 aliases", aliasList, "x.yaml:", "more than 100000 values once aliases are expanded", 120 << 20},
		{"too many tokens", strings.Repeat("a: b\n", 60000), "x.yaml:50001:", "more than 100000 YAML tokens", 1 << 20},
		{"one long flow line", "[" + strings.Repeat("1,", 400000) + "]", "x.yaml:1:", "more than 100000 YAML tokens", 1 << 20},
		{"over the size cap", strings.Repeat("#", MaxFileBytes+1), "x.yaml: ", "at most 1048576", 1 << 20},
		{"not UTF-8", "id: a\ntitle: \xff\xfe\n", "x.yaml:2:8:", "not UTF-8", 1 << 20},
		{"a tag", "id: !!binary aGk=\n", "x.yaml:1:5:", "no YAML tags", 1 << 20},
		{"merge key", "a: &a {x: 1}\nb:\n  <<: *a\n", "x.yaml:3:3:", "merge keys", 1 << 20},
		{"two documents", minimal + "---\n" + minimal, "x.yaml:8:1:", "one incident per file", 2 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc, took := measure(func() { _, err = Parse("x.yaml", []byte(tc.src)) })
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), tc.wantPos) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("error %q: want it to start %q and mention %q", firstLine(err), tc.wantPos, tc.wantIn)
			}
			if alloc > tc.allocCap {
				t.Errorf("allocated %d MB, cap %d MB", alloc>>20, tc.allocCap>>20)
			}
			if took > hostileTimeCap {
				t.Errorf("took %v", took)
			}
			t.Logf("%s: %d KB allocated, %v", firstLine(err), alloc>>10, took)
		})
	}
}

func firstLine(err error) string { return strings.SplitN(err.Error(), "\n", 2)[0] }

// Load refuses what is not a regular file, or is too big, before reading
// it: /dev/zero would be read forever, a FIFO would wait for a writer.
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	cases := []struct{ path, want string }{
		{dir, "a directory"},
		{big, "at most 1048576"},
		{os.DevNull, "a device"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct{ path, want string }{"/dev/zero", "a device"})
	}
	if fifo, ok := makeFIFO(t, dir); ok {
		cases = append(cases, struct{ path, want string }{fifo, "named pipe"})
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			var err error
			alloc, took := measure(func() { _, err = Load(tc.path) })
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.path+": ") {
				t.Fatalf("Load(%s) = %v, want %q", tc.path, err, tc.want)
			}
			if alloc > 1<<20 || took > hostileTimeCap {
				t.Errorf("%d KB, %v", alloc>>10, took)
			}
		})
	}
	// a regular file is read, and a symlink to one is fine
	good := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(good, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(good, link); err == nil {
		if _, err := Load(link); err != nil {
			t.Errorf("symlink to a regular file: %v", err)
		}
	}
	if _, err := Load(good); err != nil {
		t.Fatal(err)
	}
}

// Every value that used to be silently changed (or wrapped) is refused,
// naming the field and pointing at its line.
func TestValuesAreNotSilentlyChanged(t *testing.T) {
	cases := []struct {
		name, from, to, wantPos, wantIn string
	}{
		{"seed 1.5", "seed: 7", "seed: 1.5", "tiny.yaml:4:", "seed: want a whole number from 0 to 18446744073709551615, got 1.5"},
		{"seed 2^64", "seed: 7", "seed: 18446744073709551616", "tiny.yaml:4:", "seed: 18446744073709551616 does not fit"},
		{"seed negative", "seed: 7", "seed: -1", "tiny.yaml:4:", "seed: want a whole number"},
		{"seed null", "seed: 7", "seed: null", "tiny.yaml:4:", "seed: want a whole number from 0 to 18446744073709551615, got nothing (null)"},
		{"count 60.9", "count: 3", "count: 60.9", "tiny.yaml:6:", "sources[0].count: want a whole number, got 60.9"},
		{"count null", "count: 3", "count: null", "tiny.yaml:6:", "sources[0].count: want a whole number, got nothing (null)"},
		{"count text", "count: 3", `count: "3"`, "tiny.yaml:6:", `sources[0].count: want a whole number, got text "3"`},
		{"count 2^63", "count: 3", "count: 9223372036854775808", "tiny.yaml:6:", "sources[0].count: want a whole number from"},
		{"per_box 2.9", "per_box: 1", "per_box: 2.9", "tiny.yaml:7:", "workers.per_box: want a whole number, got 2.9"},
		{"featured int32 overflow", "seed: 7", "seed: 7\nfeatured: 2147483648", "tiny.yaml:5:", "featured: want a whole number from -2147483648 to 2147483647"},
		{"poison not a bool", "count: 3", "count: 3, poison: 1", "tiny.yaml:6:", "sources[0].poison: want true or false, got 1"},
		{"start past the clock bound", `start: "10:00:00"` + "\nseed", `start: "2562047788016:00"` + "\nseed", "tiny.yaml:3:8:", `clock "2562047788016:00": hours must be below 100000`},
		{"every 30s45s", "every: 1s", "every: 30s45s", "tiny.yaml:6:", `duration "30s45s": the unit s comes twice`},
		{"every past the bound", "every: 1s", "every: 1001h", "tiny.yaml:6:", `duration "1001h": at most 1000h0m0s`},
		{"knob NaN", "latency_max: 2s}", "latency_max: 2s, wedge_p: .nan}", "tiny.yaml:8:", `knob wedge_p=NaN: "NaN" is not a probability`},
		{"knob NaN text", "latency_max: 2s}", "latency_max: 2s, wedge_p: NaN}", "tiny.yaml:8:", `knob wedge_p=NaN: "NaN" is not a probability`},
		{"knob 30s45s", "latency_max: 2s}", "latency_max: 2s}\nbroker: {visibility_timeout: 30s45s}", "tiny.yaml:9:", `duration "30s45s": the unit s comes twice`},
		{"knob a list", "latency_max: 2s}", "latency_max: [2s]}", "tiny.yaml:8:", "provider.latency_max: want a single value, got a list"},
		{"expect NaN", "latency_max: 2s}", "latency_max: 2s}\nexpect: {busy: .nan}", "tiny.yaml:9:", `expect busy: "NaN" is not a number`},
		{"expect Inf bound", "latency_max: 2s}", "latency_max: 2s}\nexpect: {busy: \"<=Inf\"}", "tiny.yaml:9:", `expect busy: bound "<=Inf": "Inf" is not a number`},
		{"expect nested list", "latency_max: 2s}", "latency_max: 2s}\nexpect: {alerts: [[a]]}", "tiny.yaml:9:", "expect.alerts: want a value or a list of values"},
		{"latency_max below min", "latency_max: 2s}", "latency_max: 500ms}", "tiny.yaml:8:42:", "latency_max (500ms) is below latency_min (1s)"},
		{"featured negative", "seed: 7", "seed: 7\nfeatured: -3", "tiny.yaml:5:", "featured is a message number"},
	}
	base := strings.Replace(minimal, `start: "10:00:00"`+"\n", `start: "10:00:00"`+"\nseed: 7\n", 1)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(base, tc.from, tc.to, 1)
			if src == base {
				t.Fatalf("%q not in the base file", tc.from)
			}
			_, err := Parse("tiny.yaml", []byte(src))
			if err == nil {
				t.Fatalf("accepted:\n%s", src)
			}
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Errorf("want exactly one problem, got %v", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantPos) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("error %q: want it to start %q and say %q", err, tc.wantPos, tc.wantIn)
			}
		})
	}
	// the base file itself is fine
	if _, err := Parse("tiny.yaml", []byte(base)); err != nil {
		t.Fatal(err)
	}
}

// Control characters and escapes never reach a terminal: a file's text is
// refused with the field and line, and the message shows the character as
// an escape, not as itself.
func TestControlCharactersRefused(t *testing.T) {
	cases := []struct{ name, line, wantPos, wantIn string }{
		{"title OSC and clear", `title: "t\x1b]0;pwned\x07\x1b[2J"`, "tiny.yaml:2:8:", `title: a control character (\x1b)`},
		{"title C1 CSI", `title: "t\u009b2J"`, "tiny.yaml:2:8:", `title: a control character (\u009b)`},
		{"title DEL", `title: "t\x7f"`, "tiny.yaml:2:8:", `title: a control character (\x7f)`},
		{"title bidi override", `title: "t\u202eevil"`, "tiny.yaml:2:8:", `title: a control character (\u202e)`},
		{"title newline", `title: "two\nlines"`, "tiny.yaml:2:8:", `title: a line break`},
		{"label bell", `label: "a\a"`, "tiny.yaml:3:8:", `label: a control character (\a)`},
		{"story escape", `story: "fine\nlines, then \x1b[31mred"`, "tiny.yaml:3:8:", `story: a control character (\x1b)`},
		{"box name", `workers: {boxes: ["A\x1b[2J"], per_box: 1}`, "tiny.yaml:3:19:", `workers.boxes[0]: a control character`},
		{"expect key", `expect: {"a\x1b": "1"}`, "tiny.yaml:3:10:", `key "a\x1b" has a control character`},
		{"knob value", `broker: {mode: "standard\x1b"}`, "tiny.yaml:3:10:", `broker.mode: a control character`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var src string
			if strings.HasPrefix(tc.line, "title:") {
				src = strings.Replace(minimal, "title: Tiny", tc.line, 1)
			} else if strings.HasPrefix(tc.line, "workers:") {
				src = strings.Replace(minimal, "workers: {boxes: [A], per_box: 1}\n", "", 1)
				src = strings.Replace(src, "title: Tiny\n", "title: Tiny\n"+tc.line+"\n", 1)
			} else {
				src = strings.Replace(minimal, "title: Tiny\n", "title: Tiny\n"+tc.line+"\n", 1)
			}
			_, err := Parse("tiny.yaml", []byte(src))
			if err == nil {
				t.Fatalf("accepted:\n%s", src)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.wantPos) || !strings.Contains(msg, tc.wantIn) {
				t.Errorf("error %q: want it to start %q and say %q", msg, tc.wantPos, tc.wantIn)
			}
			if !printable(msg, true) {
				t.Errorf("the error itself carries a control character: %q", msg)
			}
		})
	}
	// multi-line text keeps its newlines
	ok := strings.Replace(minimal, "title: Tiny\n", "title: Tiny\nstory: |\n  one\n  two\n", 1)
	s, err := Parse("tiny.yaml", []byte(ok))
	if err != nil || s.Story != "one\ntwo" {
		t.Fatalf("story: %q, %v", s.Story, err)
	}
}

// Several problems come out all of them, in file order, word for word the
// same on every run (map order once decided which unknown key was named).
func TestProblemsAreDeterministicAndComplete(t *testing.T) {
	src := minimal + "colour: blue\nshape: round\nsize: 9\nweight: 3\nbroker: {zeta: 1, alpha: 2, mode: maybe}\n" +
		"bookmarks:\n  - {at: \"10:00\", title: [a, b], wrds: x}\n  - {at: 25, title: ok}\n"
	want := ""
	for i := 0; i < 20; i++ {
		_, err := Parse("tiny.yaml", []byte(src))
		if err == nil {
			t.Fatal("accepted")
		}
		if i == 0 {
			want = err.Error()
			continue
		}
		if err.Error() != want {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, err, want)
		}
	}
	lines := strings.Split(want, "\n")
	wantOrder := []string{
		`tiny.yaml:8:1: unknown key "colour"`,
		`tiny.yaml:9:1: unknown key "shape"`,
		`tiny.yaml:10:1: unknown key "size"`,
		`tiny.yaml:11:1: unknown key "weight"`,
		`tiny.yaml:12:16: unknown key "zeta" in broker`,
		`tiny.yaml:12:26: unknown key "alpha" in broker`,
		`tiny.yaml:12:35: knob mode=maybe: "maybe" is not one of standard, ordered`,
		`tiny.yaml:14:26: bookmarks[0].title: want text, got a list`,
		`tiny.yaml:14:34: unknown key "wrds" in bookmarks[0]; did you mean "words"?`,
		`tiny.yaml:15:10: clock "25": want HH:MM[:SS[.mmm]]`,
	}
	if len(lines) != len(wantOrder) {
		t.Fatalf("%d problems, want %d:\n%s", len(lines), len(wantOrder), want)
	}
	for i, w := range wantOrder {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d: %q, want %q…", i, lines[i], w)
		}
	}
	if strings.Contains(want, "interface") || strings.Contains(want, "Go struct") || strings.Contains(want, "unmarshal") {
		t.Errorf("errors speak Go:\n%s", want)
	}
}

// Each kind of wrong value is described in the incident's terms.
func TestTypeErrorsInIncidentTerms(t *testing.T) {
	cases := []struct{ from, to, want string }{
		{"title: Tiny", "title: [a, b]", "tiny.yaml:2:8: title: want text, got a list"},
		{"title: Tiny", "title: {a: b}", "tiny.yaml:2:8: title: want text, got a map"},
		{"title: Tiny", "title:", "tiny.yaml:2:7: title: want text, got nothing (null)"},
		{"workers: {boxes: [A], per_box: 1}", "workers: [A]", "tiny.yaml:6:10: workers: want a map of keys (boxes, per_box, start, restart_after), got a list"},
		{"sources:\n  - {", "sources:\n  - 7\n  - {", "tiny.yaml:5:5: sources[0]: want a map of keys (name, start, every, count, poison), got 7"},
		{"provider: {latency_min: 1s, latency_max: 2s}", "provider: [1s]", "tiny.yaml:7:11: provider: want a map of key: value, got a list"},
	}
	for _, tc := range cases {
		src := strings.Replace(minimal, tc.from, tc.to, 1)
		_, err := Parse("tiny.yaml", []byte(src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got\n%v\nwant\n%s", tc.to, err, tc.want)
		}
	}
}

// A duplicate key is an error, not a silent overwrite.
func TestDuplicateKeys(t *testing.T) {
	_, err := Parse("tiny.yaml", []byte(minimal+"broker: {mode: ordered, mode: standard}\n"))
	if err == nil || !strings.Contains(err.Error(), "tiny.yaml:8:") {
		t.Fatalf("%v", err)
	}
}

// An error quotes at most a short prefix of a long value, escaped.
func TestErrorsQuoteShortPrefixes(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	for _, src := range []string{
		minimal + long + ": 1\n",
		minimal + "broker: {mode: " + long + "}\n",
		minimal + "expect: {busy: \"[" + long + "\"}\n",
	} {
		_, err := Parse("tiny.yaml", []byte(src))
		if err == nil {
			t.Fatal("accepted")
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if len(line) > 600 {
				t.Errorf("an error line of %d bytes: %.80s…", len(line), line)
			}
		}
	}
}

// A misspelt key is answered with the key it was probably meant to be, and
// only then.
func TestUnknownKeySuggestions(t *testing.T) {
	cases := map[string]string{
		"sourcs: []\n":   `unknown key "sourcs"; did you mean "sources"?`,
		"bokmarks: []\n": `unknown key "bokmarks"; did you mean "bookmarks"?`,
		"a: 1\n":         `unknown key "a" (keys: id, title,`,
		"colour: 1\n":    `unknown key "colour" (keys: id, title,`,
	}
	for extra, want := range cases {
		_, err := Parse("tiny.yaml", []byte(minimal+extra))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", extra, err, want)
		}
	}
}
