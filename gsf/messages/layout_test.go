package messages

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/messages/internal/schema"
)

// builder writes a body's bits from catalog.txt's field list with a bitstream.Writer, and sets
// the same values, by field name, in a value of the Go type. It knows nothing of bitproto or of
// the structs' field order: the test then checks that bitproto decodes the bits into exactly
// that value and encodes that value into exactly those bits, so a field that moves, changes its
// type or disappears in the structs fails.
type builder struct {
	c      *schema.Catalog
	w      bitstream.Writer
	rng    *rand.Rand
	leaves int
	nulls  bool // write null objects, nullables and dates where the Go type can keep them
	// nullPtrs writes every pointer object as null.
	nullPtrs bool
}

func (b *builder) fields(fs []schema.Field, v reflect.Value, depth int) {
	for _, f := range fs {
		if f.Type == nil {
			emb := v.FieldByName(f.Inline)
			if !emb.IsValid() {
				panic(fmt.Sprintf("%s has no embedded %s", v.Type(), f.Inline))
			}
			b.fields(b.c.Objects[f.Inline].Fields, emb, depth)
			continue
		}
		fv := v.FieldByName(f.Name)
		if !fv.IsValid() {
			panic(fmt.Sprintf("%s has no field %s", v.Type(), f.Name))
		}
		b.value(f.Type, fv, depth)
	}
}

var (
	ints16 = []int64{0, 1, -1, 7, -8, 8, 127, -128, 1000, -30000, 32767, -32768}
	ints32 = append(ints16, 70000, -70000, 1<<31-1, -1<<31)
	ints64 = append(ints32, 1<<40+5, -1<<50, 1<<63-1, -1<<63)
	strs   = []string{"", "a", "AmazingWorld", "héllo", "0123456789abcdef0123"}
)

func (b *builder) value(t *schema.Type, v reflect.Value, depth int) {
	switch t.Kind {
	case schema.Leaf:
		b.leaves++
		b.leaf(t.Leaf, v)
	case schema.Enum:
		b.leaves++
		names := gsf.EnumNames(schema.Enums[t.Name])
		keys := make([]string, 0, len(names))
		for k := range names {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s := keys[b.rng.IntN(len(keys))]
		b.w.WriteString(s)
		v.SetString(s)
	case schema.Obj:
		if t.Ptr {
			if b.nullPtrs || b.nulls && (depth > 3 || b.rng.IntN(3) == 0) {
				b.w.WriteNull(true)
				return
			}
			v.Set(reflect.New(v.Type().Elem()))
			v = v.Elem()
		}
		b.w.WriteNull(false)
		b.fields(b.c.Objects[t.Name].Fields, v, depth+1)
	case schema.Nullable:
		if b.nulls && b.rng.IntN(2) == 0 {
			b.w.WriteNull(true)
			return
		}
		b.w.WriteNull(false)
		v.Set(reflect.New(v.Type().Elem()))
		b.value(t.Elem, v.Elem(), depth)
	case schema.Slice, schema.Map:
		n := b.rng.IntN(3)
		if depth > 3 {
			n = 0
		}
		if b.nulls && b.rng.IntN(5) == 0 {
			b.w.WriteCount(-1)
			return
		}
		b.w.WriteCount(n)
		if t.Kind == schema.Slice {
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				b.value(t.Elem, v.Index(i), depth+1)
			}
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for i := range n { // keys in sorted order, as bitproto writes them
			k := fmt.Sprintf("key%d", i)
			b.w.WriteString(k)
			ev := reflect.New(v.Type().Elem()).Elem()
			b.value(t.Elem, ev, depth+1)
			v.SetMapIndex(reflect.ValueOf(k), ev)
		}
	default:
		panic("wire type " + t.String())
	}
}

func (b *builder) leaf(name string, v reflect.Value) {
	switch name {
	case "bool":
		x := b.rng.IntN(2) == 1
		b.w.WriteBool(x)
		v.SetBool(x)
	case "byte":
		x := uint8(b.rng.UintN(256))
		_ = b.w.WriteByte(x)
		v.SetUint(uint64(x))
	case "int16":
		x := ints16[b.rng.IntN(len(ints16))]
		b.w.WriteInt16(int16(x))
		v.SetInt(x)
	case "int32":
		x := ints32[b.rng.IntN(len(ints32))]
		b.w.WriteInt32(int32(x))
		v.SetInt(x)
	case "int64":
		x := ints64[b.rng.IntN(len(ints64))]
		b.w.WriteInt64(x)
		v.SetInt(x)
	case "char":
		x := []rune{'A', 'z', 'é', 0x263a, 0}[b.rng.IntN(5)]
		b.w.WriteChar(x)
		v.SetInt(int64(x))
	case "float32":
		x := float32(b.rng.NormFloat64() * 1000)
		b.w.WriteFloat32(x)
		v.SetFloat(float64(x))
	case "float64":
		x := b.rng.NormFloat64() * 1e6
		b.w.WriteFloat64(x)
		v.SetFloat(x)
	case "string":
		x := strs[b.rng.IntN(len(strs))]
		b.w.WriteString(x)
		v.SetString(x)
	case "bytes":
		x := []byte{byte(b.rng.UintN(256)), 0, byte(b.rng.UintN(256))}[:1+b.rng.IntN(3)]
		b.w.WriteBytes(x)
		v.SetBytes(x)
	case "date":
		if b.nulls && b.rng.IntN(3) == 0 {
			b.w.WriteDate(time.Time{})
			return
		}
		x := time.Unix(946684800+b.rng.Int64N(1e9), 0).UTC()
		b.w.WriteDate(x)
		v.Set(reflect.ValueOf(x))
	default:
		panic("leaf " + name)
	}
}

// build returns the bits of a random body of def (from the field list) and the value the Go
// type must hold for them.
func build(c *schema.Catalog, def *schema.Def, typ reflect.Type, seed uint64, nulls bool) ([]byte, reflect.Value, int) {
	b := &builder{c: c, rng: rand.New(rand.NewPCG(seed, 13)), nulls: nulls}
	want := reflect.New(typ)
	b.fields(def.Fields, want.Elem(), 0)
	return b.w.Bytes(), want, b.leaves
}

func defType(def *schema.Def) reflect.Type {
	if def.Kind == schema.Object {
		t, _ := ObjectType(def.Name)
		return t
	}
	e, _ := ByName(def.Name)
	if e == nil {
		return nil
	}
	return e.GoType()
}

// TestLayouts checks every body and object type of the catalog against its field list, on bytes
// built from the list: bitproto decodes them into the expected value and encodes that value into
// the same bytes. Each type is tried with several random values, without and with nulls.
func TestLayouts(t *testing.T) {
	c := catalog()
	var bodies, notifies, objects int
	for _, def := range c.Defs {
		switch def.Kind {
		case schema.Object:
			objects++
		case schema.Notify:
			notifies++
		default:
			bodies++
		}
		t.Run(string(def.Kind)+"/"+def.Name, func(t *testing.T) {
			typ := defType(def)
			if typ == nil {
				t.Fatalf("%s is not registered", def.Name)
			}
			for seed := range uint64(6) {
				nulls := seed%2 == 1
				data, want, _ := build(c, def, typ, seed, nulls)
				got := reflect.New(typ)
				if err := bitproto.Unmarshal(data, got.Interface()); err != nil {
					t.Fatalf("seed %d: Unmarshal: %v\nbits % x", seed, err, data)
				}
				if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
					t.Fatalf("seed %d: decoded\n%+v\nwant (from the field list)\n%+v", seed, got.Elem().Interface(), want.Elem().Interface())
				}
				enc, err := bitproto.Marshal(want.Interface())
				if err != nil {
					t.Fatalf("seed %d: Marshal: %v", seed, err)
				}
				if !bytes.Equal(enc, data) {
					t.Fatalf("seed %d: encoded\n% x\nwant (from the field list)\n% x", seed, enc, data)
				}
			}
		})
	}
	if bodies != 90 || notifies != 7 || objects != 57 {
		t.Errorf("catalog: %d request/response bodies, %d notifies, %d object types; want 90, 7, 57", bodies, notifies, objects)
	}
}

