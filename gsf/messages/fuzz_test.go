package messages

import (
	"errors"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// FuzzDescribe feeds arbitrary frames to Explain with the catalog's describer, and to Decode:
// no panic, and every error is typed.
func FuzzDescribe(f *testing.F) {
	c := catalog()
	for i, e := range Entries() {
		_, want, _ := build(c, c.Message(e.Name), e.GoType(), uint64(i), i%2 == 0)
		h := gsf.Header{SvcClass: e.Class, MsgType: e.Type, RequestID: 1}
		switch e.Kind {
		case Response:
			h.Flags = gsf.FlagResponse
		case Notify:
			h.Flags = gsf.FlagNotify
		}
		frame, err := gsf.AppendMessage(nil, &h, want.Interface())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(frame)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{false, true} {
			ex, err := Explain(data, Options{Strict: strict})
			if ex == nil {
				t.Fatal("no explanation")
			}
			_ = err
		}
		m, _, err := gsf.ConsumeMessage(data)
		if err != nil {
			return
		}
		if _, _, err := Decode(&m); err != nil && !errors.Is(err, ErrUnknownMessage) {
			var be *bitproto.Error
			if !errors.As(err, &be) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
		}
		if _, err := Describe(&m, Options{Strict: true}); err != nil && !errors.Is(err, ErrUnknownMessage) {
			var be *bitproto.Error
			var bodyErr *gsf.BodyError
			if !errors.As(err, &be) && !errors.As(err, &bodyErr) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
		}
	})
}
