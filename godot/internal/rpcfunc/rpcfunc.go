// Package rpcfunc binds the typed Go handlers of Godot RPCs, func(peer, args...) with an
// optional error result, once at declaration; godot/multiplayer (Godot 4) and
// godot/multiplayer3 (Godot 3) share it so that both check and call handlers alike.
package rpcfunc

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
)

var errorType = reflect.TypeFor[error]()

// Func is a handler checked by Bind. Params are the types of its arguments after the peer.
type Func struct {
	fn     reflect.Value
	Params []reflect.Type
	errRet bool
}

// Bind checks that h is a function whose first parameter has type peer and that returns nothing
// or an error, and returns it bound; a nil h gives a nil *Func and no error.
func Bind(h any, peer reflect.Type) (*Func, error) {
	if h == nil {
		return nil, nil
	}
	v := reflect.ValueOf(h)
	t := v.Type()
	if t.Kind() != reflect.Func {
		return nil, fmt.Errorf("handler is a %s, not a function", t)
	}
	if t.NumIn() < 1 || t.In(0) != peer {
		return nil, fmt.Errorf("handler's first parameter must be %s", peer)
	}
	if t.IsVariadic() {
		return nil, errors.New("variadic handlers are not supported")
	}
	f := &Func{fn: v}
	switch {
	case t.NumOut() == 0:
	case t.NumOut() == 1 && t.Out(0) == errorType:
		f.errRet = true
	default:
		return nil, errors.New("handler must return nothing or an error")
	}
	if t.NumIn()-1 > 255 {
		return nil, errors.New("more than 255 parameters")
	}
	for i := 1; i < t.NumIn(); i++ {
		f.Params = append(f.Params, t.In(i))
	}
	return f, nil
}

// PanicError is a panic of a handler, returned by Call.
type PanicError struct {
	Value any    // what the handler panicked with
	Stack []byte // the handler's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("%v\n%s", e.Value, e.Stack) }

// Call calls the handler with in (the peer first, then one value per Params). It returns the
// handler's error, or a *PanicError if it panicked, so that one peer's call cannot take the
// server down.
func (f *Func) Call(in []reflect.Value) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	out := f.fn.Call(in)
	if f.errRet && !out[0].IsNil() {
		return out[0].Interface().(error)
	}
	return nil
}
