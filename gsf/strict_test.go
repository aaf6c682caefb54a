package gsf

import (
	"errors"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
)

// TestDecodeStrict: a value that ends where the body does passes; one that leaves bits over or
// reads into the terminator fails with a *BodyError, and the lenient decode accepts both.
func TestDecodeStrict(t *testing.T) {
	type one struct{ A bool }
	h := NewRequest(SvcUserServer, MsgLogout, 1)
	frame, err := AppendMessage(nil, &h, &one{A: true})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := ConsumeMessage(frame)
	if err != nil {
		t.Fatal(err)
	}
	end := m.Body.BitOffset() + m.Body.BitLen()
	pad := end - m.Body.BitOffset() - 1 // the zero bits after A

	if err := m.Body.DecodeStrict(bitproto.DecodeMode{}, new(one)); err != nil {
		t.Errorf("exact: %v", err)
	}
	var be *BodyError
	if err := m.Body.DecodeStrict(bitproto.DecodeMode{}, new(struct{})); !errors.As(err, &be) || !errors.Is(err, ErrTrailingBits) || be.Left != pad+1 {
		t.Errorf("nothing decoded: %v", err)
	}
	// Nine bools: the body's bit, its padding, and the rest from the terminator.
	type bools struct{ A, B, C, D, E, F, G, H, I bool }
	var v bools
	if err := m.Body.DecodeWith(bitproto.DecodeMode{}, &v); err != nil {
		t.Fatalf("lenient: %v", err)
	}
	if err := m.Body.DecodeStrict(bitproto.DecodeMode{}, &v); !errors.As(err, &be) || !errors.Is(err, ErrBodyOverrun) || be.Left != pad+1-9 {
		t.Errorf("overrun: %v", err)
	}
	// A null body is not an error.
	n, _, _ := ConsumeMessage(mustFrame(t, h, nil))
	if err := n.Body.DecodeStrict(bitproto.DecodeMode{}, &v); err != nil {
		t.Errorf("null body: %v", err)
	}
}

func mustFrame(t *testing.T, h Header, body any) []byte {
	t.Helper()
	b, err := AppendMessage(nil, &h, body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
