// Package incidents holds the bundled incident files and reads incident
// files into engine specs, strictly: an unknown or mistyped key is an error
// naming the file, line and column.
package incidents

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"inflight/engine"
)

// Problem is one thing wrong with an incident file, at a position.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p Problem) Error() string { return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg) }

// Problems is every problem found in one file, in file order.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// The file's shape. Knob sections are maps checked against the engine's
// knobs, so the file and --set accept exactly the same values.
type file struct {
	ID        string        `yaml:"id"`
	Title     string        `yaml:"title"`
	Story     string        `yaml:"story"`
	Label     string        `yaml:"label"`
	Start     string        `yaml:"start"`
	Seed      uint64        `yaml:"seed"`
	Featured  *int32        `yaml:"featured"`
	Sources   []source      `yaml:"sources"`
	Broker    yaml.MapSlice `yaml:"broker"`
	Workers   workers       `yaml:"workers"`
	Handler   yaml.MapSlice `yaml:"handler"`
	Provider  yaml.MapSlice `yaml:"provider"`
	Family    string        `yaml:"family"`
	Params    yaml.MapSlice `yaml:"params"`
	Pins      []pin         `yaml:"pins"`
	Alerts    []alert       `yaml:"alerts"`
	WouldHave []alert       `yaml:"would_have"`
	Operators []operator    `yaml:"operators"`
	Bookmarks []bookmark    `yaml:"bookmarks"`
	Expect    yaml.MapSlice `yaml:"expect"`
	Forks     []fork        `yaml:"forks"`
	Exercises []exercise    `yaml:"exercises"`
}

type source struct {
	Name   string `yaml:"name"`
	Start  string `yaml:"start"`
	Every  string `yaml:"every"`
	Count  int    `yaml:"count"`
	Poison bool   `yaml:"poison"`
}

type workers struct {
	Boxes        []string `yaml:"boxes"`
	PerBox       int      `yaml:"per_box"`
	Start        string   `yaml:"start"`
	RestartAfter string   `yaml:"restart_after"`
}

type pin struct {
	Decision string `yaml:"decision"`
	Message  int32  `yaml:"message"`
	Delivery int    `yaml:"delivery"`
	Value    string `yaml:"value"`
	Box      string `yaml:"box"`
}

type alert struct {
	Name      string `yaml:"name"`
	Kind      string `yaml:"kind"`
	Threshold string `yaml:"threshold"`
}

type operator struct {
	Name        string `yaml:"name"`
	Action      string `yaml:"action"`
	WhenDLQ     int    `yaml:"when_dlq"`
	Description string `yaml:"description"`
}

type bookmark struct {
	At    string `yaml:"at"`
	Title string `yaml:"title"`
	Words string `yaml:"words"`
}

type fork struct {
	Name   string        `yaml:"name"`
	At     string        `yaml:"at"`
	Set    yaml.MapSlice `yaml:"set"`
	Expect yaml.MapSlice `yaml:"expect"`
}

type exercise struct {
	Key      string        `yaml:"key"`
	Question string        `yaml:"question"`
	At       string        `yaml:"at"`
	Set      yaml.MapSlice `yaml:"set"`
	Explain  string        `yaml:"explain"`
}

// knobSections says which knobs each section may set.
var knobSections = map[string][]string{
	"broker":   {"mode", "visibility_timeout", "max_receives", "late_ack"},
	"handler":  {"ack", "claim", "claim_window", "crash_after_claim", "heartbeat"},
	"provider": {"latency_min", "latency_max", "wedge_p"},
}

// reader carries the parsed document so that every check can point at the
// line and column of what it complains about.
type reader struct {
	name  string
	ast   *ast.File
	probs Problems
}

func (r *reader) at(path string, format string, args ...any) {
	line, col := 1, 1
	if p, err := yaml.PathString(path); err == nil {
		if n, err := p.FilterFile(r.ast); err == nil && n != nil {
			if tk := n.GetToken(); tk != nil && tk.Position != nil {
				line, col = tk.Position.Line, tk.Position.Column
			}
		}
	}
	r.probs = append(r.probs, Problem{r.name, line, col, fmt.Sprintf(format, args...)})
}

