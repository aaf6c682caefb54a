// Package rpcfunc binds the typed Go handlers of Godot RPCs, func(peer, args...) with an
// optional error result, once at declaration; godot/multiplayer (Godot 4) and
// godot/multiplayer3 (Godot 3) share it so that both check and call handlers alike.
package rpcfunc

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
)

var errorType = reflect.TypeFor[error]()

// Func is a handler checked by Bind. Params are the types of its arguments after the peer.
type Func struct {
	fn     reflect.Value
	Params []reflect.Type
	errRet bool
	frames sync.Pool // *Frame, reused from call to call
}

// Frame is the argument storage of one call: a value of each parameter's type, allocated once
// and reused through Func.Frame and Func.Release, so that decoding a call's arguments into it
// and making the call allocate nothing of their own.
type Frame struct {
	// In is what Call takes: In[0] is for the peer, In[1+i] is parameter i's storage
	// (addressable and settable).
	In []reflect.Value
	// Scratch is the caller's, kept with the frame for the next call (a decoder's buffer).
	Scratch []byte
	ptrs    []any // *T of each parameter's storage
}

// Ptr returns a pointer (*T, for parameter type T) to parameter i's storage, for decoders that
// take a pointer as an any: a pointer in an interface does not allocate.
func (fr *Frame) Ptr(i int) any { return fr.ptrs[i] }

// Frame returns a frame for one call, every parameter zero. Give it back with Release.
func (f *Func) Frame() *Frame {
	if fr, ok := f.frames.Get().(*Frame); ok {
		return fr
	}
	fr := &Frame{In: make([]reflect.Value, 1+len(f.Params)), ptrs: make([]any, len(f.Params))}
	for i, t := range f.Params {
		p := reflect.New(t)
		fr.ptrs[i] = p.Interface()
		fr.In[1+i] = p.Elem()
	}
	return fr
}

// Release zeroes fr's values, so that it keeps nothing the call was given alive, and keeps it
// for another call.
func (f *Func) Release(fr *Frame) {
	fr.In[0] = reflect.Value{}
	for _, v := range fr.In[1:] {
		v.SetZero()
	}
	f.frames.Put(fr)
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
