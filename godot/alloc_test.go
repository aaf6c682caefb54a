package godot

import "testing"

// Encoding into a reused buffer allocates nothing for packed arrays and small values, even when
// the caller passes a concrete value (which Go must box into the any parameter: it stays on the
// stack because Append does not let it escape).
func TestAppendDoesNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	vs := make([]Vector3, 1000)
	bs := make([]byte, 4096)
	buf := make([]byte, 0, 64<<10)
	for _, d := range []Dialect{Godot3, Godot4} {
		enc := em(EncodeOptions{Dialect: d})
		cases := map[string]func(){
			"PoolVector3Array": func() { buf, _ = enc.Append(buf[:0], vs) },
			"PoolByteArray":    func() { buf, _ = enc.Append(buf[:0], bs) },
			"Vector3":          func() { buf, _ = enc.Append(buf[:0], Vector3{1, 2, 3}) },
			"int":              func() { buf, _ = enc.Append(buf[:0], int64(123456789)) },
			"String":           func() { buf, _ = enc.Append(buf[:0], "hello") },
			"float":            func() { buf, _ = enc.Append(buf[:0], 0.1) },
		}
		for name, f := range cases {
			if n := testing.AllocsPerRun(100, f); n != 0 {
				t.Errorf("%s %s: %v allocations per Append", d, name, n)
			}
		}
	}
}
