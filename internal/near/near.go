// Package near suggests the name a user meant when the one typed is
// unknown: a misspelling of a known name, or one word of a longer one
// ("timeout" for visibility_timeout).
package near

import "strings"

// Misspelt returns the known name within two edits of k (one for a name
// of up to five letters), if exactly one is.
func Misspelt(k string, known []string) string {
	limit := Limit(k)
	best, n := "", 0
	for _, c := range known {
		if Distance(k, c, limit) <= limit {
			best, n = c, n+1
		}
	}
	if n == 1 {
		return best
	}
	return ""
}

// Meant returns what k was likely meant to be: its one misspelling
// (Misspelt), or else every known name that has k as one of its
// underscore-separated words, in known's order. None when neither.
func Meant(k string, known []string) []string {
	if m := Misspelt(k, known); m != "" {
		return []string{m}
	}
	if k == "" || strings.Contains(k, "_") {
		return nil
	}
	var out []string
	for _, c := range known {
		for w := range strings.SplitSeq(c, "_") {
			if w == k && w != c {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Limit is how many edits a misspelling of k may be: one for a short
// name, two for a longer one.
func Limit(k string) int { return max(1, min(2, len(k)/3)) }

// Distance is the Levenshtein distance of a and b, or more than max once
// it is sure to be (names are short, but one typed may be hostile).
func Distance(a, b string, max int) int {
	if len(a) > 64 || len(b) > 64 || len(a)-len(b) > max || len(b)-len(a) > max {
		return max + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
