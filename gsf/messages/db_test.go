package messages_test

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf/messages"
	_ "modernc.org/sqlite"
)

// TestDatabaseRoundTrip stores OIDs, UnixTimes and Platforms in a real SQLite database and
// reads them back, zero values and NULLs included.
func TestDatabaseRoundTrip(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "players.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE players (oid INTEGER PRIMARY KEY, created INTEGER, platform TEXT)`); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		oid      messages.OID
		created  messages.UnixTime
		platform messages.Platform
	}{
		{messages.OID{Class: 4, Type: 1, Server: 0, Number: 123456}, messages.UnixTime{Time: time.Date(2025, 1, 1, 12, 30, 5, 0, time.UTC)}, messages.PlatformWindows},
		{messages.OID{Class: 255, Type: 255, Server: 255, Number: 1<<40 - 1}, messages.UnixTime{}, messages.PlatformOSX},
		{messages.OID{Class: 1, Number: 7}, messages.UnixTime{Time: time.Unix(0, 0)}, messages.PlatformUnknown},
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO players VALUES (?, ?, ?)`, r.oid, r.created, r.platform); err != nil {
			t.Fatal(err)
		}
	}
	var nulls int
	if err := db.QueryRow(`SELECT count(*) FROM players WHERE created IS NULL`).Scan(&nulls); err != nil || nulls != 1 {
		t.Errorf("rows with a NULL time: %d %v, want 1 (the zero time)", nulls, err)
	}
	for _, r := range rows {
		var (
			oid      messages.OID
			created  messages.UnixTime
			platform messages.Platform
		)
		err := db.QueryRow(`SELECT oid, created, platform FROM players WHERE oid = ?`, r.oid).Scan(&oid, &created, &platform)
		if err != nil {
			t.Fatalf("%s: %v", r.oid, err)
		}
		if oid != r.oid || !created.Equal(r.created.Time) || platform != r.platform {
			t.Errorf("stored %v %v %v, read %v %v %v", r.oid, r.created, r.platform, oid, created, platform)
		}
	}
	// A packed OID stored as a plain integer, and Unix seconds written by hand, scan too.
	var oid messages.OID
	var created messages.UnixTime
	if err := db.QueryRow(`SELECT 293578400718237473, 1735734605`).Scan(&oid, &created); err != nil {
		t.Fatal(err)
	}
	if oid != messages.OIDFromInt64(293578400718237473) || !created.Equal(time.Date(2025, 1, 1, 12, 30, 5, 0, time.UTC)) {
		t.Errorf("scanned %v %v", oid, created)
	}
	if err := db.QueryRow(`SELECT NULL, NULL`).Scan(&oid, &created); err != nil || !oid.IsZero() || !created.IsZero() {
		t.Errorf("NULL scanned as %v %v %v", oid, created, err)
	}
	if _, err := (messages.OID{Class: 300}).Value(); !errors.Is(err, messages.ErrOID) {
		t.Errorf("an OID beyond the packed form: Value gave %v, want ErrOID", err)
	}
}

// TestOIDForms: the packed form, JSON as a packed decimal string, and the CDN id.
func TestOIDForms(t *testing.T) {
	o := messages.OID{Class: 4, Type: 1, Server: 2, Number: 123456}
	packed := int64(4<<56 | 1<<48 | 2<<40 | 123456)
	if o.Int64() != packed || messages.OIDFromInt64(packed) != o {
		t.Errorf("Int64: %d, want %d", o.Int64(), packed)
	}
	b, err := json.Marshal(struct{ ID messages.OID }{o})
	if err != nil || string(b) != `{"ID":"288514050151801408"}` {
		t.Errorf("JSON: %s %v", b, err)
	}
	var back struct{ ID messages.OID }
	if err := json.Unmarshal(b, &back); err != nil || back.ID != o {
		t.Errorf("JSON back: %v %v", back.ID, err)
	}
	// Beyond the packed form: the object form keeps every number.
	wide := messages.OID{Class: 1000, Number: 1 << 50}
	b, _ = json.Marshal(wide)
	var wideBack messages.OID
	if err := json.Unmarshal(b, &wideBack); err != nil || wideBack != wide {
		t.Errorf("wide OID through JSON %s: %v %v", b, wideBack, err)
	}
	id := o.CDNID()
	if want := base64.RawStdEncoding.EncodeToString([]byte("288514050151801408")); id != want {
		t.Errorf("CDNID %q, want %q", id, want)
	}
	if got, err := messages.OIDFromCDNID(id); err != nil || got != o {
		t.Errorf("OIDFromCDNID(%q) = %v %v", id, got, err)
	}
	for _, bad := range []string{"!!", base64.RawStdEncoding.EncodeToString([]byte("12x"))} {
		if _, err := messages.OIDFromCDNID(bad); !errors.Is(err, messages.ErrOID) {
			t.Errorf("OIDFromCDNID(%q): %v, want ErrOID", bad, err)
		}
	}
}

// TestPlatformOf: machine OS strings of the client.
func TestPlatformOf(t *testing.T) {
	for in, want := range map[string]messages.Platform{
		"Windows 7 Service Pack 1 (6.1.7601) 64bit": messages.PlatformWindows,
		"Mac OS X 10.6.8": messages.PlatformOSX,
		"mac os x 10.9":   messages.PlatformOSX,
		"Linux 5.4":       messages.PlatformUnknown,
		"":                messages.PlatformUnknown,
	} {
		if got := messages.PlatformOf(in); got != want {
			t.Errorf("PlatformOf(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzOIDForms feeds arbitrary text to the OID's parsers (CDN id, JSON, a database's text):
// no panic, errors wrap ErrOID where documented, and what parses survives its own round trip.
func FuzzOIDForms(f *testing.F) {
	for _, s := range []string{"Mjg4NTE0MDUwMTUxODAxNDA4", `"288514050151801408"`, `{"Class":4,"Type":1,"Server":2,"Number":123456}`, `"4-1-2-123456"`, "-1", "", "!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if o, err := messages.OIDFromCDNID(s); err == nil {
			if back, err := messages.OIDFromCDNID(o.CDNID()); err != nil || back != o {
				t.Fatalf("CDN id %q: %v, again %v %v", s, o, back, err)
			}
		} else if !errors.Is(err, messages.ErrOID) {
			t.Fatalf("OIDFromCDNID(%q): %v does not wrap ErrOID", s, err)
		}
		var o messages.OID
		if err := json.Unmarshal([]byte(s), &o); err == nil {
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			var back messages.OID
			if err := json.Unmarshal(b, &back); err != nil || back != o {
				t.Fatalf("JSON %q: %v as %s, back %v %v", s, o, b, back, err)
			}
		}
		var scanned messages.OID
		if err := scanned.Scan(s); err != nil && !errors.Is(err, messages.ErrOID) {
			t.Fatalf("Scan(%q): %v does not wrap ErrOID", s, err)
		}
	})
}
