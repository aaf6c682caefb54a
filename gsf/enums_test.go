package gsf

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestGeneratedConstants checks enums_gen.go against the embedded table: every constant has
// the table's value for the name in its comment, and every entry of the three tables has a
// constant. Run "go generate ./gsf" after changing enums.json.
func TestGeneratedConstants(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "enums_gen.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]string{"ServiceClass": "serviceClass", "ResultCode": "resultCode", "AppCode": "appCode"}
	seen := map[string]int{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			typ := vs.Type.(*ast.Ident).Name
			table := tables[typ]
			name := strings.TrimSpace(vs.Comment.Text())
			var val int64
			switch x := vs.Values[0].(type) {
			case *ast.BasicLit:
				val, _ = strconv.ParseInt(x.Value, 10, 32)
			case *ast.UnaryExpr:
				val, _ = strconv.ParseInt(x.X.(*ast.BasicLit).Value, 10, 32)
				val = -val
			}
			want, ok := EnumNames(table)[name]
			if !ok || int64(want) != val {
				t.Errorf("%s %s = %d, the table says %d (%v)", typ, vs.Names[0], val, want, ok)
			}
			seen[table]++
		}
	}
	for _, table := range tables {
		if seen[table] != len(EnumNames(table)) {
			t.Errorf("%s: %d constants for %d entries", table, seen[table], len(EnumNames(table)))
		}
	}
}
