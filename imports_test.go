package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// familiesPath is where the families live: engine/families/<name>.
const familiesPath = "inflight/engine/families/"

// familyImportAllowed says whether the package in dir (relative to the
// module's root, slash-separated) may import path, a family's package: the
// incidents package (its registry), a family itself (its own
// subpackages), and a family's tests the shared test kit.
func familyImportAllowed(dir, path string, test bool) bool {
	if dir == "incidents" || strings.HasPrefix(dir, "incidents/") {
		return true
	}
	fam, _, _ := strings.Cut(strings.TrimPrefix(path, familiesPath), "/")
	own := "engine/families/" + fam
	if dir == own || strings.HasPrefix(dir, own+"/") {
		return true
	}
	return test && fam == "familytest" && strings.HasPrefix(dir, "engine/families/")
}

// TestNoFamilyImports: no package but the incidents registry and a family
// itself imports engine/families/*, test files included (issue 22: every
// system is a family, none privileged). Everything else reaches a family
// through the registry (incidents.Families, incidents.FamilyOf) or the
// engine's interfaces.
func TestNoFamilyImports(t *testing.T) {
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if strings.HasPrefix(path, familiesPath) && !familyImportAllowed(dir, path, strings.HasSuffix(p, "_test.go")) {
				bad = append(bad, filepath.ToSlash(p)+" imports "+path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d imports of a family outside incidents and the family's own package:\n\t%s", len(bad), strings.Join(bad, "\n\t"))
	}
}

// TestNoFamilyImportsSees: the rule's walk reads the tree it guards (a
// walk from the wrong directory would pass on nothing), and the rule
// tells allowed imports from others.
func TestNoFamilyImportsSees(t *testing.T) {
	if _, err := os.Stat("incidents/families.go"); err != nil {
		t.Fatalf("the test runs from the module's root, where incidents/families.go (the registry) is: %v", err)
	}
	for _, c := range []struct {
		dir, path string
		test, ok  bool
	}{
		{"incidents", familiesPath + "sqs", false, true},
		{"engine/families/ordering", familiesPath + "ordering/sub", false, true},
		{"engine/families/ordering", familiesPath + "familytest", true, true},
		{"engine/families/ordering", familiesPath + "familytest", false, false},
		{"engine/families/ordering", familiesPath + "sqs", true, false},
		{"engine/families/sq", familiesPath + "sqs", false, false},
		{"tui", familiesPath + "sqs", false, false},
		{"engine", familiesPath + "sqs", true, false},
		{"internal/randsuite", familiesPath + "familytest", true, false},
	} {
		if got := familyImportAllowed(c.dir, c.path, c.test); got != c.ok {
			t.Errorf("%s importing %s (test %v): allowed %v, want %v", c.dir, c.path, c.test, got, c.ok)
		}
	}
}
