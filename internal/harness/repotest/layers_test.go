package repotest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayers: the rooms of internal/ (docs/vocabulary.md) hold. Outside the harnesses
// themselves, only test files import internal/harness/…; and the packages that import testing
// from non-test files are the harnesses.
func TestLayers(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	const module = "github.com/gamewire/gamewire/"
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		harness := strings.HasPrefix(rel, "internal/harness/")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case !harness && strings.HasPrefix(p, module+"internal/harness/"):
				t.Errorf("%s imports the test harness %s", rel, p)
			case !harness && p == "testing" && f.Name.Name != "main":
				t.Errorf("%s imports testing outside internal/harness", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d files checked", n)
	}
}
