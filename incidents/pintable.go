package incidents

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// The pin table writes pins one a line in a literal block:
//
//	pin_table: |
//	  # decision message delivery value
//	  latency 0 1 39826ms
//	  worker  0 1 A
//	  crash   3 1 1
//
// An import pins every delivery; as a pins: list each pin costs 18 of the
// file's 100,000 YAML tokens, as a table the whole block is one (and each
// line one character of the pre-count).
// Its rows become exactly the pins a pins: list would give: the same
// pin values, checked by the same code (reader.pin).
const (
	// MaxPinRows is an import's most: 2,000 messages (the importer's
	// bound) × 10 deliveries × a latency and a worker pin each.
	MaxPinRows = 40_000
	// MaxPinLine bounds a line of the table in bytes; a row is about 25.
	MaxPinLine = 256
	// maxPinProblems: past these, a table written wrong throughout would
	// only repeat the same line thousands of times
	maxPinProblems = 20
)

// pinTable is the file's pin_table: its rows as pins, in order. Their
// positions are in reader.table, not in reader.pos: a map entry a field
// would cost more than the table itself.
type pinTable []pin

var pinTableType = reflect.TypeOf(pinTable(nil))

// pinRow is one row of a table: its pin, the row's line in the block
// (from 0) and each field's column in that line (in characters, from 0).
type pinRow struct {
	pin  pin
	line int
	cols [4]int
}

// tableProblem is a problem at a line and column of the block (from 0).
type tableProblem struct {
	line, col int
	msg       string
}

const rowShape = `a row is decision, message, delivery and value, like "latency 0 1 30s", "worker 0 1 A" or "crash 0 1 1"`

// parsePinTable reads a table's text (the block's value, indentation
// removed): each line blank, a comment (# to the end of the line, at its
// start or after a space), or a row of four fields separated by spaces or
// tabs. It checks the rows' shape and numbers; what a pin means (its
// decision, value, box) is checked with every other pin's.
func parsePinTable(text string) ([]pinRow, []tableProblem) {
	rows := make([]pinRow, 0, min(strings.Count(text, "\n")+1, MaxPinRows))
	var probs []tableProblem
	add := func(line, col int, format string, args ...any) bool {
		if len(probs) == maxPinProblems {
			probs = append(probs, tableProblem{line, col, fmt.Sprintf("more problems after these %d; fix these first", maxPinProblems)})
			return false
		}
		probs = append(probs, tableProblem{line, col, fmt.Sprintf(format, args...)})
		return true
	}
	for i, rest := 0, text; rest != ""; i++ {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		if len(line) > MaxPinLine {
			if !add(i, 0, "a line of %d bytes; a line of the table is at most %d", len(line), MaxPinLine) {
				break
			}
			continue
		}
		if at, c, bad := firstUnprintableAt(line, true); bad {
			// tabs separate fields; anything else a terminal acts on is refused
			if !add(i, utf8.RuneCountInString(line[:at]), "a control character (%s); incident text must be plain, printable text", visible(string(c))) {
				break
			}
			continue
		}
		fields, cols, n := splitRow(line)
		if n == 0 {
			continue // blank, or a comment
		}
		if n != 4 {
			ok := true
			if n < 4 {
				ok = add(i, cols[0], "%s; this one has %d field%s", rowShape, n, plural(n))
			} else {
				ok = add(i, cols[4], "a fifth field %q: %s (a comment starts with #)", fields[4], rowShape)
			}
			if !ok {
				break
			}
			continue
		}
		if len(rows) == MaxPinRows {
			add(i, cols[0], "more than %d pins; a table holds at most %d (2,000 messages × 10 deliveries × 2 pins)", MaxPinRows, MaxPinRows)
			break
		}
		p := pin{Decision: fields[0]}
		msg, err := strconv.ParseInt(fields[1], 10, 32)
		if err != nil {
			if !add(i, cols[1], "message %s", numberProblem(fields[1], err, 32)) {
				break
			}
			continue
		}
		del, err := strconv.ParseInt(fields[2], 10, strconv.IntSize)
		if err != nil {
			if !add(i, cols[2], "delivery %s", numberProblem(fields[2], err, strconv.IntSize)) {
				break
			}
			continue
		}
		p.Message, p.Delivery = int32(msg), int(del)
		if p.Decision == "worker" {
			p.Box = fields[3]
		} else {
			p.Value = fields[3]
		}
		rows = append(rows, pinRow{p, i, [4]int(cols[:4])})
	}
	return rows, probs
}

