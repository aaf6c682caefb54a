package bitproto

import (
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
