// Command refdump runs inside a checkout of the reference emulator (github.com/dv1x3r/amazing-core)
// for TestReference of package messages: it is copied there with a generated table of the
// reference's body and object types (table.go). For every job on standard input it decodes the
// given bytes with the type's own Deserialize, and (where the type has one) encodes a random
// value with its Serialize, recording every primitive read or write in order. This file is
// gamewire's own code; it only calls the reference's.
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dv1x3r/amazing-core/internal/network/gsf"
	"github.com/dv1x3r/amazing-core/internal/network/gsf/bitprotocol"
)

type job struct {
	Name string `json:"name"`
	Hex  string `json:"hex"`
	Seed uint64 `json:"seed"`
}

type result struct {
	Name    string   `json:"name"`
	ReadLog []string `json:"read,omitempty"` // Deserialize of the job's bytes
	ReadErr string   `json:"readErr,omitempty"`
	// ReadJSON and WriteJSON are the value read and the value written, with encoding/json.
	ReadJSON  json.RawMessage `json:"readJSON,omitempty"`
	WriteJSON json.RawMessage `json:"writeJSON,omitempty"`
	WriteHex  string          `json:"writeHex,omitempty"` // Serialize of a random value
	WriteLog  []string        `json:"write,omitempty"`
	NoWrite   bool            `json:"noWrite,omitempty"`
	NoRead    bool            `json:"noRead,omitempty"`
}

func main() {
	var jobs []job
	if err := json.NewDecoder(os.Stdin).Decode(&jobs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var out []result
	for _, j := range jobs {
		mk, ok := table[j.Name]
		if !ok {
			fmt.Fprintln(os.Stderr, "unknown type", j.Name)
			os.Exit(1)
		}
		res := result{Name: j.Name}
		if d, ok := mk().(gsf.Deserializable); ok {
			data, _ := hex.DecodeString(j.Hex)
			tr := &traceReader{r: bitprotocol.NewBitReader(data)}
			func() {
				defer func() {
					if p := recover(); p != nil {
						res.ReadErr = fmt.Sprint(p)
					}
				}()
				d.Deserialize(tr)
			}()
			res.ReadLog = tr.log
			if res.ReadErr == "" {
				res.ReadJSON, _ = json.Marshal(d)
			}
		} else {
			res.NoRead = true
		}
		if s, ok := mk().(gsf.Serializable); ok {
			fill(reflect.ValueOf(s).Elem(), rand.New(rand.NewPCG(j.Seed, 99)), 0)
			tw := &traceWriter{w: bitprotocol.NewBitWriter()}
			s.Serialize(tw)
			var b bytes.Buffer
			tw.w.CommitTo(&b)
			res.WriteHex, res.WriteLog = hex.EncodeToString(b.Bytes()), tw.log
			res.WriteJSON, _ = json.Marshal(s)
		} else {
			res.NoWrite = true
		}
		out = append(out, res)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var strs = []string{"", "x", "AmazingWorld", "héllo"}
var smalls = []int64{0, 1, -1, 7, -8, 100, -1000, 30000}
var bigs = []int64{1 << 40, -1 << 45, 1<<63 - 1}

// fill sets v to a random value, following the reference's Go types.
func fill(v reflect.Value, rng *rand.Rand, depth int) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			if rng.IntN(4) > 0 {
				v.Set(reflect.ValueOf(time.Unix(946684800+rng.Int64N(1e9), 0).UTC()))
			}
			return
		}
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				fill(v.Field(i), rng, depth)
			}
		}
	case reflect.Pointer:
		if depth > 3 || rng.IntN(3) == 0 {
			return
		}
		v.Set(reflect.New(t.Elem()))
		fill(v.Elem(), rng, depth+1)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rng.IntN(4))
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			v.SetBytes(b)
			return
		}
		if rng.IntN(5) == 0 {
			return // nil
		}
		n := rng.IntN(3)
		if depth > 3 {
			n = 0
		}
		v.Set(reflect.MakeSlice(t, n, n))
		for i := range n {
			fill(v.Index(i), rng, depth+1)
		}
	case reflect.Map:
		if rng.IntN(5) == 0 {
			return
		}
		// At most one entry: the reference writes a map in Go's random order, gamewire in key
		// order, so that only maps of one entry have one byte form to compare.
		n := rng.IntN(2)
		if depth > 3 {
			n = 0
		}
		v.Set(reflect.MakeMap(t))
		for i := range n {
			e := reflect.New(t.Elem()).Elem()
			fill(e, rng, depth+1)
			v.SetMapIndex(reflect.ValueOf("k"+strconv.Itoa(i)), e)
		}
	case reflect.String:
		v.SetString(strs[rng.IntN(len(strs))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Uint8:
		v.SetUint(rng.Uint64N(256))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(float32(rng.NormFloat64() * 1000)))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if strings.Contains(t.PkgPath(), "/types/") { // an enum that travels as its name
			v.SetInt(int64(rng.IntN(3)))
			return
		}
		x := smalls[rng.IntN(len(smalls))]
		if t.Kind() == reflect.Int64 && rng.IntN(3) == 0 {
			x = bigs[rng.IntN(len(bigs))]
		}
		v.SetInt(x)
	default:
		panic("refdump: cannot fill " + t.String())
	}
}

