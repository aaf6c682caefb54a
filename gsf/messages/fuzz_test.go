package messages

import (
	"errors"
	"fmt"
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
		for _, o := range []Options{{}, {Strict: true}, {Strict: true, MaxFields: 3}} {
			ex, err := Explain(data, o)
			if ex == nil {
				t.Fatal("no explanation")
			}
			_ = err
			// The model of the same frames: valid trees whose body leaves tile the body.
			frames, _ := gsf.ExplainFrames(data, ExplainOptions(o), nil)
			for _, fr := range frames {
				if err := fr.Validate(); err != nil {
					t.Fatal(err)
				}
			}
		}
		m, _, err := gsf.ConsumeMessage(data)
		if err != nil {
			return
		}
		if _, _, err := Decode(&m); err != nil && !errors.Is(err, ErrUnknownMessage) {
			var be *bitproto.DecodeError
			if !errors.As(err, &be) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
		}
		full, err := Describe(&m, Options{Strict: true})
		if err != nil && !errors.Is(err, ErrUnknownMessage) {
			var be *bitproto.DecodeError
			var bodyErr *gsf.BodyError
			if !errors.As(err, &be) && !errors.As(err, &bodyErr) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
		}
		// Past MaxFields the body is still checked: the same outcome, at the same offset.
		short, serr := Describe(&m, Options{Strict: true, MaxFields: 3})
		if (err == nil) != (serr == nil) || err == nil && full != nil && short.End != full.End || errOffset(err) != errOffset(serr) {
			t.Fatalf("MaxFields 3 changes the outcome: %v, %v", err, serr)
		}
	})
}

// errOffset returns the bit offset of a describe error. (Past MaxFields an error's path names
// the slice or map, not the element: the elements' paths are not built.)
func errOffset(err error) string {
	var be *bitproto.DecodeError
	var bodyErr *gsf.BodyError
	switch {
	case errors.As(err, &be):
		return fmt.Sprintf("@%d", be.BitOffset)
	case errors.As(err, &bodyErr):
		return fmt.Sprintf("end@%d", bodyErr.BitOffset)
	}
	return fmt.Sprint(err)
}
