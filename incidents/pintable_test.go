package incidents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"inflight/engine"
)

// tableBase is minimal with two boxes; the table starts on line 8, its
// first row on line 9, indented two spaces.
const tableBase = `id: tiny
title: Tiny
start: "10:00:00"
sources:
  - {name: orders, start: "10:00:00", every: 1s, count: 3}
workers: {boxes: [A, B], per_box: 1}
provider: {latency_min: 1s, latency_max: 2s}
pin_table: |
`

func withTable(rows ...string) string {
	var b strings.Builder
	b.WriteString(tableBase)
	for _, r := range rows {
		if r != "" {
			b.WriteString("  " + r)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestPinTableRows: good rows give their pins; each bad row or field is
// refused with its message, at its line and column in the file.
func TestPinTableRows(t *testing.T) {
	lat := func(m int32, d int, v engine.Duration) engine.Pin {
		return engine.Pin{Kind: engine.DecLatency, Message: m, Delivery: d, Value: int64(v)}
	}
	work := func(m int32, d int, box string) engine.Pin {
		return engine.Pin{Kind: engine.DecWorker, Message: m, Delivery: d, Box: box}
	}
	good := []struct {
		name string
		rows []string
		want []engine.Pin
	}{
		{"one of each", []string{"latency 0 1 1500ms", "worker 0 1 B", "crash 2 3 1"},
			[]engine.Pin{lat(0, 1, 1500*engine.Millisecond), work(0, 1, "B"), {Kind: engine.DecCrash, Message: 2, Delivery: 3, Value: 1}}},
		{"comments, blank lines, tabs, aligned", []string{"# decision message delivery value", "", "latency\t2\t1\t2s   # slow", "worker  10 2 A", "  ", "#worker 0 1 B"},
			[]engine.Pin{lat(2, 1, 2*engine.Second), work(10, 2, "A")}},
		{"a key twice, tried in order", []string{"worker 1 1 A", "worker 1 1 B"}, []engine.Pin{work(1, 1, "A"), work(1, 1, "B")}},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := Parse("t.yaml", []byte(withTable(tc.rows...)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(spec.Pins, tc.want) {
				t.Errorf("pins %+v, want %+v", spec.Pins, tc.want)
			}
		})
	}
	if spec, err := Parse("t.yaml", []byte(tableBase)); err != nil || len(spec.Pins) != 0 {
		t.Errorf("an empty table: %v, %d pins", err, len(spec.Pins))
	}

	bad := []struct {
		name string
		row  string
		want string // the whole error; the row is on line 9
	}{
		{"unknown decision", "wait 0 1 3", `t.yaml:9:3: pin decision "wait": want latency, worker or crash`},
		{"decision in capitals", "Latency 0 1 1s", `t.yaml:9:3: pin decision "Latency": want latency, worker or crash`},
		{"too few fields", "latency 0 1", `t.yaml:9:3: pin_table: a row is decision, message, delivery and value, like "latency 0 1 30s", "worker 0 1 A" or "crash 0 1 1"; this one has 3 fields`},
		{"one field", "latency", `t.yaml:9:3: pin_table: a row is decision, message, delivery and value, like "latency 0 1 30s", "worker 0 1 A" or "crash 0 1 1"; this one has 1 field`},
		{"a fifth field", "worker 0 1 A B", `t.yaml:9:16: pin_table: a fifth field "B": a row is decision, message, delivery and value, like "latency 0 1 30s", "worker 0 1 A" or "crash 0 1 1" (a comment starts with #)`},
		{"message not a number", "latency x 1 1s", `t.yaml:9:11: pin_table: message "x": want a whole number`},
		{"message 1.5", "latency 1.5 1 1s", `t.yaml:9:11: pin_table: message "1.5": want a whole number`},
		{"message too large", "latency 2147483648 1 1s", `t.yaml:9:11: pin_table: message "2147483648" does not fit: want a whole number from -2147483648 to 2147483647`},
		{"message negative", "latency -1 1 1s", `t.yaml:9:11: message counts from 0`},
		{"delivery not a number", "worker 0 first A", `t.yaml:9:12: pin_table: delivery "first": want a whole number`},
		{"delivery 0", "worker 0 0 A", `t.yaml:9:12: delivery counts from 1`},
		{"delivery too large", "worker 0 9223372036854775808 A", `t.yaml:9:12: pin_table: delivery "9223372036854775808" does not fit: want a whole number from -9223372036854775808 to 9223372036854775807`},
		{"latency not a duration", "latency 0 1 often", `t.yaml:9:15: duration "often": want a number with a unit, like 30s, 2m or 250ms`},
		{"latency bare number", "latency 0 1 20", `t.yaml:9:15: duration "20": want a number with a unit, like 30s, 2m or 250ms`},
		{"latency with a # glued on", "latency 0 1 1s#", `t.yaml:9:15: duration "1s#": want a number with a unit, like 30s, 2m or 250ms`},
		{"unknown box", "worker 0 1 C", `t.yaml:9:14: pin box "C" is not one of the workers' boxes (A, B)`},
		{"crash value 2", "crash 0 1 2", `t.yaml:9:13: crash pin value "2": want 1 (died) or 0 (did not)`},
		{"a control character", "worker 0 1 A\x1b[2J", `t.yaml:9:15: pin_table: a control character (\x1b); incident text must be plain, printable text`},
		{"a bidi override", "worker 0 1 A\u202eB", `t.yaml:9:15: pin_table: a control character (\u202e); incident text must be plain, printable text`},
		{"after a wide character", "worker 0 1 Ä\x07", `t.yaml:9:15: pin_table: a control character (\a); incident text must be plain, printable text`},
		{"a long line", "# " + strings.Repeat("x", 300), `t.yaml:9:3: pin_table: a line of 302 bytes; a line of the table is at most 256`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(withTable(tc.row)))
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Error() != tc.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tc.want)
			}
		})
	}

	// the block's position comes from the file: a deeper indent, blank
	// lines first, a comment on the header, CRLF line ends
	head := strings.TrimSuffix(tableBase, "pin_table: |\n")
	for _, tc := range []struct{ src, pos string }{
		{head + "pin_table: | # the pins\n\n\n  worker 0 1 C\n", "t.yaml:11:14:"},
		{head + "pin_table: |\n      latency 0 1 1s\n\n      worker 0 1 C\n", "t.yaml:11:18:"},
		{head + "pin_table: |2\n    latency 0 1 1s\n\n  worker 0 1 C\n", "t.yaml:11:14:"},
		{strings.ReplaceAll(head+"pin_table: |\n  latency 0 1 1s\n\n  worker 0 1 C\n", "\n", "\r\n"), "t.yaml:11:14:"},
	} {
		_, err := Parse("t.yaml", []byte(tc.src))
		if want := tc.pos + ` pin box "C" is not one of the workers' boxes (A, B)`; err == nil || err.Error() != want {
			t.Errorf("%q: %v; want %s", tc.src, err, want)
		}
	}

	// not a literal block
	for _, tc := range []struct{ table, want string }{
		{`pin_table: "latency 0 1 1s"`, `t.yaml:8:12: pin_table: want a literal block (pin_table: | and then one pin a line), got text "latency 0 1 1s"`},
		{"pin_table: >\n  latency 0 1 1s\n  worker 0 1 A", `t.yaml:8:12: pin_table: want a literal block (pin_table: | and then one pin a line), got a folded block (>), which joins its lines into one`},
		{"pin_table: [latency, 0, 1, 1s]", `t.yaml:8:12: pin_table: want a literal block (pin_table: | and then one pin a line), got a list`},
	} {
		src := strings.TrimSuffix(tableBase, "pin_table: |\n") + tc.table + "\n"
		if _, err := Parse("t.yaml", []byte(src)); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.table, err, tc.want)
		}
	}
}

