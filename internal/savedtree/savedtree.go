// Package savedtree keeps a local explorer's branch tree between runs: a
// small text file per incident in the user's state directory, written on
// quit and offered back by the next `inflight` on that incident.
//
// The file is input like an incident file: it may be cut short, edited,
// or left by another version. Parse reads it strictly, bounded in size,
// and says what is wrong and on which line; the explorer reports a file it
// cannot use in one line and starts fresh.
//
// A file is a header, one line per branch but main, in the order they
// were made (a parent before its forks), and the cursor:
//
//	inflight branches 1
//	branch 0 thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=vt60
//	branch 1 thursday@1/p178@19:52:00;visibility_timeout=60s/p300@20:15:52;fault=after_claim:20.1#300.0a1b2c3d
//	cursor 2 thursday@1/p178@19:52:00;visibility_timeout=60s/p300@20:15:52;fault=after_claim:20.1#420.567752c3~2;at=20:16:00
//
// A branch line is its parent's number (main is 0, the file's branches
// 1, 2, … in order) and the branch's share code at its fork point, whose
// fingerprint checks that the incident still plays the same up to it. The
// cursor line is the number of the branch the cursor is on and the share
// code of the moment on screen.
package savedtree

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"inflight/engine"
)

// Header is a saved tree's first line; the number is the format's.
const Header = "inflight branches 1"

// The caps: far above a tree anyone explores by hand (each branch is a
// few hundred bytes), low enough that reading one is instant.
const (
	MaxBranches = 256
	MaxBytes    = 512 << 10
)

// Tree is a saved branch tree.
type Tree struct {
	Branches []Branch    // every branch but main, in the order made
	Cursor   int         // the cursor's branch: 0 main, i the i-th of Branches
	At       engine.Code // the moment on screen, on that branch
}

// Branch is one fork: its parent (0 main, i the i-th of Branches, before
// it) and its share code at the fork point.
type Branch struct {
	Parent int
	Code   engine.Code
}

// Format is the tree as its file holds it.
func (t Tree) Format() []byte {
	var b strings.Builder
	b.WriteString(Header + "\n")
	for _, br := range t.Branches {
		fmt.Fprintf(&b, "branch %d %s\n", br.Parent, br.Code)
	}
	fmt.Fprintf(&b, "cursor %d %s\n", t.Cursor, t.At)
	return []byte(b.String())
}

