package schema

import (
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\tX int32\n", "a field outside a block"},
		{"object A\n\tX\n", "want NAME TYPE"},
		{"object A\n\tX nosuchtype\n", `unknown wire type "nosuchtype"`},
		{"object A\n\tX B\n", "object B is not defined"},
		{"object A\n\t...B\n", "object B is not defined"},
		{"object A\n\tX ?A\n", "only leaf types are nullable"},
		{"object A\n\tX *int32\n", "only objects"},
		{"request USER_SERVER LOGIN\n", "want request CLASS TYPE NAME"},
		{"thing A\n", `unknown block "thing"`},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseTypes(t *testing.T) {
	c, err := Parse([]byte("# a comment\nobject P\n\tX int32\nnotify CLIENT CHAT N\n\t...P\n\tM map[][]P\n\tQ ?char\n\tR *P\n\tS SessionStatus\n"))
	if err != nil {
		t.Fatal(err)
	}
	n := c.Message("N")
	if n == nil || len(n.Fields) != 5 || len(c.Flat(n)) != 5 || c.Flat(n)[0].Name != "X" {
		t.Fatalf("%+v", n)
	}
	var got []string
	for _, f := range n.Fields[1:] {
		g, tag := GoType(f.Type)
		got = append(got, f.Type.String()+"="+g+"/"+tag)
	}
	want := "map[][]P=map[string][]P/ ?char=*rune/char *P=*P/ SessionStatus=SessionStatus/"
	if strings.Join(got, " ") != want {
		t.Errorf("%s\nwant %s", strings.Join(got, " "), want)
	}
	if Camel("GET_CMS_ITEMCATEGORIES") != "GetCMSItemcategories" || Camel("GET_PUBLIC_ITEMS_BY_OIDS") != "GetPublicItemsByOIDs" || Camel("GET_PLAYER_NPCS") != "GetPlayerNPCs" {
		t.Error("Camel")
	}
}
