package otlp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
	"inflight/otlp"
)

// exportOrders runs thursday at n orders (--set orders=n) and exports its
// trace as OTLP JSON, as `inflight run thursday --set orders=N --otlp`.
func exportOrders(t testing.TB, n int) (engine.Summary, []byte) {
	t.Helper()
	return exportRun(t, "thursday", engine.Setting{Knob: "orders", Value: fmt.Sprint(n)})
}

// TestImportMaxMessages: a queue trace of the importer's MaxMessages
// (thursday at 2,000 orders, 6,000 deliveries) imports to an incident the
// parser takes, its pins as a table, and check reproduces its figures.
// As a pins: list its 12,000 pins were 18 YAML tokens each, twice the
// parser's 100,000.
func TestImportMaxMessages(t *testing.T) {
	want, data := exportOrders(t, otlp.MaxMessages)
	rec, err := otlp.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	y, err := rec.Incident("thursday-2000", nil, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(y, []byte("\npins:")) || !bytes.Contains(y, []byte("\npin_table: |\n")) {
		t.Fatal("the pins are not written as a table")
	}
	spec, err := incidents.Parse("thursday-2000.yaml", y)
	if err != nil {
		t.Fatal(err)
	}
	if want.Messages != int64(otlp.MaxMessages) || len(spec.Pins) != 2*int(want.Deliveries) {
		t.Fatalf("%d messages, %d pins for %d deliveries", want.Messages, len(spec.Pins), want.Deliveries)
	}
	t.Logf("%d messages, %d pins, %d bytes", want.Messages, len(spec.Pins), len(y))
	checkImported(t, spec, 8, want, queueFigures)
}

// TestImportMoreThanMaxMessages: one message more is refused in one line.
func TestImportMoreThanMaxMessages(t *testing.T) {
	_, data := exportOrders(t, otlp.MaxMessages+1)
	_, err := otlp.Read(bytes.NewReader(data))
	if err == nil || err.Error() != "2001 messages; import takes at most 2000" {
		t.Fatalf("%v", err)
	}
}

// pinsList writes pins as the pins: list the importer used to write.
func pinsList(pins []engine.Pin) string {
	var b strings.Builder
	b.WriteString("pins:\n")
	for _, p := range pins {
		switch p.Kind {
		case engine.DecWorker:
			fmt.Fprintf(&b, "  - {decision: worker, message: %d, delivery: %d, box: %q}\n", p.Message, p.Delivery, p.Box)
		default:
			fmt.Fprintf(&b, "  - {decision: %s, message: %d, delivery: %d, value: %s}\n", p.Kind, p.Message, p.Delivery, engine.FormatDuration(engine.Duration(p.Value)))
		}
	}
	return b.String()
}

// TestPinTableRunsAsPinsList: an imported incident with its pin_table
// written back as a pins: list gives the same pins, and the same trace and
// summary, byte for byte.
func TestPinTableRunsAsPinsList(t *testing.T) {
	_, data := exportRun(t, "thursday")
	rec, err := otlp.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	y, err := rec.Incident("imported", nil, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	table, err := incidents.Parse("imported.yaml", y)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(y, []byte("pin_table: |\n"))
	end := bytes.Index(y, []byte("\n# the figures the spans show"))
	if start < 0 || end < start {
		t.Fatalf("no pin_table in\n%s", y)
	}
	asList := string(y[:start]) + pinsList(table.Pins) + string(y[end:])
	list, err := incidents.Parse("imported.yaml", []byte(asList))
	if err != nil {
		t.Fatalf("%v\n%s", err, asList)
	}
	if len(table.Pins) != 648 || !reflect.DeepEqual(table.Pins, list.Pins) {
		t.Fatalf("%d pins from the table, %d from the list", len(table.Pins), len(list.Pins))
	}
	var runs [2][]byte
	for i, spec := range []*engine.Spec{table, list} {
		var trace bytes.Buffer
		sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Trace: &trace})
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(sum)
		runs[i] = append(append(trace.Bytes(), js...), sum.TraceSHA256...)
	}
	if !bytes.Equal(runs[0], runs[1]) {
		t.Error("the table's run and the list's differ")
	}
}