// Parse reads a saved tree, strictly: the header, branch lines whose
// codes parse, are of one run and each extend its parent's path by one
// fork at its fork point, then one cursor line on one of them. Errors
// name the line.
func Parse(data []byte) (Tree, error) {
	var t Tree
	if len(data) > MaxBytes {
		return t, fmt.Errorf("%d bytes; a saved tree has at most %d", len(data), MaxBytes)
	}
	text := string(data)
	if !strings.HasSuffix(text, "\n") {
		return t, errors.New("cut short: the last line has no end (a write that did not finish)")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != Header {
		return t, fmt.Errorf("line 1: want %q, the header of a saved tree of this version", Header)
	}
	var paths []engine.Code // by branch number: main's, then each line's
	cursor := false
	for i, l := range lines[1:] {
		n := i + 2
		bad := func(format string, a ...any) (Tree, error) {
			return Tree{}, fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, a...))
		}
		if cursor {
			return bad("a line after the cursor's, which is the last")
		}
		kind, rest, _ := strings.Cut(l, " ")
		num, code, ok := strings.Cut(rest, " ")
		if kind != "branch" && kind != "cursor" || !ok {
			return bad("want \"branch PARENT CODE\" or \"cursor BRANCH CODE\"")
		}
		if len(num) > 4 {
			return bad("branch number %.8q is not one of this tree's", num)
		}
		k, err := strconv.Atoi(num)
		if err != nil || k < 0 || k > len(t.Branches) || strconv.Itoa(k) != num {
			return bad("branch number %.8q is not one of the %d branches before it", num, len(t.Branches)+1)
		}
		c, err := engine.ParseCode(code)
		if err != nil {
			return bad("%v", err)
		}
		if code != c.String() {
			return bad("the code is not written as this version writes it")
		}
		if paths == nil { // the first code names the run: main's path is its start
			paths = []engine.Code{{Incident: c.Incident, Seed: c.Seed, Set: c.Set}}
		}
		parent := paths[k]
		if pathOf(c, 0) != pathOf(parent, 0) {
			return bad("the code is of %s, the tree's first of %s", runOf(c), runOf(parent))
		}
		if kind == "cursor" {
			if len(c.Forks) != len(parent.Forks) || pathOf(c, len(c.Forks)) != pathOf(parent, len(parent.Forks)) {
				return bad("the cursor's code is not on branch %d", k)
			}
			t.Cursor, t.At, cursor = k, c, true
			continue
		}
		if len(t.Branches) == MaxBranches {
			return bad("more than %d branches", MaxBranches)
		}
		if len(c.Forks) != len(parent.Forks)+1 || pathOf(c, len(parent.Forks)) != pathOf(parent, len(parent.Forks)) {
			return bad("the code is not a fork of branch %d", k)
		}
		if f := c.Forks[len(c.Forks)-1]; f.Pos < 0 || c.Cursor != f.Pos || c.HasAt || c.HasSel {
			return bad("a branch's code is at its fork point, an event, and nothing more")
		}
		t.Branches = append(t.Branches, Branch{Parent: k, Code: c})
		paths = append(paths, c)
	}
	if !cursor {
		return Tree{}, errors.New("no cursor line: the file ends before it")
	}
	return t, nil
}

// pathOf is c's run and its first n forks, their names included, as a
// code writes them.
func pathOf(c engine.Code, n int) string {
	return engine.Code{Incident: c.Incident, Seed: c.Seed, Set: c.Set, Forks: c.Forks[:n]}.String()
}

// runOf is a code's incident and seed, for a line saying they differ.
func runOf(c engine.Code) string { return fmt.Sprintf("%s@%d", c.Incident, c.Seed) }

// Dir is the directory saved trees go in: $XDG_STATE_HOME/inflight, or
// ~/.local/state/inflight when it is unset (the XDG base directories:
// state that should survive a restart but is not configuration, which
// os.UserConfigDir is for, nor a cache, which may be wiped).
func Dir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) { // the spec ignores a relative one
		return filepath.Join(d, "inflight"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %w (set XDG_STATE_HOME)", err)
	}
	return filepath.Join(home, ".local", "state", "inflight"), nil
}

// Name is the file an incident's tree goes in: by the incident's id and,
// for an incident file, a hash of its absolute path, so two files that
// give the same id keep their trees apart. An id with characters a file
// name should not hold is written by its hash too.
func Name(id, file string) string {
	safe := id != "" && len(id) <= 64
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			safe = false
		}
	}
	name := id
	if !safe {
		name = "id-" + hash8(id)
	}
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
		name += "-file-" + hash8(file)
	}
	return name + ".branches"
}

// hash8 is FNV-1a of s, in hex: a file name's stable tag, not a secret.
func hash8(s string) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return fmt.Sprintf("%016x", h)
}

// Read reads the file at path, at most MaxBytes of it, refusing what is
// not a regular file; a missing file is os.ErrNotExist.
func Read(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	// O_NONBLOCK: a file swapped for a FIFO after the Stat must not
	// wait for a writer; the open file's Stat refuses it
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("larger than %d bytes, the most a saved tree holds", MaxBytes)
	}
	return data, nil
}

// Write puts data at path atomically: a temporary file beside it, synced,
// then renamed over it, so a crash mid-write leaves the old tree or the
// new, never half of one. It makes the directory (private: a tree names
// what the user explored).
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
