package messages

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// OID is an object identifier: on the wire an object of three compressed int32 (class, type,
// server) and a compressed int64 (number). The reference keeps class, type and server as bytes;
// OID keeps the wire's numbers, so that any body decodes and encodes to the same bits, and
// [OID.Int64] gives the reference's 64-bit form.
type OID struct {
	Class  int32
	Type   int32
	Server int32
	Number int64
}

// OIDFromInt64 unpacks the reference's 64-bit packed form: class<<56 | type<<48 | server<<40 |
// number (40 bits).
func OIDFromInt64(v int64) OID {
	return OID{
		Class:  int32(uint64(v) >> 56),
		Type:   int32(uint64(v) >> 48 & 0xff),
		Server: int32(uint64(v) >> 40 & 0xff),
		Number: v & (1<<40 - 1),
	}
}

// Int64 returns the reference's 64-bit packed form of the OID. Class, type and server are cut
// to their low 8 bits and the number to its low 40 bits, as the reference does.
func (o OID) Int64() int64 {
	return int64(uint64(uint8(o.Class))<<56 | uint64(uint8(o.Type))<<48 | uint64(uint8(o.Server))<<40 | uint64(o.Number)&(1<<40-1))
}

// IsZero reports whether all four numbers are 0.
func (o OID) IsZero() bool { return o == OID{} }

// String returns "class-type-server-number".
func (o OID) String() string {
	return fmt.Sprintf("%d-%d-%d-%d", o.Class, o.Type, o.Server, o.Number)
}

// UnmarshalJSON accepts an object {"Class":…,"Type":…,"Server":…,"Number":…} (what
// encoding/json writes for an OID), the packed 64-bit form as a number or a decimal string, or
// the "class-type-server-number" form of String.
func (o *OID) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		return nil
	}
	if strings.HasPrefix(s, "{") {
		type plain OID
		return json.Unmarshal(b, (*plain)(o))
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if parts := strings.Split(s, "-"); len(parts) == 4 && parts[0] != "" {
			var n [4]int64
			for i, p := range parts {
				v, err := strconv.ParseInt(p, 10, 64)
				if err != nil || (i < 3 && int64(int32(v)) != v) {
					return fmt.Errorf("messages: OID %q: want class-type-server-number", s)
				}
				n[i] = v
			}
			*o = OID{Class: int32(n[0]), Type: int32(n[1]), Server: int32(n[2]), Number: n[3]}
			return nil
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("messages: OID %s: want an object, a packed number or class-type-server-number", b)
	}
	*o = OIDFromInt64(v)
	return nil
}
