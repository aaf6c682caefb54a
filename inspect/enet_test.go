package inspect

import (
	"encoding/hex"
	"testing"
)

func TestENetFormat(t *testing.T) {
	b, _ := hex.DecodeString("8000b78c01ff00010001b78a85ff0002")
	ex, err := explainENet(b, map[string]string{})
	if err != nil || len(ex.Nodes) != 3 || len(ex.Errors) != 0 {
		t.Fatalf("%v, %d nodes, errors %v", err, len(ex.Nodes), ex.Errors)
	}
	if n := ex.Nodes[1]; n.Name != "command[0]" || n.Type != "ACKNOWLEDGE" || n.Off != 4 || n.Len != 8 {
		t.Fatalf("command node %+v", n)
	}
	ex, _ = explainENet(b[:10], map[string]string{})
	if len(ex.Errors) != 1 || ex.Errors[0].Off != 4 {
		t.Fatalf("truncated: %+v", ex.Errors)
	}
}
