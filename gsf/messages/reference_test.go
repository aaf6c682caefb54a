package messages

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf/messages/internal/schema"
)

// referenceCommit is the reference emulator's commit that catalog.txt was read from.
const referenceCommit = "275cd30b3893d30f5400a920a8fd8655b443480b"

// referenceDir returns a checkout or bare git directory of the reference emulator: the
// GAMEWIRE_REFERENCE environment variable, or the development machine's mirror.
func referenceDir(t *testing.T) string {
	dir := os.Getenv("GAMEWIRE_REFERENCE")
	if dir == "" {
		dir = "/work/.mirror/dv1x3r+amazing-core/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the reference emulator is not here (%v): set GAMEWIRE_REFERENCE to a checkout or bare git "+
			"directory of github.com/dv1x3r/amazing-core (commit %s) to run this test", err, referenceCommit[:8])
	}
	return dir
}

// TestReference runs the reference emulator's own code on the catalog's layouts: for every body
// and object type, the reference's Deserialize reads bytes that the field list built, and must
// read the same primitives in the same order as Describe does; and where the type has a
// Serialize, a random value it writes must be described as the same primitives, and must decode
// into the catalog's struct and encode back to the reference's bytes exactly.
func TestReference(t *testing.T) {
	ref := referenceDir(t)
	if testing.Short() {
		t.Skip("builds the reference emulator: not with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	work := t.TempDir()
	if err := extractReference(ref, work); err != nil {
		t.Fatal(err)
	}
	c := catalog()
	var table strings.Builder
	table.WriteString("package main\n\nimport (\n\t\"github.com/dv1x3r/amazing-core/internal/network/gsf/messages\"\n" +
		"\t\"github.com/dv1x3r/amazing-core/internal/network/gsf/notify\"\n\t\"github.com/dv1x3r/amazing-core/internal/network/gsf/types\"\n)\n\n" +
		"var table = map[string]func() any{\n")
	type jobT struct {
		Name string `json:"name"`
		Hex  string `json:"hex"`
		Seed uint64 `json:"seed"`
	}
	var jobs []jobT
	defs := map[string]*schema.Def{}
	for _, def := range c.Defs {
		refName, pkg := def.Name, "messages"
		switch def.Kind {
		case schema.Object:
			pkg = "types"
		case schema.Notify:
			pkg, refName = "notify", strings.TrimSuffix(def.Name, "Notify")
		}
		fmt.Fprintf(&table, "\t%q: func() any { return new(%s.%s) },\n", refName, pkg, refName)
		defs[refName] = def
		for seed := range uint64(4) {
			// Pointer objects are null in what the reference reads: its Deserialize of a present
			// pointer object (PlayerItem.ParentPIOOID, …) calls a method on the nil pointer and
			// panics, so that it cannot read any body with one (the game server only writes them).
			b := &builder{c: c, rng: rand.New(rand.NewPCG(seed+100, 13)), nulls: seed%2 == 1, nullPtrs: true}
			b.fields(def.Fields, reflect.New(defType(def)).Elem(), 0)
			data := b.w.Bytes()
			jobs = append(jobs, jobT{Name: refName, Hex: hex.EncodeToString(data), Seed: seed})
		}
	}
	table.WriteString("}\n")
	cmdDir := filepath.Join(work, "cmd", "gwrefdump")
	if err := os.MkdirAll(cmdDir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "refdump", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cmdDir, "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cmdDir, "table.go"), []byte(table.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(jobs)
	cmd := exec.Command("go", "run", "./cmd/gwrefdump")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running the reference: %v\n%s", err, stderr.String())
	}
	var results []struct {
		Name      string          `json:"name"`
		ReadLog   []string        `json:"read"`
		ReadErr   string          `json:"readErr"`
		WriteHex  string          `json:"writeHex"`
		WriteLog  []string        `json:"write"`
		NoWrite   bool            `json:"noWrite"`
		NoRead    bool            `json:"noRead"`
		ReadJSON  json.RawMessage `json:"readJSON"`
		WriteJSON json.RawMessage `json:"writeJSON"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(jobs) {
		t.Fatalf("%d results for %d jobs", len(results), len(jobs))
	}
	reads, writes := 0, 0
	for i, res := range results {
		def := defs[res.Name]
		data, _ := hex.DecodeString(jobs[i].Hex)
		if res.ReadErr != "" {
			t.Errorf("%s: the reference cannot read the field list's bytes: %s", def.Name, res.ReadErr)
			continue
		}
		if !res.NoRead {
			reads++
			if got := describeEvents(t, c, def, data); !equalLogs(got, res.ReadLog) {
				t.Errorf("%s (seed %d): Describe and the reference's Deserialize read differently:\n%s", def.Name, jobs[i].Seed, diffLogs(got, res.ReadLog))
			}
			// Field by field, by name: the reference's struct and the catalog's.
			v := reflect.New(defType(def))
			if err := bitproto.Unmarshal(data, v.Interface()); err != nil {
				t.Errorf("%s: %v", def.Name, err)
			} else if diff := compareJSON(canonJSON(t, v.Elem()), res.ReadJSON); diff != "" {
				t.Errorf("%s (seed %d): the catalog's struct and the reference's differ after reading the same bytes: %s", def.Name, jobs[i].Seed, diff)
			}
		}
		if res.NoWrite {
			continue
		}
		writes++
		refBytes, _ := hex.DecodeString(res.WriteHex)
		if got := describeEvents(t, c, def, refBytes); !equalLogs(got, res.WriteLog) {
			t.Errorf("%s (seed %d): Describe reads the reference's Serialize output differently:\n%s", def.Name, jobs[i].Seed, diffLogs(got, res.WriteLog))
		}
		v := reflect.New(defType(def))
		if err := bitproto.Unmarshal(refBytes, v.Interface()); err != nil {
			t.Errorf("%s: the reference's bytes do not decode: %v", def.Name, err)
			continue
		}
		if diff := compareJSON(canonJSON(t, v.Elem()), res.WriteJSON); diff != "" {
			t.Errorf("%s (seed %d): the catalog's struct decoded from the reference's bytes differs from the value it wrote: %s", def.Name, jobs[i].Seed, diff)
		}
		enc, err := bitproto.Marshal(v.Interface())
		if err != nil || !bytes.Equal(enc, refBytes) {
			t.Errorf("%s: decoding the reference's bytes and encoding them again gives\n% x\nwant\n% x (%v)", def.Name, enc, refBytes, err)
		}
	}
	t.Logf("%d decodes and %d encodes compared with the reference", reads, writes)
	if writes == 0 || reads < len(jobs)/2 {
		t.Errorf("too few comparisons: %d reads, %d writes", reads, writes)
	}
}

// extractReference puts the reference's module files and GSF packages into dir.
func extractReference(ref, dir string) error {
	paths := []string{"go.mod", "go.sum", "internal/network/gsf", "internal/lib/wrap"}
	if _, err := os.Stat(filepath.Join(ref, "go.mod")); err == nil { // a checkout
		for _, p := range paths {
			src := filepath.Join(ref, p)
			st, err := os.Stat(src)
			if err != nil {
				return err
			}
			if !st.IsDir() {
				b, err := os.ReadFile(src)
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
					return err
				}
				continue
			}
			if err := os.CopyFS(filepath.Join(dir, p), os.DirFS(src)); err != nil {
				return err
			}
		}
		return nil
	}
	archive := exec.Command("git", append([]string{"-C", ref, "archive", "--format=tar", referenceCommit}, paths...)...)
	tar := exec.Command("tar", "-x", "-C", dir)
	var err error
	if tar.Stdin, err = archive.StdoutPipe(); err != nil {
		return err
	}
	var errb, tarErrb bytes.Buffer // one each: the two processes' output is copied concurrently
	archive.Stderr, tar.Stderr = &errb, &tarErrb
	if err := tar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive: %v: %s", err, errb.String())
	}
	if err := tar.Wait(); err != nil {
		return fmt.Errorf("tar: %v: %s", err, tarErrb.String())
	}
	return nil
}

// describeEvents describes data as a body of def and returns the primitives it read, in the
// reference's terms (a null bit of an object is "object null" or "object present", that of a
// nullable value a bool, a count an int32).
func describeEvents(t *testing.T, c *schema.Catalog, def *schema.Def, data []byte) []string {
	t.Helper()
	d := &describer{c: c, r: bitstream.NewReader(data), maxFields: DefaultMaxFields, maxDepth: DefaultMaxDepth}
	fields, err := d.fields(def.Fields, "")
	if err != nil {
		t.Errorf("%s: Describe: %v", def.Name, err)
	}
	var out []string
	for _, f := range fields {
		out = appendEvents(out, f)
	}
	return out
}

func appendEvents(out []string, f Field) []string {
	typ := f.Type
	switch {
	case strings.HasPrefix(typ, "?"):
		if f.Null {
			return append(out, "bool true")
		}
		return append(append(out, "bool false"), leafEvent(typ[1:], f.Raw))
	case strings.HasPrefix(typ, "[]") || strings.HasPrefix(typ, "map[]"):
		out = append(out, "int32 "+strconv.Itoa(*f.Count))
		for _, el := range f.Fields {
			if strings.HasPrefix(typ, "map[]") {
				key, _ := strconv.Unquote(el.Name[1 : len(el.Name)-1])
				out = append(out, "string "+strconv.Quote(key))
			}
			out = appendEvents(out, el)
		}
		return out
	case typ[0] == '*' || typ[0] >= 'A' && typ[0] <= 'Z' && schema.Enums[typ] == "":
		if f.Null {
			return append(out, "object null")
		}
		out = append(out, "object present")
		for _, sub := range f.Fields {
			out = appendEvents(out, sub)
		}
		return out
	}
	return append(out, leafEvent(typ, f.Raw))
}

func leafEvent(typ string, v any) string {
	if schema.Enums[typ] != "" {
		typ = "string"
	}
	switch x := v.(type) {
	case string:
		return "string " + strconv.Quote(x)
	case []byte:
		return "bytes " + hex.EncodeToString(x)
	case time.Time:
		if x.IsZero() {
			return "date null"
		}
		return "date " + strconv.FormatInt(x.Unix(), 10)
	case float32:
		return "float32 " + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return "float64 " + strconv.FormatFloat(x, 'g', -1, 64)
	case uint8:
		return fmt.Sprintf("byte %d", x)
	}
	return fmt.Sprintf("%s %v", typ, v)
}

func equalLogs(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func diffLogs(got, want []string) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "!="
		}
		fmt.Fprintf(&b, "%4d %s %-40s %s\n", i, mark, g, w)
		if g != w && b.Len() > 4000 {
			break
		}
	}
	return b.String()
}

// canonJSON returns the JSON of a catalog value in the form the reference's types marshal to:
// an OID as its packed number in a string, enums as their numbers; everything else as
// encoding/json writes it.
func canonJSON(t *testing.T, v reflect.Value) []byte {
	b, err := json.Marshal(canon(v))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	oidType  = reflect.TypeFor[OID]()
	timeType = reflect.TypeFor[time.Time]()
)

func canon(v reflect.Value) any {
	switch {
	case v.Type() == oidType:
		return strconv.FormatInt(v.Interface().(OID).Int64(), 10)
	case v.Type() == timeType:
		return v.Interface()
	}
	switch x := v.Interface().(type) {
	case SessionStatus:
		n, _ := x.Value()
		return n
	case ChatChannelTypeValue:
		n, _ := x.Value()
		return n
	case OnlineStatusValue:
		n, _ := x.Value()
		return n
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return canon(v.Elem())
	case reflect.Struct:
		m := map[string]any{}
		var walk func(v reflect.Value)
		walk = func(v reflect.Value) {
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.Anonymous {
					walk(v.Field(i))
					continue
				}
				m[f.Name] = canon(v.Field(i))
			}
		}
		walk(v)
		return m
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return append([]byte{}, v.Bytes()...) // the wire has no nil byte array: length 0 is ""
		}
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = canon(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = canon(it.Value())
		}
		return out
	}
	return v.Interface()
}

// compareJSON compares two JSON documents as values (numbers exactly) and describes the first
// difference.
func compareJSON(a, b []byte) string {
	dec := func(x []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	va, err := dec(a)
	if err != nil {
		return err.Error()
	}
	vb, err := dec(b)
	if err != nil {
		return err.Error()
	}
	return diffValue("", va, vb)
}

func diffValue(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v, the reference %v", path, a, b)
		}
		for k := range x {
			if _, ok := y[k]; !ok {
				return fmt.Sprintf("%s.%s: the reference has no such field", path, k)
			}
		}
		for k := range y {
			if d := diffValue(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v, the reference %v", path, a, b)
		}
		for i := range x {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v, the reference %v", path, a, b)
	}
	return ""
}
