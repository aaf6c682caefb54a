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
// the table's value for the name in its comment, and every entry of the tables has a constant
// (the message types' constants are untyped, and their prefix names their table). Run "go generate ./gsf" after changing enums.json.
func TestGeneratedConstants(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "enums_gen.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]string{"ServiceClass": "serviceClass", "ResultCode": "resultCode", "AppCode": "appCode",
		"user": "userMessageType", "sync": "syncMessageType", "client": "clientMessageType"}
	seen := map[string]int{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			var typ string
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			} else {
				n := vs.Names[0].Name
				switch {
				case strings.HasPrefix(n, "SyncMsg"):
					typ = "sync"
				case strings.HasPrefix(n, "ClientMsg"):
					typ = "client"
				case strings.HasPrefix(n, "Msg"):
					typ = "user"
				}
			}
			table, ok := tables[typ]
			if !ok {
				t.Fatalf("constant %s: no table", vs.Names[0].Name)
			}
			name := strings.TrimSpace(vs.Comment.Text())
			var val int64
			switch x := vs.Values[0].(type) {
			case *ast.BasicLit:
				val, _ = strconv.ParseInt(x.Value, 10, 32)
			case *ast.UnaryExpr:
				val, _ = strconv.ParseInt(x.X.(*ast.BasicLit).Value, 10, 32)
				val = -val
			}
			want, found := EnumNames(table)[name]
			if !found || int64(want) != val {
				t.Errorf("%s %s = %d, the table says %d (%v)", typ, vs.Names[0], val, want, found)
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
