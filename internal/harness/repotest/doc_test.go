package repotest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageComments: every package of the module has a package comment that starts
// "Package <name>" (or "Command <name>" for a main package), as go doc expects.
func TestPackageComments(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		// The package clauses of the directory's non-test files, by package name.
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		documented := map[string]bool{}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(path, e.Name()), nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				return err
			}
			name := f.Name.Name
			want := "Package " + name + " "
			if name == "main" {
				want = "Command "
			}
			documented[name] = documented[name] || f.Doc != nil && strings.HasPrefix(f.Doc.Text(), want)
		}
		for name, ok := range documented {
			n++
			if !ok {
				t.Errorf("%s: package %s has no package comment (\"Package %s …\" or \"Command …\")", path, name, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("found only %d packages", n)
	}
}