func date(t gsf.UnixTime) string {
	if t.IsZero() {
		return "date null"
	}
	return "date " + strconv.FormatInt(t.Unix(), 10)
}

// traceReader reads through the reference's reader and logs every primitive.
type traceReader struct {
	r   gsf.ProtocolReader
	log []string
}

func (t *traceReader) add(s string) { t.log = append(t.log, s) }

func (t *traceReader) ReadObject(v gsf.Deserializable) {
	null := t.r.ReadBool() // the reference's ReadObject reads the null bit like a bool
	t.add(map[bool]string{true: "object null", false: "object present"}[null])
	if !null {
		v.Deserialize(t)
	}
}
func (t *traceReader) GetByte() byte { b := t.r.GetByte(); t.add(fmt.Sprintf("byte %d", b)); return b }
func (t *traceReader) ReadBool() bool {
	b := t.r.ReadBool()
	t.add(fmt.Sprintf("bool %t", b))
	return b
}
func (t *traceReader) ReadInt16() int16 {
	x := t.r.ReadInt16()
	t.add(fmt.Sprintf("int16 %d", x))
	return x
}
func (t *traceReader) ReadInt32() int32 {
	x := t.r.ReadInt32()
	t.add(fmt.Sprintf("int32 %d", x))
	return x
}
func (t *traceReader) ReadInt64() int64 {
	x := t.r.ReadInt64()
	t.add(fmt.Sprintf("int64 %d", x))
	return x
}
func (t *traceReader) ReadChar() rune {
	x := t.r.ReadChar()
	t.add(fmt.Sprintf("char %d", x))
	return x
}
func (t *traceReader) ReadUtcDate() gsf.UnixTime {
	d := t.r.ReadUtcDate()
	t.add(date(d))
	return d
}
func (t *traceReader) ReadFloat32() float32 {
	x := t.r.ReadFloat32()
	t.add("float32 " + strconv.FormatFloat(float64(x), 'g', -1, 32))
	return x
}
func (t *traceReader) ReadFloat64() float64 {
	x := t.r.ReadFloat64()
	t.add("float64 " + strconv.FormatFloat(x, 'g', -1, 64))
	return x
}
func (t *traceReader) ReadString() string {
	s := t.r.ReadString()
	t.add("string " + strconv.Quote(s))
	return s
}
func (t *traceReader) ReadBytes() []byte {
	b := t.r.ReadBytes()
	t.add("bytes " + hex.EncodeToString(b))
	return b
}

// traceWriter writes through the reference's writer and logs every primitive.
type traceWriter struct {
	w   *bitprotocol.BitWriter
	log []string
}

func (t *traceWriter) add(s string) { t.log = append(t.log, s) }

func (t *traceWriter) CommitTo(w io.Writer) { t.w.CommitTo(w) }
func (t *traceWriter) WriteObject(v gsf.Serializable) {
	null := v == nil || reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()
	t.w.WriteBool(null)
	t.add(map[bool]string{true: "object null", false: "object present"}[null])
	if !null {
		v.Serialize(t)
	}
}
func (t *traceWriter) PutByte(b byte)     { t.w.PutByte(b); t.add(fmt.Sprintf("byte %d", b)) }
func (t *traceWriter) WriteBool(b bool)   { t.w.WriteBool(b); t.add(fmt.Sprintf("bool %t", b)) }
func (t *traceWriter) WriteInt16(x int16) { t.w.WriteInt16(x); t.add(fmt.Sprintf("int16 %d", x)) }
func (t *traceWriter) WriteInt32(x int32) { t.w.WriteInt32(x); t.add(fmt.Sprintf("int32 %d", x)) }
func (t *traceWriter) WriteInt64(x int64) { t.w.WriteInt64(x); t.add(fmt.Sprintf("int64 %d", x)) }
func (t *traceWriter) WriteChar(x rune)   { t.w.WriteChar(x); t.add(fmt.Sprintf("char %d", x)) }
func (t *traceWriter) WriteUtcDate(d gsf.UnixTime) {
	t.w.WriteUtcDate(d)
	t.add(date(d))
}
func (t *traceWriter) WriteFloat32(x float32) {
	t.w.WriteFloat32(x)
	t.add("float32 " + strconv.FormatFloat(float64(x), 'g', -1, 32))
}
func (t *traceWriter) WriteFloat64(x float64) {
	t.w.WriteFloat64(x)
	t.add("float64 " + strconv.FormatFloat(x, 'g', -1, 64))
}
func (t *traceWriter) WriteString(s string) { t.w.WriteString(s); t.add("string " + strconv.Quote(s)) }
func (t *traceWriter) WriteBytes(b []byte) {
	t.w.WriteBytes(b)
	t.add("bytes " + hex.EncodeToString(b))
}
