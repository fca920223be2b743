package incidents

import (
	"reflect"
	"strings"
	"testing"
)

// A file saved with CRLF line ends reads exactly as with LF: the control
// character check must not catch the CR of a line end.
func TestCRLFFilesParseTheSame(t *testing.T) {
	entries, _ := bundled.ReadDir(".")
	for _, e := range entries {
		data, _ := bundled.ReadFile(e.Name())
		a, err := Parse(e.Name(), data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(e.Name(), []byte(strings.ReplaceAll(string(data), "\n", "\r\n")))
		if err != nil {
			t.Errorf("%s CRLF: %v", e.Name(), err)
			continue
		}
		a.NewFamily, b.NewFamily = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: CRLF differs", e.Name())
		}
	}
}
