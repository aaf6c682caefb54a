package messages

import (
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrOID reports a value that is no OID: a CDN id that is not base64 of a decimal number, a
// database value of another type.
var ErrOID = errors.New("messages: not an OID")

// packable reports whether the packed form keeps all of the OID: class, type and server fit in a
// byte and the number in 40 bits.
func (o OID) packable() bool { return OIDFromInt64(o.Int64()) == o }

// MarshalJSON writes the packed form as a decimal string ("72057594037927937"), as the
// reference's services do; an OID whose numbers do not fit the packed form (a class above 255,
// a number beyond 40 bits: only hostile input has them) is written as an object
// {"Class":…,"Type":…,"Server":…,"Number":…}, so that nothing is lost. UnmarshalJSON reads both.
func (o OID) MarshalJSON() ([]byte, error) {
	if !o.packable() {
		type plain OID
		return json.Marshal(plain(o))
	}
	b := make([]byte, 0, 22)
	b = append(b, '"')
	b = strconv.AppendInt(b, o.Int64(), 10)
	return append(b, '"'), nil
}

// Value stores the OID as its packed form, an int64 (an INTEGER column). It fails for an OID
// whose numbers do not fit the packed form.
func (o OID) Value() (driver.Value, error) {
	if !o.packable() {
		return nil, fmt.Errorf("%w: %s does not fit the packed 64-bit form", ErrOID, o)
	}
	return o.Int64(), nil
}

// Scan reads an OID from a database column that holds its packed form: an integer, or its
// decimal text. NULL scans as the zero OID.
func (o *OID) Scan(src any) error {
	var n sql.NullInt64
	if err := n.Scan(src); err != nil {
		return fmt.Errorf("%w: %w", ErrOID, err)
	}
	*o = OID{}
	if n.Valid {
		*o = OIDFromInt64(n.Int64)
	}
	return nil
}

// CDNID returns the form of the OID in the client's asset URLs: the decimal packed form,
// base64-encoded without padding (standard alphabet).
func (o OID) CDNID() string {
	return base64.RawStdEncoding.EncodeToString(strconv.AppendInt(nil, o.Int64(), 10))
}

// OIDFromCDNID parses the CDN id form (see OID.CDNID).
func OIDFromCDNID(id string) (OID, error) {
	b, err := base64.RawStdEncoding.DecodeString(id)
	if err != nil {
		return OID{}, fmt.Errorf("%w: CDN id %q: %w", ErrOID, id, err)
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return OID{}, fmt.Errorf("%w: CDN id %q: %w", ErrOID, id, err)
	}
	return OIDFromInt64(v), nil
}

// UnixTime is a time kept in a database as Unix seconds (an INTEGER column), as the reference's
// services keep their dates; on the wire, as a body field of wire type date, it is a time.Time
// (its Time field). The zero time is stored as NULL and NULL scans as the zero time, which the
// wire writes as a null date.
type UnixTime struct {
	time.Time
}

// Scan reads Unix seconds (an integer or its decimal text) or a time.Time; NULL scans as the
// zero time. The time is in UTC.
func (t *UnixTime) Scan(src any) error {
	if tt, ok := src.(time.Time); ok {
		t.Time = tt.UTC()
		return nil
	}
	var n sql.NullInt64
	if err := n.Scan(src); err != nil {
		return fmt.Errorf("messages: UnixTime: %w", err)
	}
	t.Time = time.Time{}
	if n.Valid {
		t.Time = time.Unix(n.Int64, 0).UTC()
	}
	return nil
}

// Value stores the time as Unix seconds (sub-second precision dropped, as on the wire), or NULL
// for the zero time.
func (t UnixTime) Value() (driver.Value, error) {
	if t.IsZero() {
		return nil, nil
	}
	return t.Unix(), nil
}

// Platform is the operating system a client runs on, as its machine OS string
// (ClientEnvironmentData.MachineOS, say) tells it.
type Platform uint8

// The platforms the client ran on.
const (
	PlatformUnknown Platform = iota
	PlatformWindows
	PlatformOSX
)

// PlatformOf returns the platform of a machine OS string: "Windows …" is Windows, "Mac OS X …"
// is OS X (case does not matter), anything else unknown.
func PlatformOf(machineOS string) Platform {
	s := strings.ToLower(strings.TrimSpace(machineOS))
	switch {
	case strings.HasPrefix(s, "windows"):
		return PlatformWindows
	case strings.HasPrefix(s, "mac os x"):
		return PlatformOSX
	}
	return PlatformUnknown
}

// String returns "windows", "osx" or "unknown".
func (p Platform) String() string {
	switch p {
	case PlatformWindows:
		return "windows"
	case PlatformOSX:
		return "osx"
	}
	return "unknown"
}

// Value stores the platform as its name.
func (p Platform) Value() (driver.Value, error) { return p.String(), nil }

// Scan reads a platform's name (as Value stores it); NULL and other names scan as
// PlatformUnknown.
func (p *Platform) Scan(src any) error {
	var s sql.NullString
	if err := s.Scan(src); err != nil {
		return fmt.Errorf("messages: Platform: %w", err)
	}
	switch s.String {
	case "windows":
		*p = PlatformWindows
	case "osx":
		*p = PlatformOSX
	default:
		*p = PlatformUnknown
	}
	return nil
}
