package bitproto

import "testing"

// An explanation counts in words: "1 field, 1 bit", "1 bit after them".
func TestExplainFieldsSingular(t *testing.T) {
	fields, err := ParseFields("message:null")
	if err != nil {
		t.Fatal(err)
	}
	// The null's presence bit is 1; one more bit follows it.
	fr, err := ExplainFields([]byte{0x80}, 6, fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 field, 1 bit; 1 bit after them, not decoded"; fr.Summary != want {
		t.Errorf("summary %q, want %q", fr.Summary, want)
	}
}
