package incidents

import (
	"embed"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"inflight/engine"
)

//go:embed *.yaml
var bundled embed.FS

// DefaultID is the incident a command or the explorer opens when none is
// named: the first lesson's.
const DefaultID = "thursday"

// Order is the order incidents are listed in: the lessons' order.
var order = []string{DefaultID, "thursday-fixed", "christmas-friday", "cashback", "galewatch", "stagefront",
	"fifo-window", "kafka-restart", "ordering", "db-down"}

// All returns every bundled incident, in the lessons' order. Each file is
// parsed once per process, when first asked for (bundle), and every caller
// shares the specs, which nothing changes once parsed; the slice is the
// caller's.
func All() []*engine.Spec {
	b := bundle()
	out := make([]*engine.Spec, len(b.ids))
	for i, id := range b.ids {
		out[i] = b.parsed[id]()
	}
	return out
}

// catalogue is the bundled files by id, each parsed on first use: a
// command names one incident, and parsing all ten cost it some 40 ms of
// start-up. A file is named after its incident's id (checked when it is
// parsed). A bundled file that does not parse is a bug caught by the
// tests, so it panics (on every call, as OnceValue repeats a panic).
type catalogue struct {
	ids    []string // in the lessons' order
	parsed map[string]func() *engine.Spec
}

var bundle = sync.OnceValue(func() catalogue {
	entries, err := bundled.ReadDir(".")
	if err != nil {
		panic(err)
	}
	c := catalogue{parsed: map[string]func() *engine.Spec{}}
	for _, e := range entries {
		name := e.Name()
		id := strings.TrimSuffix(name, ".yaml")
		c.ids = append(c.ids, id)
		c.parsed[id] = sync.OnceValue(func() *engine.Spec {
			data, err := bundled.ReadFile(name)
			if err != nil {
				panic(err)
			}
			s, err := Parse("incidents/"+name, data)
			if err != nil {
				panic(fmt.Sprintf("bundled incident: %v", err))
			}
			if s.ID != id {
				panic(fmt.Sprintf("bundled incident: incidents/%s has id %q: a bundled file is named after its id", name, s.ID))
			}
			return s
		})
	}
	rank := func(id string) int {
		if i := slices.Index(order, id); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.SliceStable(c.ids, func(i, j int) bool {
		ri, rj := rank(c.ids[i]), rank(c.ids[j])
		return ri < rj || (ri == rj && c.ids[i] < c.ids[j])
	})
	return c
})

// IDs lists the bundled incident ids, in the lessons' order.
func IDs() []string { return slices.Clone(bundle().ids) }

// Get returns a bundled incident by id, parsing only that one.
func Get(id string) (*engine.Spec, error) {
	if p, ok := bundle().parsed[id]; ok {
		return p(), nil
	}
	return nil, fmt.Errorf("unknown incident %q (incidents: %s)", id, strings.Join(IDs(), ", "))
}

// ForCode is the incident a share code opens on: file, the incident file
// the code was made on, when given (a code of another incident is refused
// by the engine), else the bundled incident the code names. The command
// line and the SSH server find a code's incident here.
func ForCode(c engine.Code, file *engine.Spec) (*engine.Spec, error) {
	if file != nil {
		return file, nil
	}
	return Get(c.Incident)
}

// Load reads a user's incident file. Whatever the path names, it is
// refused before it is parsed if it is not a regular file (a directory, a
// FIFO, /dev/zero) or is larger than MaxFileBytes; a file that grows while
// it is read is cut at the cap and refused.
func Load(path string) (*engine.Spec, error) {
	data, err := readCapped(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

func readCapped(path string) ([]byte, error) {
	whole := func(format string, args ...any) error {
		return Problems{{path, 0, 0, fmt.Sprintf(format, args...)}}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("incident file: %w", err)
	}
	if err := regular(fi, whole); err != nil {
		return nil, err
	}
	// O_NONBLOCK: were the file swapped for a FIFO after the Stat, opening
	// it must not wait for a writer; the Stat of the open file refuses it
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("incident file: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("incident file: %w", err)
	}
	if err := regular(fi, whole); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("incident file: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, whole("larger than %d bytes (%d MiB), the most an incident file may hold", MaxFileBytes, MaxFileBytes>>20)
	}
	return data, nil
}

func regular(fi os.FileInfo, whole func(string, ...any) error) error {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return whole("a directory, not an incident file")
	case !m.IsRegular():
		kind := "not a regular file"
		switch {
		case m&os.ModeNamedPipe != 0:
			kind = "a named pipe (FIFO)"
		case m&os.ModeCharDevice != 0, m&os.ModeDevice != 0:
			kind = "a device"
		case m&os.ModeSocket != 0:
			kind = "a socket"
		}
		return whole("%s, not an incident file: only a regular file is read", kind)
	case fi.Size() > MaxFileBytes:
		return whole("%d bytes; an incident file may be at most %d (%d MiB)", fi.Size(), MaxFileBytes, MaxFileBytes>>20)
	}
	return nil
}
