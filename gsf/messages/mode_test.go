package messages

import "testing"

// strict is the strict mode of the default limits.
var strict = func() DecodeMode {
	m, err := DecodeOptions{Strict: true}.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// TestDecodeModeChecks: limits that bitproto refuses fail when the mode is made.
func TestDecodeModeChecks(t *testing.T) {
	for _, o := range []DecodeOptions{{MaxDepth: -2}, {MaxAllocBytes: -9}} {
		if _, err := o.DecodeMode(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := (DecodeOptions{MaxDepth: -1, MaxAllocBytes: 1 << 20, Strict: true}).DecodeMode(); err != nil {
		t.Error(err)
	}
}
