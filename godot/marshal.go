package godot

// other encodes the values that the fast type switch of encoder.value does not list: the float
// math types, and (through reflection) any other Go value.
func (e *encoder) other(b []byte, v any, depth int) ([]byte, error) {
	return e.math(b, v)
}
