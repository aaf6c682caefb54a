package messages

import (
	"bytes"
	"encoding/hex"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
)

// frameWith returns a frame with header h and the body bits that write writes.
func frameWith(t testing.TB, h gsf.Header, write func(w *bitstream.Writer)) []byte {
	t.Helper()
	frame, err := gsf.AppendMessage(nil, &h, rawBody(write))
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

type rawBody func(w *bitstream.Writer)

func (f rawBody) MarshalBits(w *bitstream.Writer) error { f(w); return nil }

func (f rawBody) UnmarshalBits(r *bitstream.Reader) error { return errors.New("write only") }

func mustMessage(t testing.TB, frame []byte) gsf.Message {
	t.Helper()
	m, _, err := gsf.ConsumeMessage(frame)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHugeCounts: a body that claims 2^31-1 elements in a few bytes fails at the count, with its
// bit offset, in Decode and in Describe, without allocating for the claim.
func TestHugeCounts(t *testing.T) {
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgGetAvatars, RequestID: 1}
	frame := frameWith(t, h, func(w *bitstream.Writer) { w.WriteInt32(1<<31 - 1); w.WriteRaw([]byte("12345678")) })
	m := mustMessage(t, frame)
	_, _, _ = Decode(&m) // build the codecs and the catalog's index first
	_, _ = Describe(&m, Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := Decode(&m)
	_, derr := Describe(&m, Options{})
	runtime.ReadMemStats(&after)
	for _, e := range []error{err, derr} {
		var be *bitproto.DecodeError
		if !errors.As(e, &be) || !errors.Is(e, bitstream.ErrTooLong) {
			t.Fatalf("want a *bitproto.DecodeError wrapping ErrTooLong, got %v", e)
		}
		if be.BitOffset != int64(m.Body.BitOffset()) {
			t.Errorf("offset %d, want the count's %d: %v", be.BitOffset, m.Body.BitOffset(), e)
		}
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("decoding a 2^31 claim allocated %d bytes", n)
	}
	// A string that claims 2^31-1 bytes.
	sh := gsf.NewRequest(gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, 1)
	m = mustMessage(t, frameWith(t, sh, func(w *bitstream.Writer) { w.WriteInt32(1<<31 - 1); w.WriteRaw([]byte("AmazingWorld")) }))
	for _, e := range []error{func() error { _, _, err := Decode(&m); return err }(), func() error { _, err := Describe(&m, Options{}); return err }()} {
		var be *bitproto.DecodeError
		if !errors.As(e, &be) || !errors.Is(e, bitstream.ErrTooLong) && !errors.Is(e, bitstream.ErrTruncated) || be.BitOffset != int64(m.Body.BitOffset()) {
			t.Errorf("a 2^31-byte string: %v", e)
		}
	}
	// A count below -1 is an error too, never a nil slice.
	frame = frameWith(t, h, func(w *bitstream.Writer) { w.WriteInt32(-5) })
	m = mustMessage(t, frame)
	if _, err := Describe(&m, Options{}); !errors.Is(err, bitstream.ErrNegativeLength) {
		t.Errorf("count -5: %v", err)
	}
}

// TestManySmallElements: a large body of null elements is described up to Options.MaxFields
// fields and checked to its end; what the description allocates stays bounded.
func TestManySmallElements(t *testing.T) {
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgGetAvatars, RequestID: 1}
	const n = 200000
	frame := frameWith(t, h, func(w *bitstream.Writer) {
		w.WriteCount(n)
		for range n {
			w.WriteNull(true)
		}
	})
	m := mustMessage(t, frame)
	_, _ = Describe(&m, Options{MaxFields: 10})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := Describe(&m, Options{Strict: true})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Fields) != 1 || len(b.Fields[0].Fields) != DefaultMaxFields-1 || b.Omitted != n+1-DefaultMaxFields {
		t.Errorf("kept %d elements, omitted %d", len(b.Fields[0].Fields), b.Omitted)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1100*DefaultMaxFields {
		t.Errorf("describing %d bytes allocated %d bytes", len(frame), got)
	}
	// The omitted part is still checked: cut it short and the error comes from there.
	m = mustMessage(t, frameWith(t, h, func(w *bitstream.Writer) {
		w.WriteCount(n)
		for range n / 2 {
			w.WriteNull(false) // a PlayerAvatar that is present, then the body ends
		}
	}))
	if _, err := Describe(&m, Options{MaxFields: 5}); err == nil {
		t.Error("a cut body past MaxFields describes without an error")
	}
	// The text says what it left out.
	ex, err := Explain(frame, Options{MaxFields: 3})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = ex.WriteSummary(&out)
	if !strings.Contains(out.String(), "… 199998 more fields from bit ") || ex.Frames[0].Body.Message.Omitted != 199998 {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestDeepNesting: recursive object types (Quest.Children) nested deeper than MaxDepth fail.
func TestDeepNesting(t *testing.T) {
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgGetQuestFromParent, RequestID: 1}
	// A Quest whose RuleContainer fields are empty and whose Children hold one Quest each, 1000
	// levels deep (the body is cut short; the depth check comes first).
	frame := frameWith(t, h, func(w *bitstream.Writer) {
		for range 1000 {
			w.WriteNull(false) // the quest object
			w.WriteNull(false) // OID
			for range 4 {
				w.WriteInt32(0)
			}
			w.WriteCount(-1)  // AssetMap
			w.WriteCount(-1)  // AssetPackages
			w.WriteNull(true) // RuleProperty
			for range 4 {
				w.WriteBool(false)
			}
			w.WriteBool(false) // SingleSession
			w.WriteBool(false)
			w.WriteInt32(0)
			w.WriteString("")
			w.WriteInt32(0)
			w.WriteNull(true) // QuestTypeOID
			w.WriteInt32(0)
			w.WriteInt32(0)
			w.WriteNull(true) // DifficultyLevel
			w.WriteCount(-1)  // QuestItems
			w.WriteNull(true) // ParentOID
			w.WriteCount(-1)  // ChildrenOIDs
			w.WriteCount(1)   // Children
		}
	})
	m := mustMessage(t, frame)
	_, err := Describe(&m, Options{})
	if !errors.Is(err, bitproto.ErrTooDeep) {
		t.Fatalf("want ErrTooDeep, got %v", err)
	}
	if _, _, err := Decode(&m); !errors.Is(err, bitproto.ErrTooDeep) {
		t.Fatalf("Decode: want ErrTooDeep, got %v", err)
	}
}

// TestStrict: a body decoded as the wrong type is caught by Strict and passes without it.
func TestStrict(t *testing.T) {
	// A GetClientVersionInfo request body, sent as a SelectPlayerName request (one string) is
	// fine; as a CheckUsername request (two strings) it is truncated; as a Logout request (no
	// fields) its bits are left over.
	h := gsf.NewRequest(gsf.SvcUserServer, gsf.MsgLogout, 1)
	frame, err := gsf.AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	if err != nil {
		t.Fatal(err)
	}
	m := mustMessage(t, frame)
	if _, _, err := Decode(&m); err != nil {
		t.Errorf("lenient: %v", err)
	}
	_, _, err = strict.Decode(&m)
	var be *gsf.BodyError
	if !errors.As(err, &be) || !errors.Is(err, gsf.ErrTrailingBits) || be.BitOffset != int64(m.Body.BitOffset()) || be.Left != m.Body.BitLen() {
		t.Errorf("strict: %v", err)
	}
	if _, err := Describe(&m, Options{Strict: true}); !errors.Is(err, gsf.ErrTrailingBits) {
		t.Errorf("Describe strict: %v", err)
	}
	ex, err := Explain(frame, Options{Strict: true})
	if !errors.Is(err, gsf.ErrTrailingBits) || len(ex.Frames) != 1 || ex.Frames[0].Body.Message.Type != "LogoutRequest" {
		t.Errorf("Explain strict: %v", err)
	}
	if _, err := Explain(frame, Options{}); err != nil {
		t.Errorf("Explain lenient: %v", err)
	}

	// Nonzero padding is left-over bits too.
	h = gsf.NewRequest(gsf.SvcUserServer, gsf.MsgSelectPlayerName, 1)
	frame = frameWith(t, h, func(w *bitstream.Writer) { w.WriteString("x"); w.WriteBool(true) })
	m = mustMessage(t, frame)
	if err := strict.DecodeBody(&m, new(SelectPlayerNameRequest)); !errors.Is(err, gsf.ErrTrailingBits) {
		t.Errorf("nonzero padding: %v", err)
	}
	if err := (DecodeMode{}).DecodeBody(&m, new(SelectPlayerNameRequest)); err != nil {
		t.Errorf("nonzero padding, lenient: %v", err)
	}
}

// TestUnknownBody: a body that is not in the catalog gets the schema-less dump, with its guess
// labelled.
func TestUnknownBody(t *testing.T) {
	h := gsf.NewRequest(gsf.SvcUserServer, 9999, 1)
	frame := frameWith(t, h, func(w *bitstream.Writer) { w.WriteInt32(42); w.WriteString("hello"); w.WriteInt32(-7) })
	ex, err := Explain(frame, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ex.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"not in the catalog", "guess (best effort", "int32    42", `string   "hello"`, "int32    -7"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	raw := ex.Frames[0].Body.Message.Raw.(*Raw)
	if raw.Bits != ex.Frames[0].Body.Bits || len(raw.Guess) != 3 {
		t.Errorf("raw: %+v", raw)
	}
	if _, err := hex.DecodeString(raw.Hex); err != nil {
		t.Error(err)
	}
}

// TestTruncatedBodies cuts every catalog body at every byte: typed errors, never a panic.
func TestTruncatedBodies(t *testing.T) {
	c := catalog()
	for _, e := range Entries() {
		data, want, _ := build(c, c.Message(e.Name), e.GoType(), 1, true)
		h := gsf.Header{SvcClass: e.Class, MsgType: e.Type, RequestID: 3}
		switch e.Kind {
		case Response:
			h.Flags = gsf.FlagResponse
		case Notify:
			h.Flags = gsf.FlagNotify
		}
		frame, err := gsf.AppendMessage(nil, &h, want.Interface())
		if err != nil {
			t.Fatal(err)
		}
		_ = data
		for cut := 4; cut < len(frame)-1; cut += max(1, len(frame)/40) {
			p := append([]byte(nil), frame[1:cut]...) // a shorter payload
			f, err := gsf.AppendFrame(nil, p)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := Explain(f, Options{Strict: true})
			if ex == nil {
				t.Fatalf("%s cut at %d: no explanation", e, cut)
			}
			if err == nil {
				continue // a cut at the end of the body, or one the header already fails on
			}
			var be *bitproto.DecodeError
			var bodyErr *gsf.BodyError
			if !errors.As(err, &be) && !errors.As(err, &bodyErr) && !errors.Is(err, gsf.ErrNullMessage) {
				t.Errorf("%s cut at %d: untyped error %T %v", e, cut, err, err)
			}
		}
	}
}

// TestFrameSummary: one frame's summary under a title of the caller's, as a proxy prints it.
func TestFrameSummary(t *testing.T) {
	h := gsf.NewRequest(gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, 1)
	frame, err := gsf.AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explain(frame, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ex.Frames[0].WriteSummary(&b, "12:00:00.000 client→server conn 3"); err != nil {
		t.Fatal(err)
	}
	want := "12:00:00.000 client→server conn 3: 22 bytes (length 21), request\n"
	if !strings.HasPrefix(b.String(), want) || !strings.Contains(b.String(), `    ClientName string "AmazingWorld"  (bit 60, 108 bits)`) {
		t.Errorf("got\n%s", b.String())
	}
}