func (r *reader) clock(path, s string, required bool) engine.Time {
	if s == "" {
		if required {
			r.at(path, "missing %s (a clock like \"19:40:20\")", lastKey(path))
		}
		return 0
	}
	t, err := engine.ParseClock(s)
	if err != nil {
		r.at(path, "%v", err)
	}
	return t
}

func (r *reader) dur(path, s string, required bool) engine.Duration {
	if s == "" {
		if required {
			r.at(path, "missing %s (a duration like \"30s\")", lastKey(path))
		}
		return 0
	}
	d, err := engine.ParseDuration(s, false)
	if err != nil {
		r.at(path, "%v", err)
	}
	return d
}

func lastKey(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return strings.TrimSuffix(path[i+1:], "]")
	}
	return path
}

// scalar renders a YAML value as the string --set would take.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, scalar(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func (r *reader) settings(path string, m yaml.MapSlice, allowed []string) []engine.Setting {
	var out []engine.Setting
	for _, it := range m {
		k := fmt.Sprint(it.Key)
		p := path + "." + k
		if allowed != nil && !contains(allowed, k) {
			r.at(p, "unknown key %q in %s (allowed: %s)", k, lastKey(path), strings.Join(allowed, ", "))
			continue
		}
		if _, ok := engine.LookupKnob(k); !ok {
			r.at(p, "unknown knob %q (knobs: %s)", k, strings.Join(engine.KnobNames(), ", "))
			continue
		}
		s := engine.Setting{Knob: k, Value: scalar(it.Value)}
		knob, _ := engine.LookupKnob(k)
		var probe engine.Params
		if err := knob.Set(&probe, s.Value); err != nil {
			r.at(p, "knob %s=%s: %v", k, s.Value, err)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (r *reader) expect(path string, m yaml.MapSlice) []engine.Expectation {
	var out []engine.Expectation
	for _, it := range m {
		k := fmt.Sprint(it.Key)
		e := engine.Expectation{Key: k, Want: scalar(it.Value)}
		if err := engine.CheckExpectationSyntax(e); err != nil {
			r.at(path+"."+k, "%v", err)
			continue
		}
		out = append(out, e)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Parse reads one incident file. name is used in error positions.
func Parse(name string, data []byte) (spec *engine.Spec, err error) {
	defer func() {
		// the YAML library is third-party code fed user input: a panic in
		// it must still come out as a positioned error, not a stack trace
		if p := recover(); p != nil {
			spec, err = nil, Problems{{name, 1, 1, fmt.Sprintf("cannot read this file: %v", p)}}
		}
	}()
	af, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlProblem(name, err)
	}
	var f file
	if err := yaml.UnmarshalWithOptions(data, &f, yaml.Strict()); err != nil {
		return nil, yamlProblem(name, err)
	}
	r := &reader{name: name, ast: af}
	spec = r.build(&f)
	if len(r.probs) > 0 {
		sort.SliceStable(r.probs, func(i, j int) bool {
			a, b := r.probs[i], r.probs[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		return nil, r.probs
	}
	return spec, nil
}

func yamlProblem(name string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line, col := 1, 1
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line, col = tk.Position.Line, tk.Position.Column
		}
		return Problems{{name, line, col, ye.GetMessage()}}
	}
	msg := err.Error()
	// some decoder errors carry "[line:col] message" in their text
	if strings.HasPrefix(msg, "[") {
		if end := strings.Index(msg, "]"); end > 0 {
			var line, col int
			if n, _ := fmt.Sscanf(msg[1:end], "%d:%d", &line, &col); n == 2 {
				return Problems{{name, line, col, strings.TrimSpace(strings.SplitN(msg[end+1:], "\n", 2)[0])}}
			}
		}
	}
	return Problems{{name, 1, 1, strings.SplitN(msg, "\n", 2)[0]}}
}
