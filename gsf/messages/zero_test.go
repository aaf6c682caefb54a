package messages

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/messages/internal/schema"
)

// zeroBits writes what the reference writes for a value of def left at its zero value, from
// the field list and the reference's rules (docs of the spec, §3 and §4): numbers 0, empty
// strings and byte arrays, nil slices and maps as count -1, the zero date as null, an object field as a present
// object (the reference passes its address to WriteObject) unless the Go field is a pointer
// (nil: null), nullable values null, and an enum that travels as a name as the name of its
// value 0.
func zeroBits(t *testing.T, c *schema.Catalog, w *bitstream.Writer, fs []schema.Field) {
	for _, f := range fs {
		if f.Type == nil {
			zeroBits(t, c, w, c.Objects[f.Inline].Fields)
			continue
		}
		zeroValue(t, c, w, f.Type)
	}
}

func zeroValue(t *testing.T, c *schema.Catalog, w *bitstream.Writer, ty *schema.Type) {
	switch ty.Kind {
	case schema.Leaf:
		switch ty.Leaf {
		case "bool":
			w.WriteBool(false)
		case "byte":
			_ = w.WriteByte(0)
		case "int16":
			w.WriteInt16(0)
		case "int32":
			w.WriteInt32(0)
		case "int64":
			w.WriteInt64(0)
		case "char":
			w.WriteChar(0)
		case "float32":
			w.WriteFloat32(0)
		case "float64":
			w.WriteFloat64(0)
		case "string":
			w.WriteString("")
		case "bytes":
			w.WriteBytes(nil) // the reference writes a byte array by its length: 0 for nil
		case "date":
			w.WriteDate(time.Time{})
		default:
			t.Fatalf("leaf %s", ty.Leaf)
		}
	case schema.Enum:
		zero := ""
		for name, v := range gsf.EnumNames(schema.Enums[ty.Name]) {
			if v == 0 {
				zero = name
			}
		}
		if zero == "" {
			t.Fatalf("enum %s has no value 0", ty.Name)
		}
		w.WriteString(zero)
	case schema.Obj:
		if ty.Ptr {
			w.WriteNull(true)
			return
		}
		w.WriteNull(false)
		zeroBits(t, c, w, c.Objects[ty.Name].Fields)
	case schema.Nullable:
		w.WriteNull(true)
	case schema.Slice, schema.Map:
		w.WriteCount(-1)
	default:
		t.Fatalf("wire type %s", ty)
	}
}

// TestZeroValues checks every body and object type of the catalog left at its zero value
// against the reference's bytes for it: a handler ported from the reference that fills in
// nothing sends what the reference sends (LoginResponse's Status travels as "IN_PROGRESS",
// ChatChannelType's Value as "PRIVATE", OnlineStatus's Value as "OFFLINE").
func TestZeroValues(t *testing.T) {
	c := catalog()
	var n int
	for _, def := range c.Defs {
		typ := defType(def)
		if typ == nil {
			t.Fatalf("%s is not registered", def.Name)
		}
		var w bitstream.Writer
		zeroBits(t, c, &w, def.Fields)
		want := w.Bytes()
		got, err := bitproto.Marshal(reflect.New(typ).Interface())
		if err != nil {
			t.Errorf("%s: Marshal: %v", def.Name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s %s: the zero value encodes as\n% x\nthe reference's zero value is\n% x", def.Kind, def.Name, got, want)
		}
		n++
	}
	if n != 154 {
		t.Errorf("%d types checked, want the catalog's 154", n)
	}
	// Issue 22 measured the reference's zero LoginResponse, framed, at 121 bytes (gamewire's
	// was 109, with an empty Status).
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgLogin, RequestID: 1}
	if b, err := gsf.AppendMessage(nil, &h, &LoginResponse{}); err != nil || len(b) != 121 {
		t.Errorf("a zero LoginResponse frames to %d bytes (%v), the reference's to 121", len(b), err)
	}
}