// TestMessagesDescribe sends every body of the catalog through a GSF frame and checks that
// Decode (strict) gives the expected value and that Describe finds as many leaves as the field
// list wrote, and ends where the body does.
func TestMessagesDescribe(t *testing.T) {
	c := catalog()
	for _, e := range Entries() {
		def := c.Message(e.Name)
		for seed := range uint64(4) {
			_, want, leaves := build(c, def, e.GoType(), seed, seed%2 == 1)
			h := gsf.Header{SvcClass: e.Class, MsgType: e.Type, RequestID: 7}
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
			m, _, err := gsf.ConsumeMessage(frame)
			if err != nil {
				t.Fatal(err)
			}
			got, ge, err := strict.Decode(&m)
			if err != nil || ge != e {
				t.Fatalf("%s: Decode: %v (%v)", e, err, ge)
			}
			if !reflect.DeepEqual(got, want.Interface()) {
				t.Fatalf("%s: Decode differs", e)
			}
			body, err := Describe(&m, Options{Strict: true})
			if err != nil {
				t.Fatalf("%s: Describe: %v", e, err)
			}
			if n := countLeaves(body.Fields); n != leaves {
				t.Errorf("%s seed %d: Describe found %d leaves, the field list wrote %d", e, seed, n, leaves)
			}
			if end := m.Body.BitOffset() + m.Body.BitLen(); end-body.End >= 8 || body.End > end {
				t.Errorf("%s: Describe ended at bit %d, the body at %d", e, body.End, end)
			}
		}
	}
}

func countLeaves(fs []Field) int {
	n := 0
	for _, f := range fs {
		switch {
		case f.Count != nil || len(f.Fields) > 0 || f.Text == "{}":
			n += countLeaves(f.Fields)
		case f.Null && (f.Type[0] >= 'A' && f.Type[0] <= 'Z' && !isEnum(f.Type) || f.Type[0] == '*' || f.Type[0] == '?'):
			// a null object or nullable: no leaves
		default:
			n++
		}
	}
	return n
}

