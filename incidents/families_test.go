package incidents

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/sqs"
)

// TestFamilyDescriptors checks every registered family's descriptor: its
// knobs exist, once each, and its defaults are of the knob's type and read
// back unchanged; a knob name two families declare has one type and doc;
// the registry is sorted and names each family once.
func TestFamilyDescriptors(t *testing.T) {
	names := familyNames()
	if !sort.StringsAreSorted(names) {
		t.Errorf("registry not sorted: %v", names)
	}
	seen := map[string]bool{}
	knobs := map[string]*engine.Knob{} // a knob two families declare reads the same in both
	for _, d := range families {
		for _, k := range d.Knobs.List {
			if o := knobs[k.Name]; o != nil && (o.Type != k.Type || o.Help != k.Help || strings.Join(o.Choices, ",") != strings.Join(k.Choices, ",")) {
				t.Errorf("family %s: knob %s differs from another family's (%s %q %v, there %s %q %v)", d.Name, k.Name, k.Type, k.Help, k.Choices, o.Type, o.Help, o.Choices)
			}
			knobs[k.Name] = k
		}
		if err := d.Check(); err != nil {
			t.Error(err)
		}
		if seen[d.Name] {
			t.Errorf("family %s registered twice", d.Name)
		}
		seen[d.Name] = true
		if d.New == nil {
			t.Errorf("family %s: no constructor", d.Name)
		}
		if d.Doc == "" {
			t.Errorf("family %s: no doc", d.Name)
		}
		for _, sec := range d.File.Sections {
			if o := sectionOwner(sec.Name); o != d {
				t.Errorf("family %s: section %s is family %s's too", d.Name, sec.Name, o.Name)
			}
			if fieldIndex(reflect.TypeOf(file{}), sec.Name) < 0 || keyOf(sec.Name) {
				t.Errorf("family %s: section %s is a key every incident has", d.Name, sec.Name)
			}
		}
	}
	defaults := 0
	for _, d := range families {
		if d.File.Default {
			defaults++
		}
	}
	if defaults != 1 {
		t.Errorf("%d families are the default for a file without family:; want one", defaults)
	}
}

// keyOf reports whether name is a key of the file's own shape.
func keyOf(name string) bool {
	t := reflect.TypeOf(file{})
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("yaml") == name {
			return true
		}
	}
	return false
}

// A family's knob sections are its own: the queue's broker in another
// family's file is refused where it is written, not dropped.
func TestSectionsAreTheirFamilys(t *testing.T) {
	data, _ := bundled.ReadFile("db-down.yaml")
	_, err := Parse("db-down.yaml", append(data, "broker:\n  mode: ordered\n"...))
	if err == nil || !strings.Contains(err.Error(), "broker is a section of the queue's incidents; family db-down's knobs go under params") {
		t.Errorf("broker in db-down: %v", err)
	}
	// workers.restart_after sets the knob of that name: refused, not
	// dropped, for a family that reads none
	dd := strings.Replace(string(data), "  per_box: 1\n", "  per_box: 1\n  restart_after: 2s\n", 1)
	if _, err := Parse("db-down.yaml", []byte(dd)); err == nil || !strings.Contains(err.Error(), `knob "restart_after" does not apply to this incident (its knobs: breaker)`) {
		t.Errorf("workers.restart_after in db-down: %v", err)
	}
	_, err = Parse("tiny.yaml", []byte(minimal+"params:\n  mode: ordered\n"))
	if err == nil || !strings.Contains(err.Error(), "params is for incidents with a family; the queue's knobs go under broker, handler and provider") {
		t.Errorf("params in a queue file: %v", err)
	}
}

// An operator's action is one its system declares: the queue's
// repair_redrive, none for a family that declares none.
func TestOperatorActionsAreDeclared(t *testing.T) {
	op := "operators:\n  - {name: script, action: %s, when_dlq: 1}\n"
	s, err := Parse("tiny.yaml", []byte(minimal+fmt.Sprintf(op, "repair_redrive")))
	if err != nil || len(s.Operators) != 1 || s.Operators[0].Action != engine.ActionRepairRedrive {
		t.Fatalf("repair_redrive on the queue: %v %+v", err, s)
	}
	if _, err := Parse("tiny.yaml", []byte(minimal+fmt.Sprintf(op, "reboot"))); err == nil || !strings.Contains(err.Error(), `operator action "reboot": want repair_redrive`) {
		t.Errorf("unknown action on the queue: %v", err)
	}
	data, _ := bundled.ReadFile("db-down.yaml")
	if _, err := Parse("db-down.yaml", append(data, fmt.Sprintf(op, "repair_redrive")...)); err == nil || !strings.Contains(err.Error(), "family db-down has no operator actions") {
		t.Errorf("repair_redrive on a family: %v", err)
	}
	if _, err := Parse("tiny.yaml", []byte(minimal+"alerts:\n  - {name: a, kind: loud}\n")); err == nil || !strings.Contains(err.Error(), `alert kind "loud": want oldest_age or dlq_nonempty`) {
		t.Errorf("unknown alert kind: %v", err)
	}
}

// The queue is in the registry like the others: `family: sqs` runs it as
// a file without the key does, and the unknown-family error names it.
func TestQueueIsAFamily(t *testing.T) {
	plain, err := Parse("tiny.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	named, err := Parse("tiny.yaml", []byte(minimal+"family: sqs\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plain.Knobs, ",") != strings.Join(named.Knobs, ",") || strings.Join(named.Knobs, ",") != strings.Join(sqs.Descriptor.KnobNames(), ",") {
		t.Errorf("knobs: %v and %v", plain.Knobs, named.Knobs)
	}
	if pd, nd := plain.Params.Diff(&named.Params), named.Params.Diff(&plain.Params); len(pd)+len(nd) > 0 {
		t.Errorf("family: sqs changes the knobs: %v %v", pd, nd)
	}
	_, err = Parse("tiny.yaml", []byte(minimal+"family: sq\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown family "sq" (families: cashback, db-down, fifo-window, galewatch, kafka-restart, ordering, sqs, stagefront)`) {
		t.Errorf("unknown family: %v", err)
	}
}
