package bitproto

import (
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/explain"
	"io"
	"reflect"
	"testing"
	"time"
)

// fuzzMsg has one field of every kind, a recursive type and a custom Marshaler.
type fuzzMsg struct {
	Tier
	Flag   bool
	Seq    uint8
	Short  int16
	Char   rune `bits:"char"`
	Big    int64
	F      float32
	D      float64
	Raw    []byte
	Opt    *OID
	QTH    QTH
	Rules  []RuleProperty
	Names  []string
	Status Status
	Pos    *Vec
	When   time.Time
}

// FuzzUnmarshal decodes arbitrary input into fuzzMsg. Decoding must not panic, must fail with
// an *Error or succeed; and what it decodes must encode and decode to the same value again.
func FuzzUnmarshal(f *testing.F) {
	seed, err := Marshal(&fuzzMsg{
		Tier:  Tier{AssetContainer: AssetContainer{Assets: []Asset{{Name: "a"}}}, Created: time.Unix(1e9, 0)},
		Flag:  true,
		Char:  'A',
		Big:   1 << 50,
		Raw:   []byte{1, 2},
		Opt:   &OID{1, 2, 3, 4},
		Rules: []RuleProperty{{Name: "r", Properties: map[string]string{"k": "v"}, ChildrenGroup: map[string][]RuleProperty{"c": {{}}}}},
		Names: []string{"", "x"},
		Pos:   &Vec{1, 2},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte{})
	f.Add([]byte{0xbc, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x3f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m fuzzMsg
		if err := dm(DecodeOptions{MaxAllocBytes: 1 << 20}).Unmarshal(data, &m); err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("error %T %v is not a *DecodeError", err, err)
			}
			return
		}
		b, err := Marshal(&m)
		if err != nil {
			// Only a custom Marshaler may refuse what it decoded (Status -1 for an unknown name).
			if m.Status == -1 {
				return
			}
			t.Fatalf("re-encoding a decoded value: %v", err)
		}
		var m2 fuzzMsg
		if err := Unmarshal(b, &m2); err != nil {
			t.Fatalf("decoding a re-encoded value: %v", err)
		}
		if !reflect.DeepEqual(normalize(m), normalize(m2)) {
			t.Fatalf("round trip differs:\n%+v\n%+v", m, m2)
		}
	})
}

// normalize makes values comparable across a round trip: NaN payloads compare unequal, and a
// char above U+7FFF reads back negative.
func normalize(m fuzzMsg) fuzzMsg {
	if m.F != m.F {
		m.F = 0
	}
	if m.D != m.D {
		m.D = 0
	}
	if m.Pos != nil && (m.Pos.X != m.Pos.X || m.Pos.Y != m.Pos.Y) {
		m.Pos = nil
	}
	return m
}

// FuzzExplainFields explains arbitrary bits by a field list chosen by the input: no panic, a
// valid tree within the input and the budget, and the same error as DecodeFields.
func FuzzExplainFields(f *testing.F) {
	f.Add([]byte{0x20, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x0c, 0x18, 0x41, 0x6d}, uint8(0), uint8(0))
	f.Add([]byte{0xff, 0x92, 0x3e, 0xaf}, uint8(5), uint8(3))
	f.Add([]byte{}, uint8(1), uint8(0))
	all, _ := ParseFields("bool,null,byte,int16,int32,int64,char,float32,float64,string,bytes,date,align")
	f.Fuzz(func(t *testing.T, data []byte, pick, start uint8) {
		var fields []Field
		for i := range 1 + int(pick)%8 {
			fields = append(fields, all[(int(pick)+3*i)%len(all)])
		}
		st := int(start) % (8*len(data) + 1)
		fr, err := ExplainFields(data, st, fields, explain.NewBudget(20))
		if verr := fr.Validate(); verr != nil {
			t.Fatal(verr)
		}
		if fr.Count() > 20 {
			t.Fatalf("%d fields, budget 20", fr.Count())
		}
		r := bitstream.NewReader(data)
		_ = r.Seek(st)
		_, derr := DecodeFields(r, fields)
		if (err == nil) != (derr == nil) {
			t.Fatalf("ExplainFields %v, DecodeFields %v", err, derr)
		}
		if err := explain.WriteJSON(io.Discard, fr); err != nil {
			t.Fatal(err)
		}
	})
}
