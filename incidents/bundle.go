package incidents

import (
	"embed"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"

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
