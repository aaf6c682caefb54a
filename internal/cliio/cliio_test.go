package cliio

import (
	"bytes"
	"errors"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		f    Format
		want []byte
	}{
		{"15 20 c2", Auto, []byte{0x15, 0x20, 0xc2}},
		{"0x15,0x20\n0xC2", Hex, []byte{0x15, 0x20, 0xc2}},
		{"0f:00:00:80", Auto, []byte{0x0f, 0, 0, 0x80}},
		{"AgAAAAEAAAA=", Auto, []byte{2, 0, 0, 0, 1, 0, 0, 0}},
		{"AgAAAAEAAAA", Base64, []byte{2, 0, 0, 0, 1, 0, 0, 0}},
		{"\x00\x01zz", Auto, []byte{0, 1, 'z', 'z'}},
		{"abc", Raw, []byte("abc")},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.in), tt.f)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("Decode(%q, %s) = %x, %v; want %x", tt.in, tt.f, got, err, tt.want)
		}
	}
	if _, err := Decode([]byte("abc"), Hex); err == nil {
		t.Error("odd hex accepted")
	}
	if _, err := Decode([]byte("  \n"), Hex); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty hex: %v", err)
	}
	if _, err := ParseFormat("nope"); err == nil {
		t.Error("bad format accepted")
	}
}