// TestPinTableWriter: what PinTable writes the parser reads back to the
// same pins; what a row cannot hold is refused.
func TestPinTableWriter(t *testing.T) {
	pins := []engine.Pin{
		{Kind: engine.DecLatency, Message: 0, Delivery: 1, Value: 39826},
		{Kind: engine.DecWorker, Message: 0, Delivery: 1, Box: "A"},
		{Kind: engine.DecLatency, Message: 1999, Delivery: 12, Value: 30000},
		{Kind: engine.DecWorker, Message: 1999, Delivery: 12, Box: "web-b"},
		{Kind: engine.DecLatency, Message: 7, Delivery: 2, Value: 0},
		{Kind: engine.DecCrash, Message: 3, Delivery: 1, Value: 1},
		{Kind: engine.DecCrash, Message: 3, Delivery: 2, Value: 0},
	}
	table, err := otlp.PinTable(pins)
	if err != nil {
		t.Fatal(err)
	}
	want := `pin_table: |
  # decision message delivery value
  latency    0  1 39826ms
  worker     0  1 A
  latency 1999 12 30s
  worker  1999 12 web-b
  latency    7  2 0s
  crash      3  1 1
  crash      3  2 0
`
	if string(table) != want {
		t.Fatalf("wrote\n%s\nwant\n%s", table, want)
	}
	src := "id: w\ntitle: W\nstart: \"10:00:00\"\nsources:\n  - {name: orders, start: \"10:00:00\", every: 1s, count: 3}\n" +
		"workers: {boxes: [A, web-b], per_box: 1}\nprovider: {latency_min: 1s, latency_max: 2s}\n" + string(table)
	spec, err := incidents.Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(spec.Pins, pins) {
		t.Errorf("read back %+v", spec.Pins)
	}
	if empty, err := otlp.PinTable(nil); err != nil || string(empty) != "pin_table: |\n  # decision message delivery value\n" {
		t.Errorf("no pins: %q, %v", empty, err)
	}

	for _, tc := range []struct {
		pin  engine.Pin
		want string
	}{
		{engine.Pin{Kind: engine.DecWorker, Message: 1, Delivery: 1, Box: "web 1"}, `message 1 delivery 1: box "web 1" cannot be a pin_table field (one word, plain text)`},
		{engine.Pin{Kind: engine.DecWorker, Message: 1, Delivery: 1, Box: "#A"}, `message 1 delivery 1: box "#A" cannot be a pin_table field (one word, plain text)`},
		{engine.Pin{Kind: engine.DecWorker, Message: 1, Delivery: 1}, `message 1 delivery 1: box "" cannot be a pin_table field (one word, plain text)`},
		{engine.Pin{Kind: engine.DecWorker, Message: 1, Delivery: 1, Box: "A\x1b[2J"}, `message 1 delivery 1: box "A[2J" cannot be a pin_table field (one word, plain text)`},
		{engine.Pin{Kind: engine.DecLatency, Message: 1, Delivery: 1, Value: -5}, "message 1 delivery 1: a latency of -5 ms"},
		{engine.Pin{Kind: engine.DecCrash, Message: 1, Delivery: 1, Value: 2}, "message 1 delivery 1: crash pin value 2, want 0 or 1"},
		{engine.Pin{Kind: engine.DecWedge, Message: 1, Delivery: 1}, "message 1 delivery 1: a wedge pin; a pin_table writes latency, worker and crash"},
		{engine.Pin{Kind: engine.DecLatency, Message: 1, Delivery: 0}, "message 1 delivery 0: messages count from 0, deliveries from 1"},
	} {
		if _, err := otlp.PinTable([]engine.Pin{tc.pin}); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.pin, err, tc.want)
		}
	}
	many := make([]engine.Pin, incidents.MaxPinRows+1)
	if _, err := otlp.PinTable(many); err == nil || err.Error() != "40001 pins; an incident's pin_table holds at most 40000" {
		t.Errorf("too many: %v", err)
	}
}

// synthetic is a recording of n messages a second apart, each delivered
// del times 30 s apart to consumer A1, its handler 39.826 s each time.
func synthetic(n, del int) *otlp.Recording {
	rec := &otlp.Recording{System: "aws_sqs", Destination: "orders"}
	const s = int64(1e9)
	for i := 0; i < n; i++ {
		m := &otlp.Message{ID: fmt.Sprint(i), Published: 1_700_000_000*s + int64(i)*s}
		for j := 1; j <= del; j++ {
			at := m.Published + int64(j)*30*s
			d := otlp.Delivery{N: j, Count: j, Consumer: "A1", At: at, End: at + 39826*s/1000, Effects: []int64{39826 * s / 1000}, EffectAt: []int64{at + 39826*s/1000}, Settle: "none"}
			if j == del {
				d.Settle, d.SettleAt = "ack", d.End
			}
			m.Deliveries = append(m.Deliveries, d)
		}
		rec.Messages = append(rec.Messages, m)
	}
	return rec
}

// TestImportPinBound: the importer's 2,000 messages at ten deliveries
// each, 40,000 pins, make a file the parser takes; at eleven the importer
// refuses it in one line.
func TestImportPinBound(t *testing.T) {
	y, err := synthetic(otlp.MaxMessages, 10).Incident("bound", nil, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := incidents.Parse("bound.yaml", y)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Pins) != incidents.MaxPinRows || len(y) > incidents.MaxFileBytes {
		t.Fatalf("%d pins, %d bytes", len(spec.Pins), len(y))
	}
	t.Logf("%d pins, %d bytes", len(spec.Pins), len(y))
	_, err = synthetic(otlp.MaxMessages, 11).Incident("over", nil, &strings.Builder{})
	if want := "a latency and a worker pin a delivery: 44000 pins; an incident's pin_table holds at most 40000"; err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}