// TestPinTableAndPins: a file may have both; the one written first is
// tried first, and a key in both is kept twice, as within pins.
func TestPinTableAndPins(t *testing.T) {
	list := "pins:\n  - {decision: worker, message: 0, delivery: 1, box: A}\n"
	table := "pin_table: |\n  worker 0 1 B\n"
	head := strings.TrimSuffix(tableBase, "pin_table: |\n")
	for _, tc := range []struct {
		src   string
		boxes []string
	}{{head + list + table, []string{"A", "B"}}, {head + table + list, []string{"B", "A"}}} {
		spec, err := Parse("t.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		var boxes []string
		for _, p := range spec.Pins {
			boxes = append(boxes, p.Box)
		}
		if !reflect.DeepEqual(boxes, tc.boxes) {
			t.Errorf("%s: boxes %v, want %v", tc.src, boxes, tc.boxes)
		}
	}
}

// asTable rewrites a file's pins: list (flow maps, one a line, as the
// bundled files write them) as a pin_table.
func asTable(t *testing.T, src string) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case l == "pins:":
			in = true
			out = append(out, "pin_table: |", "  # decision message delivery value")
		case in && strings.HasPrefix(l, "  - {"):
			fields := map[string]string{}
			for _, kv := range strings.Split(strings.Trim(strings.TrimPrefix(l, "  - "), "{}"), ",") {
				k, v, _ := strings.Cut(strings.TrimSpace(kv), ":")
				fields[k] = strings.Trim(strings.TrimSpace(v), `"`)
			}
			v := fields["value"]
			if fields["decision"] == "worker" {
				v = fields["box"]
			}
			out = append(out, fmt.Sprintf("  %s %s %s %s", fields["decision"], fields["message"], fields["delivery"], v))
		default:
			in = in && l == ""
			out = append(out, l)
		}
	}
	res := strings.Join(out, "\n")
	if res == src || strings.Contains(res, "\npins:") {
		t.Fatal("no pins: list rewritten")
	}
	return res
}

