package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Expectation syntax: an exact value ("108", "0", "16:55:22.5", "true"), an
// inclusive range ("0.45..0.60", "17:52..17:54"), a bound ("<=95", ">0"), or
// a list of alert names ("[]", "[oldest_age]").

// CheckExpectationSyntax reports whether e.Want can be read.
func CheckExpectationSyntax(e Expectation) error {
	if e.Key == "" {
		return fmt.Errorf("an expectation needs a key")
	}
	w := strings.TrimSpace(e.Want)
	if w == "" {
		return fmt.Errorf("expect %s: empty value", e.Key)
	}
	switch {
	case strings.HasPrefix(w, "["):
		if !strings.HasSuffix(w, "]") {
			return fmt.Errorf("expect %s: unclosed list %q", e.Key, w)
		}
	case strings.Contains(w, ".."):
		lo, hi, _ := strings.Cut(w, "..")
		l, err := number(lo)
		if err != nil {
			return fmt.Errorf("expect %s: range %q: %v", e.Key, w, err)
		}
		h, err := number(hi)
		if err != nil {
			return fmt.Errorf("expect %s: range %q: %v", e.Key, w, err)
		}
		if l > h {
			// no figure is in it: the expectation could only fail
			return fmt.Errorf("expect %s: range %q is upside down (%s is above %s); write it low..high", e.Key, w, strings.TrimSpace(lo), strings.TrimSpace(hi))
		}
	case strings.HasPrefix(w, "<") || strings.HasPrefix(w, ">"):
		if _, err := number(strings.TrimLeft(w, "<>=")); err != nil {
			return fmt.Errorf("expect %s: bound %q: %v", e.Key, w, err)
		}
	}
	return nil
}

// number reads a figure or a clock ("17:53" → seconds since midnight).
func number(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ":") {
		t, err := ParseClock(s)
		return t.Seconds(), err
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		// NaN would never equal a figure, not even itself
		return 0, fmt.Errorf("%q is not a number or a clock", s)
	}
	return f, nil
}

// Matches reports whether got satisfies want.
func Matches(want, got string) bool {
	w, g := strings.TrimSpace(want), strings.TrimSpace(got)
	switch {
	case strings.HasPrefix(w, "["):
		return normList(w) == normList(g)
	case strings.Contains(w, ".."):
		lo, hi, _ := strings.Cut(w, "..")
		l, _ := number(lo)
		h, _ := number(hi)
		v, err := number(g)
		return err == nil && v >= l-1e-9 && v <= h+1e-9
	case strings.HasPrefix(w, "<=") || strings.HasPrefix(w, ">=") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, ">"):
		opLen := 1
		if strings.HasPrefix(w[1:], "=") {
			opLen = 2
		}
		b, _ := number(w[opLen:])
		v, err := number(g)
		if err != nil {
			return false
		}
		switch w[:opLen] {
		case "<=":
			return v <= b+1e-9
		case ">=":
			return v >= b-1e-9
		case "<":
			return v < b
		}
		return v > b
	}
	if a, err := number(w); err == nil {
		b, err := number(g)
		return err == nil && math.Abs(a-b) < 1e-9
	}
	return w == g
}

func normList(s string) string {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	var parts []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// Figure reads one of the incident's own whole-number figures
// ("crashes", "balance"), or -1 when it has none by that name.
func (s Summary) Figure(k string) int64 {
	switch v := s.Figures[k].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	}
	return -1
}

// Flat flattens a summary into the keys expectations use: every JSON key,
// "figures.X", "alert.NAME" and "would_have.NAME" (first firing), and
// "alerts"/"would_have_fired" as name lists.
func (s Summary) Flat() map[string]string {
	out := map[string]string{}
	b, _ := json.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for k, v := range m {
		switch k {
		case "figures":
			for fk, fv := range v.(map[string]any) {
				out["figures."+fk] = fmt.Sprint(fv)
			}
		case "alerts", "would_have_fired":
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	list := func(fs []AlertFiring, prefix string) string {
		var names []string
		for _, f := range fs {
			names = append(names, f.Name)
			out[prefix+f.Name] = f.At
		}
		return "[" + strings.Join(names, ",") + "]"
	}
	out["alerts"] = list(s.Alerts, "alert.")
	out["would_have_fired"] = list(s.WouldHaveFired, "would_have.")
	return out
}
