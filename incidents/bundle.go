package incidents

import (
	"embed"
	"fmt"
	"os"
	"sort"
	"strings"

	"inflight/engine"
)

//go:embed *.yaml
var bundled embed.FS

// Order is the order incidents are listed in: the lessons' order.
var order = []string{"thursday", "thursday-fixed", "christmas-friday", "cashback", "galewatch", "stagefront",
	"fifo-window", "kafka-restart", "ordering", "db-down"}

// All returns every bundled incident, in the lessons' order. A bundled
// file that does not parse is a bug caught by the tests, so it panics.
func All() []*engine.Spec {
	entries, err := bundled.ReadDir(".")
	if err != nil {
		panic(err)
	}
	var out []*engine.Spec
	for _, e := range entries {
		data, err := bundled.ReadFile(e.Name())
		if err != nil {
			panic(err)
		}
		s, err := Parse("incidents/"+e.Name(), data)
		if err != nil {
			panic(fmt.Sprintf("bundled incident: %v", err))
		}
		out = append(out, s)
	}
	rank := func(id string) int {
		for i, x := range order {
			if x == id {
				return i
			}
		}
		return len(order)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i].ID), rank(out[j].ID)
		return ri < rj || (ri == rj && out[i].ID < out[j].ID)
	})
	return out
}

// IDs lists the bundled incident ids.
func IDs() []string {
	var ids []string
	for _, s := range All() {
		ids = append(ids, s.ID)
	}
	return ids
}

// Get returns a bundled incident by id.
func Get(id string) (*engine.Spec, error) {
	for _, s := range All() {
		if s.ID == id {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown incident %q (incidents: %s)", id, strings.Join(IDs(), ", "))
}

// Load reads a user's incident file.
func Load(path string) (*engine.Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("incident file: %w", err)
	}
	return Parse(path, data)
}
