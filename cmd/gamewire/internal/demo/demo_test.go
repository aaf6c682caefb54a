package demo

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := Run(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"identical to the engine's", `"PoolStringArray"`, "/root/Main/Player:position",
		"msgType = 566 (GET_CLIENT_VERSION_INFO)", `string = "AmazingWorld"`, "identical to the documentation's"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
}
