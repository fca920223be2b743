package incidents

import (
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/token"

	"inflight/engine"
)

// Bounds on a publish schedule: as many messages as the cashback family's
// events knob takes, and offsets within a thousand hours of the start.
const (
	MaxPublish       = 10_000_000
	MaxPublishOffset = 1000 * engine.Hour
)

// publish reads a publish schedule, a block of rows, one a line:
//
//	AT               one message AT ms after the incident's start
//	AT xCOUNT        COUNT messages at AT
//	AT xCOUNT +EVERY COUNT messages at AT, AT+EVERY, … (ms)
//
// Blank lines and lines starting with # are skipped. Times never go
// back: a row starts at or after the previous row's last message. A
// problem points at the row's line and the column of what is wrong.
func (r *reader) publish(path, text string) []engine.PublishRun {
	l := r.blocks[path]
	if l != nil && strings.HasPrefix(l.Start.Value, ">") {
		r.at(path, "publish: write the schedule as a literal block (publish: |), one row a line; a folded block (>) joins the rows")
		return nil
	}
	// where row i is: the block's lines start the line after its "|"; a
	// one-line scalar is at its value
	line0, col0 := 0, 0
	if p, ok := r.pos[path]; ok && p != nil {
		line0, col0 = p.Line, p.Column
	}
	if l != nil && l.Start != nil && l.Start.Position != nil {
		line0, col0 = l.Start.Position.Line+1, 0
	}
	// the rows' indentation in the file: the block's text has lost it
	var indents []int
	if l != nil {
		indents = blockIndents(l, text)
	}
	var runs []engine.PublishRun
	total := 0
	last := engine.Duration(-1)
	for i, row := range strings.Split(text, "\n") {
		line, indent := line0+i, col0
		if l != nil {
			indent = 1
			if i < len(indents) && indents[i] > 0 {
				indent += indents[i]
			}
		}
		bad := func(off int, format string, args ...any) {
			r.addAt(&token.Position{Line: line, Column: max(indent, 1) + off}, "publish: row %q: "+format, append([]any{clip(strings.TrimSpace(row))}, args...)...)
		}
		lead := len(row) - len(strings.TrimLeft(row, " "))
		body := strings.TrimSpace(row)
		if body == "" || body[0] == '#' {
			continue
		}
		if len(runs) >= MaxPublish {
			bad(lead, "more than %d rows", MaxPublish)
			return nil
		}
		words, offs := fields(row)
		if len(words) > 3 {
			bad(offs[3], "want AT, AT xCOUNT or AT xCOUNT +EVERY (ms), got %d words", len(words))
			return nil
		}
		num := func(j int, prefix, what string, lo, hi int64) (int64, bool) {
			w := words[j]
			if prefix != "" && !strings.HasPrefix(w, prefix) {
				bad(offs[j], "%s %q: write it %s%s", what, w, prefix, strings.TrimLeft(w, "x+"))
				return 0, false
			}
			v, err := strconv.ParseInt(strings.TrimPrefix(w, prefix), 10, 64)
			if err != nil || v < lo || v > hi {
				bad(offs[j], "%s %q: want a whole number from %d to %d", what, w, lo, hi)
				return 0, false
			}
			return v, true
		}
		run := engine.PublishRun{Count: 1}
		at, ok := num(0, "", "offset (ms)", 0, int64(MaxPublishOffset))
		if !ok {
			return nil
		}
		run.At = engine.Duration(at)
		if len(words) > 1 {
			n, ok := num(1, "x", "count", 1, MaxPublish)
			if !ok {
				return nil
			}
			run.Count = int(n)
		}
		if len(words) > 2 {
			e, ok := num(2, "+", "every (ms)", 0, int64(MaxPublishOffset))
			if !ok {
				return nil
			}
			run.Every = engine.Duration(e)
		}
		if run.At < last {
			bad(offs[0], "starts at %d ms, before the previous row's last message (%d ms): publish times never go back", run.At, last)
			return nil
		}
		end := run.At + run.Every*engine.Duration(run.Count-1)
		if end > MaxPublishOffset {
			bad(offs[0], "its last message is %d ms after the start; at most %d (a thousand hours)", end, MaxPublishOffset)
			return nil
		}
		if total += run.Count; total > MaxPublish {
			bad(offs[0], "the schedule passes %d messages", MaxPublish)
			return nil
		}
		last = end
		runs = append(runs, run)
	}
	if len(runs) == 0 {
		r.at(path, "publish: no rows; leave publish out for the family's own timing")
	}
	return runs
}

// fields splits a row at spaces, with each word's offset in it.
func fields(row string) (words []string, offs []int) {
	for i := 0; i < len(row); {
		if row[i] == ' ' || row[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(row) && row[j] != ' ' && row[j] != '\t' {
			j++
		}
		words, offs = append(words, row[i:j]), append(offs, i)
		if len(words) > 3 {
			break
		}
		i = j
	}
	return words, offs
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