// TestPinTableRunsAsPins: a bundled incident with its pins written as a
// table parses to the same spec, and its run and forks give the same
// traces and summaries, byte for byte.
func TestPinTableRunsAsPins(t *testing.T) {
	for _, name := range []string{"thursday.yaml", "thursday-fixed.yaml"} {
		t.Run(name, func(t *testing.T) {
			data, _ := bundled.ReadFile(name)
			table := asTable(t, string(data))
			a, err := Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Parse(name, []byte(table))
			if err != nil {
				t.Fatalf("%v\n%s", err, table)
			}
			if len(a.Pins) == 0 || !reflect.DeepEqual(a.Pins, b.Pins) {
				t.Fatalf("pins %+v, table %+v", a.Pins, b.Pins)
			}
			for _, f := range append([]engine.ForkSpec{{Name: "main"}}, a.Forks...) {
				var runs [2][]byte
				var hash [2]string
				for i, spec := range []*engine.Spec{a, b} {
					o := engine.RunOptions{Seed: spec.Seed, Set: f.Set}
					if f.HasAt {
						o = engine.RunOptions{Seed: spec.Seed, HasAt: true, At: f.At, AtSet: f.Set}
					}
					var trace bytes.Buffer
					o.Trace = &trace
					sum, _, err := engine.Run(spec, o)
					if err != nil {
						t.Fatal(err)
					}
					js, err := json.Marshal(sum)
					if err != nil {
						t.Fatal(err)
					}
					runs[i] = append(trace.Bytes(), js...)
					hash[i] = sum.TraceSHA256
				}
				if hash[0] == "" || hash[0] != hash[1] || !bytes.Equal(runs[0], runs[1]) {
					t.Errorf("%s: the table's run differs (trace %s vs %s)", f.Name, hash[0], hash[1])
				}
			}
		})
	}
}

