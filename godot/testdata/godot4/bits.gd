# Floats built from their bits. GDScript literals cannot express -0.0 (it folds to 0.0),
# subnormals (they parse as 0) or NaN payloads, and some literals are 1 ulp off.
extends RefCounted


# f64 returns the float64 with the given bits. bits is an int64: write the sign bit as
# (1 << 63), which GDScript wraps to the minimum int.
static func f64(bits: int) -> float:
	var b := PackedByteArray()
	b.resize(8)
	b.encode_s64(0, bits)
	return b.decode_double(0)


# f32 returns the float32 with the given bits (a uint32), widened to float64.
static func f32(bits: int) -> float:
	var b := PackedByteArray()
	b.resize(4)
	b.encode_u32(0, bits)
	return b.decode_float(0)