func isEnum(t string) bool { return schema.Enums[t] != "" }

// TestGenerated checks that types_gen.go and registry_gen.go are what catalog.txt generates.
func TestGenerated(t *testing.T) {
	files, err := schema.Generate(catalogText)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what catalog.txt generates: run go generate ./gsf/messages", name)
		}
	}
}

// TestMovedField shows that the layout test catches a moved field: a copy of a struct with two
// fields swapped decodes the field list's bits into other values.
func TestMovedField(t *testing.T) {
	type swapped struct { // GetAvatarsRequest with Start and Max swapped
		Max, Start int32
		FilterOIDs []OID
	}
	c := catalog()
	data, want, _ := build(c, c.Message("GetAvatarsRequest"), reflect.TypeFor[GetAvatarsRequest](), 3, false)
	var s swapped
	if err := bitproto.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	w := want.Interface().(*GetAvatarsRequest)
	if w.Start == w.Max {
		t.Skip("the seed gives equal values")
	}
	if s.Start == w.Start && s.Max == w.Max {
		t.Error("a swapped struct decodes the same values")
	}
}

func TestRegistry(t *testing.T) {
	e, ok := Lookup(gsf.SvcUserServer, gsf.MsgLogin, Response)
	if !ok || e.Name != "LoginResponse" || e.String() != "USER_SERVER/LOGIN response (LoginResponse)" {
		t.Fatalf("Lookup: %v %v", e, ok)
	}
	if _, ok := e.New().(*LoginResponse); !ok {
		t.Error("New")
	}
	// A client-to-server notify sent with request flags finds the notify.
	if e, ok := ForHeader(&gsf.Header{SvcClass: gsf.SvcSyncServer, MsgType: gsf.SyncMsgMovePlayer}); !ok || e.Name != "MoveNotify" {
		t.Errorf("ForHeader(sync MOVE_PLAYER request): %v", e)
	}
	if e, ok := ForHeader(&gsf.Header{Flags: gsf.FlagNotify, SvcClass: gsf.SvcClient, MsgType: gsf.ClientMsgChat}); !ok || e.Name != "ChatNotify" {
		t.Errorf("ForHeader(client CHAT notify): %v", e)
	}
	if _, ok := ByName("getclientversioninforequest"); !ok {
		t.Error("ByName")
	}
	if _, ok := Lookup(gsf.SvcUserServer, 9999, Request); ok {
		t.Error("Lookup of an unknown type")
	}
	m := gsf.Message{Header: gsf.Header{SvcClass: gsf.SvcUserServer, MsgType: 9999}}
	if _, _, err := Decode(&m); !errors.Is(err, ErrUnknownMessage) {
		t.Errorf("Decode of an unknown type: %v", err)
	}
	if len(Entries()) != 97 {
		t.Errorf("%d entries", len(Entries()))
	}
}

func TestOID(t *testing.T) {
	o := OID{Class: 4, Type: 1, Server: 0, Number: 123456}
	if p := o.Int64(); p != 4<<56|1<<48|123456 || OIDFromInt64(p) != o {
		t.Errorf("Int64: %x", p)
	}
	if o.String() != "4-1-0-123456" {
		t.Error(o.String())
	}
	for _, in := range []string{`{"Class":4,"Type":1,"Server":0,"Number":123456}`, `"4-1-0-123456"`, fmt.Sprint(o.Int64()), fmt.Sprintf(`"%d"`, o.Int64())} {
		var got OID
		if err := got.UnmarshalJSON([]byte(in)); err != nil || got != o {
			t.Errorf("UnmarshalJSON(%s) = %v, %v", in, got, err)
		}
	}
	if err := new(OID).UnmarshalJSON([]byte(`"x-y"`)); err == nil {
		t.Error("UnmarshalJSON accepts garbage")
	}
	if v, ok := SessionInvalidLogin.Value(); !ok || v != 6 {
		t.Error("SessionStatus.Value")
	}
	if v, ok := SessionStatus("NOPE").Value(); ok || v != -1 {
		t.Error("SessionStatus.Value of an unknown name")
	}
}

func TestLayout(t *testing.T) {
	if _, ok := Layout("announcement"); ok {
		t.Error("Layout is case-sensitive for object types")
	}
	l, ok := Layout("Announcement")
	if !ok || len(l) != 3 || !l[0].Inline || l[0].Type != "AssetContainer" || l[1] != (LayoutField{Name: "CreateTS", Type: "date"}) {
		t.Errorf("Announcement: %+v", l)
	}
	l, ok = Layout("sendmessageresponse")
	if !ok || len(l) != 5 || l[0] != (LayoutField{Name: "CrispDataTO", Type: "*CrispDataTO"}) || l[2].Type != "[]string" {
		t.Errorf("SendMessageResponse: %+v", l)
	}
}