// splitRow is a line's fields up to a comment, and each one's column (in
// characters, from 0): at most five, the fifth only to be refused.
func splitRow(line string) (fields [5]string, cols [5]int, n int) {
	col := 0
	for i := 0; i < len(line) && n < len(fields); {
		if line[i] == ' ' || line[i] == '\t' {
			i, col = i+1, col+1
			continue
		}
		if line[i] == '#' {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fields[n], cols[n], n = line[i:j], col, n+1
		col += utf8.RuneCountInString(line[i:j])
		i = j
	}
	return fields, cols, n
}

func numberProblem(s string, err error, bits int) string {
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return fmt.Sprintf("%q does not fit: want a whole number from %d to %d", s, lo, hi)
	}
	return fmt.Sprintf("%q: want a whole number", s)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// tablePlace maps a table's rows back to the file: the block's first line
// and, for each line of its value, how far the file indents it.
type tablePlace struct {
	path     string // "$.pin_table"
	start    *token.Position
	firstRow int      // the file's line of the block's first line
	indent   []int    // per line of the value, -1 where unknown
	rows     []pinRow // parallel to the file's pinTable
}

// position is where a line and column of the block are in the file: at
// the block's header when the line cannot be matched to the file's text.
func (t *tablePlace) position(line, col int) *token.Position {
	if line < 0 || line >= len(t.indent) || t.indent[line] < 0 {
		return t.start
	}
	return &token.Position{Line: t.firstRow + line, Column: t.indent[line] + col + 1}
}

// at is the position of a table path: "$.pin_table[3]" a row, with
// ".decision", ".message", ".delivery", ".value" or ".box" one of its
// fields.
func (t *tablePlace) at(path string) (*token.Position, bool) {
	if t == nil || !strings.HasPrefix(path, t.path+"[") {
		return nil, false
	}
	idx, fieldName, _ := strings.Cut(path[len(t.path)+1:], "]")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(t.rows) {
		return t.start, true
	}
	r := t.rows[i]
	col := r.cols[0]
	switch fieldName {
	case ".message":
		col = r.cols[1]
	case ".delivery":
		col = r.cols[2]
	case ".value", ".box":
		col = r.cols[3]
	}
	return t.position(r.line, col), true
}

// blockIndents is, for each line of literal block lit's value text, how
// far the file indents it, in characters: the value is the file's lines
// less their indentation, which the token's origin keeps. -1 where a line
// cannot be matched to the file's. A problem in a block (pin_table,
// publish) points into the file through it.
func blockIndents(lit *ast.LiteralNode, text string) []int {
	var origin []string
	if lit.Value != nil && lit.Value.GetToken() != nil {
		origin = strings.Split(lit.Value.GetToken().Origin, "\n")
	}
	lines := strings.Split(text, "\n")
	indent := make([]int, len(lines))
	for i, line := range lines {
		indent[i] = -1
		if i < len(origin) {
			o := strings.TrimSuffix(origin[i], "\r")
			if strings.HasSuffix(o, line) {
				indent[i] = utf8.RuneCountInString(o) - utf8.RuneCountInString(line)
			}
		}
	}
	return indent
}

// decodePinTable reads pin_table: a literal block (| and then one pin a
// line); nothing (pin_table: alone) is no pins.
func (r *reader) decodePinTable(path string, n ast.Node, v reflect.Value) {
	if _, null := n.(*ast.NullNode); null || n == nil {
		return
	}
	lit, ok := n.(*ast.LiteralNode)
	if !ok || lit.Start == nil || !strings.HasPrefix(lit.Start.Value, "|") {
		got := kindOf(n)
		if ok {
			got = "a folded block (>), which joins its lines into one"
		}
		r.addAt(n.GetToken().Position, "%s: want a literal block (%s: | and then one pin a line), got %s", field(path), field(path), got)
		r.bad[path] = true
		return
	}
	if lit.Value == nil {
		return
	}
	text := lit.Value.Value
	t := &tablePlace{path: path, start: lit.Start.Position, firstRow: lit.Start.Position.Line + 1}
	t.indent = blockIndents(lit, text)
	rows, probs := parsePinTable(text)
	for _, p := range probs {
		r.addAt(t.position(p.line, p.col), "%s: %s", field(path), p.msg)
	}
	// the rows read are checked as pins even so: every problem at once
	t.rows = rows
	r.table = t
	pins := make(pinTable, len(rows))
	for i, row := range rows {
		pins[i] = row.pin
	}
	v.Set(reflect.ValueOf(pins))
}