// Hostile tables are refused at their row, in bounded memory, with a
// bounded number of problems.
func TestPinTableHostile(t *testing.T) {
	rows := func(n int, row string) string {
		return tableBase + strings.Repeat("  "+row+"\n", n)
	}
	cases := []struct {
		name, src, want string
		problems        int
		allocCap        uint64
	}{
		{"more rows than the bound", rows(MaxPinRows+1, "worker 0 1 A"), fmt.Sprintf("t.yaml:%d:3: pin_table: more than 40000 pins", 8+MaxPinRows+1), 1, 96 << 20},
		{"a line of 900 KB", tableBase + "  latency 0 1 " + strings.Repeat("9", 900<<10) + "s\n", "t.yaml:9:3: pin_table: a line of 921613 bytes", 1, 128 << 20},
		{"30,000 rows of nonsense", rows(30_000, "x"), "t.yaml:9:3: pin_table: a row is", maxPinProblems + 1, 32 << 20},
		{"30,000 rows of a wrong box", rows(30_000, "worker 0 1 Z"), `t.yaml:9:14: pin box "Z"`, maxPinProblems + 1, 80 << 20},
		{"a block of 1 MiB of line breaks", tableBase + strings.Repeat("\n", MaxFileBytes-len(tableBase)), "more than 100000 YAML tokens", 1, 4 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc, _ := measure(func() { _, err = Parse("t.yaml", []byte(tc.src)) })
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("accepted, or not positioned: %v", err)
			}
			if !strings.Contains(ps[0].Error(), tc.want) || len(ps) != tc.problems {
				t.Errorf("%d problems, the first %q; want %d, the first with %q", len(ps), ps[0].Error(), tc.problems, tc.want)
			}
			if alloc > tc.allocCap {
				t.Errorf("allocated %d MB, cap %d MB", alloc>>20, tc.allocCap>>20)
			}
			t.Logf("%s: %d problems, %d KB allocated", firstLine(err), len(ps), alloc>>10)
		})
	}
	// the bound itself is accepted
	spec, err := Parse("t.yaml", []byte(rows(MaxPinRows, "worker 0 1 A")))
	if err != nil || len(spec.Pins) != MaxPinRows {
		t.Fatalf("%d rows: %v", MaxPinRows, err)
	}
}

// FuzzPinTable: the table parser never panics, stays in its bounds, and
// places every row and problem inside the text; in a file, every error
// has a position.
func FuzzPinTable(f *testing.F) {
	for _, s := range []string{
		"latency 0 1 1500ms\nworker 0 1 A\ncrash 2 1 1\n",
		"# decision message delivery value\n\nlatency\t2\t1\t2s # slow\n",
		"worker 0 1 A B\nlatency 0 1\nwait 0 1 3\n",
		"latency 2147483648 1 1s\nworker 0 9223372036854775808 A\nlatency -1 0 1s\n",
		"worker 0 1 A\x1b[2J\nworker 0 1 A\u202eB\nworker 0 1 \xff\n",
		"latency 0 1 " + strings.Repeat("9", 300) + "s\n",
		strings.Repeat("x\n", 30),
		"\r\n\tlatency 0 1 1s\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 64<<10 {
			return
		}
		rows, probs := parsePinTable(text)
		lines := strings.Split(text, "\n")
		if len(rows) > MaxPinRows || len(probs) > maxPinProblems+1 {
			t.Fatalf("%d rows, %d problems", len(rows), len(probs))
		}
		for _, r := range rows {
			if r.line < 0 || r.line >= len(lines) || r.cols[3] >= utf8.RuneCountInString(lines[r.line]) {
				t.Fatalf("row %+v outside the text", r)
			}
		}
		for _, p := range probs {
			if p.line < 0 || p.line >= len(lines) || p.col < 0 || (p.col > 0 && p.col >= utf8.RuneCountInString(lines[p.line])) {
				t.Fatalf("problem %+v outside the text", p)
			}
		}
		src := tableBase + "  " + strings.ReplaceAll(text, "\n", "\n  ") + "\n"
		spec, err := Parse("fuzz.yaml", []byte(src))
		// the block is the text when YAML reads its lines as written: no
		// other line breaks, no line indented beyond the block's own
		same := !strings.ContainsAny(text, "\r\u0085\u2028\u2029")
		for _, l := range lines {
			same = same && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t")
		}
		if err == nil {
			if same && len(spec.Pins) != len(rows) {
				t.Fatalf("%d pins from %d rows", len(spec.Pins), len(rows))
			}
			return
		}
		mustPlace(t, err)
	})
}

// mustPlace fails a fuzz case whose parse error does not name a line and
// column for every problem.
func mustPlace(t *testing.T, err error) {
	t.Helper()
	var ps Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		t.Fatalf("error without position: %v", err)
	}
	for _, p := range ps {
		if p.Line < 1 || p.Col < 1 {
			t.Fatalf("bad position in %v", p)
		}
	}
}
