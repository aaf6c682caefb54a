# Helpers shared by the Godot 3.2.3 test scripts (res://lib.gd). The scripts extend this one.
#
# GDScript pitfalls these helpers work around (see /work/shared/spec/godot3-engine.md):
# - bytes2var on malformed input is not a null result: the script error aborts the *calling*
#   function. decode() therefore calls it inside the one-line function _dec and checks _ok.
# - String.hex_decode() does not exist in 3.2.3: unhex() decodes hex.
# - Float literals are unreliable: the parser shares one constant slot between 0.0 and -0.0
#   (whichever appears first in the script wins), and some literals are off by one ulp. Exact
#   floats are built from their bits with f64()/f32().
extends SceneTree

var _ok = false
var _v = null

func _dec(b, objects):
	_ok = false
	_v = bytes2var(b, objects)
	_ok = true

# decode returns [true, value], or [false, null] if bytes2var failed (the engine prints the
# error code on stderr).
func decode(b, objects = false):
	_dec(b, objects)
	if _ok:
		return [true, _v]
	return [false, null]

func unhex(s):
	var digits = "0123456789abcdef"
	var b = PoolByteArray()
	s = s.replace(" ", "").to_lower()
	for i in range(0, s.length(), 2):
		b.append(digits.find(s[i]) * 16 + digits.find(s[i + 1]))
	return b

# f64 returns the double with the given high and low 32 bits.
func f64(hi, lo):
	var sp = StreamPeerBuffer.new()
	sp.put_u32(lo)
	sp.put_u32(hi)
	sp.seek(0)
	return sp.get_double()

# f32 returns the float32 with the given bits, widened to a double as GDScript floats are.
func f32(bits):
	var sp = StreamPeerBuffer.new()
	sp.put_u32(bits)
	sp.seek(0)
	return sp.get_float()

# text is var2str on one line (Objects end with a newline; containers span lines), or a note
# where var2str would crash the engine.
func text(v):
	if not var2str_safe(v):
		return "(var2str skipped: it segfaults 3.2.3 on this value)"
	return var2str(v).c_escape()

# var2str_safe reports whether var2str(v) is safe. 3.2.3's var2str segfaults on a Dictionary
# with a Resource value ({1: Resource.new()}; [Resource.new()] is fine), and when it sorts the
# keys of a Dictionary and compares two pool arrays: several pool-array keys of one type
# ({PoolIntArray([1]): 0, PoolIntArray(): 0, PoolIntArray([3, 4, 5]): 0}), or Array keys that
# hold pool arrays ({[Quat(), PoolRealArray()]: 0, [Plane(), PoolRealArray([1])]: 0}), which are
# compared element by element.
func var2str_safe(v):
	var t = typeof(v)
	if t == TYPE_ARRAY:
		for e in v:
			if not var2str_safe(e):
				return false
	elif t == TYPE_DICTIONARY:
		var seen = {}
		var pool_arrays = 0
		for k in v.keys():
			var kt = typeof(k)
			if kt >= TYPE_RAW_ARRAY:
				if seen.has(kt):
					return false
				seen[kt] = true
			if kt == TYPE_ARRAY and has_pool_array(k):
				pool_arrays += 1
				if pool_arrays > 1:
					return false
			if not var2str_safe(k):
				return false
		for e in v.values():
			if e is Resource or not var2str_safe(e):
				return false
	return true

# has_pool_array reports whether an Array holds a pool array, at any depth.
func has_pool_array(a):
	for e in a:
		if typeof(e) >= TYPE_RAW_ARRAY or typeof(e) == TYPE_ARRAY and has_pool_array(e):
			return true
	return false
