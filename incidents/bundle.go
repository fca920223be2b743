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

// All returns every bundled incident, in the lessons' order. The files
// are parsed once per process (catalogue), and every caller shares the
// specs, which nothing changes once parsed; the slice is the caller's.
func All() []*engine.Spec { return slices.Clone(catalogue()) }

// catalogue parses the bundled files on first use. A bundled file that
// does not parse is a bug caught by the tests, so it panics (on every
// call, as OnceValue repeats a panic).
var catalogue = sync.OnceValue(func() []*engine.Spec {
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
})

// IDs lists the bundled incident ids.
func IDs() []string {
	var ids []string
	for _, s := range catalogue() {
		ids = append(ids, s.ID)
	}
	return ids
}

// Get returns a bundled incident by id.
func Get(id string) (*engine.Spec, error) {
	for _, s := range catalogue() {
		if s.ID == id {
			return s, nil
		}
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
