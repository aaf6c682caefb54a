package goname

import "testing"

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{
		"GET_CLIENT_VERSION_INFO": "GetClientVersionInfo",
		"GET_NPCS":                "GetNPCs",
		"PLAYER_OID":              "PlayerOID",
		"OK":                      "OK",
		"__A__B":                  "AB",
	} {
		if got := Camel(in); got != want {
			t.Errorf("Camel(%q) = %q, want %q", in, got, want)
		}
	}
}
