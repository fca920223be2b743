package savedtree

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	_ "inflight/incidents" // the families, whose knobs a code names
)

const (
	fork1 = "thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=vt60"
	fork2 = "thursday@1/p178@19:52:00;visibility_timeout=60s/p300@20:15:52;fault=after_claim:20.1#300.0a1b2c3d~2;n1=vt60"
	at2   = "thursday@1/p178@19:52:00;visibility_timeout=60s/p300@20:15:52;fault=after_claim:20.1#420.567752c3~2;at=20:16:00;n1=vt60"
	other = "thursday@1/p90@19:45:00;late_ack=accept#90.00c0ffee"
)

var good = Header + "\nbranch 0 " + fork1 + "\nbranch 1 " + fork2 + "\nbranch 0 " + other + "\ncursor 2 " + at2 + "\n"

func TestParseRoundTrip(t *testing.T) {
	tr, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Branches) != 3 || tr.Branches[1].Parent != 1 || tr.Branches[2].Parent != 0 || tr.Cursor != 2 || tr.At.String() != at2 {
		t.Fatalf("parsed %+v", tr)
	}
	if got := string(tr.Format()); got != good {
		t.Fatalf("formats as\n%s\nnot\n%s", got, good)
	}
	main := Header + "\ncursor 0 thursday@1#12.0badc0de\n"
	if tr, err := Parse([]byte(main)); err != nil || tr.Cursor != 0 || len(tr.Branches) != 0 {
		t.Fatalf("main only: %+v, %v", tr, err)
	}
}

// Every bad file is refused with a line naming where and what.
func TestParseRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"empty":              {"", "cut short"},
		"no final newline":   {strings.TrimSuffix(good, "\n"), "cut short"},
		"another header":     {"inflight branches 2\n" + good[len(Header)+1:], "line 1: want"},
		"no cursor":          {Header + "\nbranch 0 " + fork1 + "\n", "no cursor line"},
		"after the cursor":   {good + "branch 0 " + fork1 + "\n", "line 6: a line after the cursor"},
		"unknown line":       {Header + "\nbrunch 0 " + fork1 + "\n", "line 2: want"},
		"parent ahead":       {Header + "\nbranch 1 " + fork1 + "\ncursor 0 thursday@1#0.00000000\n", "line 2: branch number"},
		"parent 01":          {Header + "\nbranch 00 " + fork1 + "\ncursor 0 thursday@1#0.00000000\n", "line 2: branch number"},
		"negative":           {Header + "\ncursor -1 thursday@1#0.00000000\n", "line 2: branch number"},
		"bad code":           {Header + "\nbranch 0 thursday@1/p1#end\ncursor 0 thursday@1#0.00000000\n", "line 2: share code"},
		"spaced code":        {Header + "\nbranch 0 " + fork1[:20] + " " + fork1[20:] + "\ncursor 0 thursday@1#0.00000000\n", "line 2: the code is not written"},
		"another run":        {Header + "\nbranch 0 " + fork1 + "\ncursor 0 thursday@2#0.00000000\n", "line 3: the code is of thursday@2"},
		"not a fork of it":   {Header + "\nbranch 0 " + fork2 + "\ncursor 0 thursday@1#0.00000000\n", "line 2: the code is not a fork of branch 0"},
		"renamed parent":     {Header + "\nbranch 0 " + fork1 + "\nbranch 1 " + strings.Replace(fork2, "n1=vt60", "n1=vt61", 1) + "\ncursor 0 thursday@1#0.00000000\n", "line 3: the code is not a fork of branch 1"},
		"cursor elsewhere":   {Header + "\nbranch 0 " + fork1 + "\ncursor 0 " + fork1 + "\n", "line 3: the cursor's code is not on branch 0"},
		"fork past cursor":   {Header + "\nbranch 0 " + strings.Replace(fork1, "#178.", "#179.", 1) + "\ncursor 0 thursday@1#0.00000000\n", "at its fork point"},
		"clock fork":         {Header + "\nbranch 0 thursday@1/@19:52:00;visibility_timeout=60s#end.1dde67ec\ncursor 0 thursday@1#0.00000000\n", "at its fork point"},
		"too large":          {Header + "\n" + strings.Repeat("x", MaxBytes), "bytes; a saved tree has at most"},
		"CRLF":               {strings.ReplaceAll(good, "\n", "\r\n"), "line 1: want"},
		"escape in a name":   {Header + "\nbranch 0 thursday@1/p178@19:52:00;visibility_timeout=60s#178.1dde67ec~2;n1=%1B%5D52\ncursor 0 thursday@1#0.00000000\n", "line 2: share code"},
		"more than the caps": {Header + "\n" + strings.Repeat("branch 0 "+fork1+"\n", MaxBranches+1) + "cursor 0 thursday@1#0.00000000\n", "more than 256 branches"},
	} {
		_, err := Parse([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 400 {
			t.Errorf("%s: %v, want one line with %q", name, err, tc.want)
		}
	}
}

// A saved tree is read strictly and bounded: whatever the bytes, Parse
// ends with a tree that formats back to exactly them, or one short line.
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add(Header + "\ncursor 0 thursday@1#12.0badc0de\n")
	f.Add(Header + "\nbranch 0 " + fork1 + "\ncursor 1 " + fork1 + "\n")
	f.Add(Header + "\nbranch 0 " + fork1 + "\nbranch 1 " + fork2 + "\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := Parse([]byte(s))
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 600 {
				t.Fatalf("error of %d bytes: %.300q", len(msg), msg)
			}
			return
		}
		if got := string(tr.Format()); got != s {
			t.Fatalf("%q parses, but formats as %q", s, got)
		}
		if tr.Cursor < 0 || tr.Cursor > len(tr.Branches) || len(tr.Branches) > MaxBranches {
			t.Fatalf("accepted cursor %d of %d branches", tr.Cursor, len(tr.Branches))
		}
		for i, b := range tr.Branches {
			if b.Parent < 0 || b.Parent > i {
				t.Fatalf("branch %d's parent %d is not before it", i+1, b.Parent)
			}
		}
	})
}

func TestDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/state")
	if d, err := Dir(); err != nil || d != "/var/state/inflight" {
		t.Errorf("XDG_STATE_HOME set: %s, %v", d, err)
	}
	t.Setenv("HOME", "/home/ann")
	for _, v := range []string{"", "relative/state"} { // the spec ignores a relative one
		t.Setenv("XDG_STATE_HOME", v)
		if d, err := Dir(); err != nil || d != "/home/ann/.local/state/inflight" {
			t.Errorf("XDG_STATE_HOME=%q: %s, %v", v, d, err)
		}
	}
}

func TestName(t *testing.T) {
	if n := Name("thursday", ""); n != "thursday.branches" {
		t.Errorf("bundled: %s", n)
	}
	a, b := Name("thursday", "/a/x.yaml"), Name("thursday", "/b/x.yaml")
	if a == b || !strings.HasPrefix(a, "thursday-file-") || Name("thursday", "/a/x.yaml") != a {
		t.Errorf("two files of one id: %s, %s", a, b)
	}
	for _, id := range []string{"../../etc/passwd", "a/b", "", strings.Repeat("x", 65), "\x1b]0"} {
		if n := Name(id, ""); strings.ContainsAny(n, "/\\\x1b") || !strings.HasPrefix(n, "id-") || n == Name("other", "") {
			t.Errorf("id %q: file %q", id, n)
		}
	}
}

func TestWriteRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "inflight")
	p := filepath.Join(dir, "thursday.branches")
	for _, data := range []string{good, Header + "\ncursor 0 thursday@1#12.0badc0de\n"} {
		if err := Write(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v", got, err)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 { // no temporary file left beside it
		t.Fatalf("the directory holds %d files", len(es))
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", fi.Mode().Perm())
	}
	if _, err := Read(dir); err == nil {
		t.Error("read a directory")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		if _, err := Read(fifo); err == nil {
			t.Error("read a FIFO")
		}
	}
	big := filepath.Join(t.TempDir(), "big")
	os.WriteFile(big, make([]byte, MaxBytes+1), 0o600)
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a large file: %v", err)
	}
}
