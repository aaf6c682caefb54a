package rpcfunc

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

type peer struct{ id int }

var peerT = reflect.TypeFor[*peer]()

func TestBindChecks(t *testing.T) {
	for _, c := range []struct {
		h    any
		want string
	}{
		{42, "not a function"},
		{func() {}, "first parameter must be *rpcfunc.peer"},
		{func(int) {}, "first parameter must be *rpcfunc.peer"},
		{func(*peer, ...int) {}, "variadic"},
		{func(*peer) int { return 0 }, "return nothing or an error"},
	} {
		if _, err := Bind(c.h, peerT); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Bind(%T): %v, want %q", c.h, err, c.want)
		}
	}
	if f, err := Bind(nil, peerT); f != nil || err != nil {
		t.Errorf("Bind(nil) = %v, %v; want nil, nil", f, err)
	}
}

func TestCall(t *testing.T) {
	var got []any
	f, err := Bind(func(p *peer, s string, n int) error {
		got = append(got, p.id, s, n)
		if n < 0 {
			return errors.New("negative")
		}
		if n == 0 {
			panic("zero")
		}
		return nil
	}, peerT)
	if err != nil {
		t.Fatal(err)
	}
	if want := []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[int]()}; !reflect.DeepEqual(f.Params, want) {
		t.Errorf("Params = %v, want %v", f.Params, want)
	}
	call := func(n int) error {
		return f.Call([]reflect.Value{reflect.ValueOf(&peer{7}), reflect.ValueOf("a"), reflect.ValueOf(n)})
	}
	if err := call(1); err != nil || !reflect.DeepEqual(got, []any{7, "a", 1}) {
		t.Errorf("call(1) = %v, args %v", err, got)
	}
	if err := call(-1); err == nil || err.Error() != "negative" {
		t.Errorf("call(-1) = %v, want the handler's error", err)
	}
	var pe *PanicError
	if err := call(0); !errors.As(err, &pe) || pe.Value != "zero" || len(pe.Stack) == 0 {
		t.Errorf("call(0) = %v, want a *PanicError with the value and a stack", err)
	}
}
