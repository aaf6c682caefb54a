# Prints var2bytes of a hand-written corpus covering every Variant type and flag of Godot 3.2.3,
# then of `count` random nested values drawn from RandomNumberGenerator seeded with `seed`
# (res://params.txt holds "seed count").
#
# One line per value, tab-separated:
#   label  flags  hex  rt  text
# flags is "full" when the value was encoded with full objects (var2bytes(v, true); decode it
# with allow_objects), else "-". hex is var2bytes(v). rt is the engine's own round trip,
# var2bytes(bytes2var(hex)), or FAIL. text is var2str(v) with C escapes. The line "END count"
# closes the output, so a truncated run is noticed.
extends "res://lib.gd"

var rng = RandomNumberGenerator.new()
var max_depth = 3
var objs = []

func emit(label, v, full = false):
	var b = var2bytes(v, full)
	var r = decode(b, full)
	var rh = "FAIL"
	if r[0]:
		rh = var2bytes(r[1], full).hex_encode()
	var flags = "-"
	if full:
		flags = "full"
	# var2bytes first: var2str can change a Dictionary (fact 10).
	print(label, "\t", flags, "\t", b.hex_encode(), "\t", rh, "\t", text(v))

func _init():
	var f = File.new()
	if f.open("res://params.txt", File.READ) != OK:
		printerr("no params.txt")
		quit(2)
		return
	var params = f.get_as_text().strip_edges().split(" ")
	f.close()
	rng.seed = int(params[0])
	var count = int(params[1])
	hand()
	for i in range(count):
		emit("rand %d" % i, rv(0, false))
	print("END ", count)
	quit()

func hand():
	var zero = f64(0, 0)
	var negzero = f64(0x80000000, 0)
	var nan = f64(0x7ff80000, 0)
	var inf = f64(0x7ff00000, 0)

	emit("nil", null)
	emit("bool true", true)
	emit("bool false", false)

	# INT: 4 bytes inside int32, flag + 8 bytes outside.
	var ints = {"0": 0, "1": 1, "-1": -1, "12000": 12000, "int32 max": 2147483647, "int32 min": -2147483648,
		"int32 max+1": 2147483648, "int32 min-1": -2147483649, "2^32": 4294967296, "-2^32": -4294967296,
		"int64 max": 9223372036854775807, "int64 min": -9223372036854775807 - 1, "-1070935975390360081": -1070935975390360081}
	for k in ints:
		emit("int " + k, ints[k])

	# REAL: 4 bytes when float32 holds the value exactly, else flag + 8 bytes; NaN always 8.
	var reals = [
		["0.0", 0, 0], ["-0.0", 0x80000000, 0], ["1.0", 0x3ff00000, 0], ["0.5", 0x3fe00000, 0],
		["0.1", 0x3fb99999, 0x9999999a], ["1/3", 0x3fd55555, 0x55555555], ["1e10", 0x4202a05f, 0x20000000],
		["1e20", 0x4415af1d, 0x78b58c40], ["16777216", 0x41700000, 0], ["16777217", 0x41700000, 0x10000000],
		["2^100", 0x46300000, 0], ["1e300", 0x7e37e43c, 0x8800759c], ["-1e300", 0xfe37e43c, 0x8800759c],
		["inf", 0x7ff00000, 0], ["-inf", 0xfff00000, 0], ["nan", 0x7ff80000, 0], ["-nan", 0xfff80000, 0],
		["nan payload 1", 0x7ff80000, 1], ["snan64", 0x7ff00000, 1], ["-snan64 max payload", 0xffffffff, 0xffffffff],
		["float32 max", 0x47efffff, 0xe0000000], ["float32 max+ulp64", 0x47efffff, 0xe0000001],
		["float32 min subnormal", 0x36a00000, 0], ["float32 min normal", 0x38100000, 0],
		["float64 min subnormal", 0, 1], ["-float64 min subnormal", 0x80000000, 1],
		["float64 max", 0x7fefffff, 0xffffffff], ["float64 min normal", 0x00100000, 0]]
	for r in reals:
		emit("real " + r[0], f64(r[1], r[2]))
	emit("real from float32 snan bits", f32(0x7f800001))
	emit("real from float32 -nan bits", f32(0xffc00000))
	emit("real 0.1 from float32", f32(0x3dcccccd))

	# STRING
	var strs = {"empty": "", "1": "a", "2": "ab", "3": "abc", "4": "abcd", "5": "abcde", "e acute": "é",
		"euro": "€", "cjk": "中文字", "emoji": "😀", "controls": "\t\n\r\"\\", "crlf": "a\r\nb",
		"bom inside": "a" + char(0xfeff), "U+FFFF": char(0xffff), "U+10FFFF": char(0x10ffff)}
	for k in strs:
		emit("string " + k, strs[k])
	emit("string lone surrogate", char(0xd800))
	emit("string surrogate pair as two", char(0xd800) + char(0xdc00))
	emit("string above U+10FFFF", char(0x110000))
	emit("string 5-byte code point", char(0x200000))
	emit("string 6-byte code point", char(0x7fffffff))
	emit("string leading bom", char(0xfeff) + "a")
	var long = ""
	for i in range(1000):
		long += char(0x61 + i % 26)
	emit("string 1000", long)

	# Math types: always float32, no flag.
	emit("vector2", Vector2(1, 2))
	emit("vector2 -0 inf", Vector2(negzero, inf))
	emit("vector2 nan", Vector2(nan, -inf))
	emit("vector2 1e300 narrows to inf", Vector2(f64(0x7e37e43c, 0x8800759c), 0.1))
	emit("vector2 float32 subnormal", Vector2(f32(1), f32(0x80000001)))
	emit("rect2", Rect2(1, 2, 3, 4))
	emit("vector3", Vector3(1, 2, 3))
	emit("transform2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)))
	emit("transform2d identity", Transform2D.IDENTITY)
	emit("plane", Plane(1, 2, 3, 4))
	emit("quat", Quat(1, 2, 3, 4))
	emit("aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)))
	emit("basis", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)))
	emit("transform", Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12)))
	emit("color", Color(1, 0, 0, 1))
	emit("color overbright negative", Color(2, 0.5, -1, 0))
	emit("color nan", Color(nan, negzero, inf, 1))
	# Crafted bytes: float32 signalling NaNs stay as they are in math types and pools.
	emit("vector2 float32 snan from bytes", decode(unhex("05000000 0100807f 010080ff"))[1])
	emit("real float32 snan from bytes", decode(unhex("03000000 0100807f"))[1])

	# NODE_PATH: the engine never writes the padding of names (masked when comparing).
	var paths = ["", "a", "abcd", "a/b:c", "/root", "/root/Main:position:x", ":x", "/:x", ".", "..",
		"a/../b", "a:b:c:d", "Path2D/PathFollow2D/Sprite:position:x", "節点/ノード:é", "/"]
	for p in paths:
		emit("nodepath \"" + p + "\"", NodePath(p))
	emit("nodepath empty name from bytes", decode(unhex("0f000000 01000080 00000000 00000000 00000000"))[1])
	emit("nodepath name with slash from bytes", decode(unhex("0f000000 01000080 00000000 01000000 03000000 612f6200 01000000 3a000000"))[1])

	# RID: the bare header.
	emit("rid empty", RID())
	emit("rid of a shape", PhysicsServer.shape_create(PhysicsServer.SHAPE_SPHERE))

	# OBJECT: as id, full, null and freed.
	var o = ClassDB.instance("Object")
	var ref = Reference.new()
	var node = Node.new()
	var res = Resource.new()
	res.resource_name = "res name"
	var scr = GDScript.new()
	scr.source_code = "extends Reference\nexport var a = 5\nexport var s = \"x\"\nvar hidden = 7\n"
	scr.reload()
	var inst = scr.new()
	objs = [o, ref, node, res, inst]
	emit("object as id", o)
	emit("reference as id", ref)
	emit("object full", o, true)
	emit("reference full", ref, true)
	emit("node full", node, true)
	emit("resource full", res, true)
	emit("scripted reference full", inst, true)
	emit("array of objects full", [ref, res, null], true)
	emit("encodedobjectasid", decode(unhex("11000100 d2040000 00000000"))[1])
	var freed = ClassDB.instance("Object")
	freed.free()
	emit("object freed", freed)
	emit("object freed full", freed, true)

	# DICTIONARY: insertion order, keys of every type.
	emit("dict empty", {})
	emit("dict order b a 3", {"b": 1, "a": 2, 3: 4})
	var d = {"a": 1, "b": 2, "c": 3}
	d.erase("a")
	d["a"] = 4
	emit("dict erase and reinsert", d)
	emit("dict 1 and 1.0 and true", {1: "int", 1.0: "real", true: "bool"})
	d = {}
	d[zero] = 1
	d[negzero] = 2
	emit("dict +0 then -0", d)
	d = {}
	d[negzero] = 1
	d[zero] = 2
	emit("dict -0 then +0", d)
	d = {}
	d[nan] = 1
	d[f64(0xfff80000, 1)] = 2
	d[Vector2(nan, 0)] = 3
	d[PoolVector2Array([Vector2(nan, 1)])] = 4
	d[[nan]] = 5
	emit("dict nan keys", d)
	d = {}
	d[PoolRealArray([nan])] = 1
	d["x"] = 2
	emit("dict poolrealarray nan key deleted object", d)
	var keys = [null, true, 7, 7.5, "s", Vector2(1, 2), Rect2(1, 2, 3, 4), Vector3(1, 2, 3),
		Transform2D.IDENTITY, Plane(1, 2, 3, 4), Quat(1, 2, 3, 4), AABB(Vector3(), Vector3(1, 1, 1)),
		Basis.IDENTITY, Transform.IDENTITY, Color(1, 1, 1, 1), NodePath("a/b:c"), RID(), ref, {"k": 1}, [1, "a"],
		PoolByteArray([1, 2]), PoolIntArray([1, 2]), PoolRealArray([1.5]), PoolStringArray(["a"]),
		PoolVector2Array([Vector2(1, 2)]), PoolVector3Array([Vector3(1, 2, 3)]), PoolColorArray([Color(1, 0, 0)])]
	d = {}
	for i in range(keys.size()):
		d[keys[i]] = i
	emit("dict keys of every type", d)
	d = {}
	d[{}] = 1
	d[{}] = 2
	d[[]] = 3
	d[[]] = 4
	emit("dict two dict keys two array keys", d)
	emit("dict nested", {"a": {"b": {"c": [1, {"d": null}]}}})

	# ARRAY
	emit("array empty", [])
	emit("array int string", [1, "a"])
	emit("array nested empty", [[[]]])
	emit("array mixed", [null, true, 1, 2.5, "s", Vector2(), NodePath("x"), {}, [], PoolByteArray()])
	var deep = []
	for i in range(200):
		deep = [deep]
	emit("array 200 levels", deep)
	var many = []
	for i in range(1000):
		many.append(i * 1000003)
	emit("array 1000 ints", many)

	# Pool arrays, empty and not.
	for n in range(6):
		var pb = PoolByteArray()
		for i in range(n):
			pb.append(0xf0 + i)
		emit("poolbytearray %d" % n, pb)
	var big = PoolByteArray()
	for i in range(1001):
		big.append(i * 7)
	emit("poolbytearray 1001", big)
	emit("poolbytearray mod 256", PoolByteArray([256, 257, -1]))
	emit("poolintarray empty", PoolIntArray())
	emit("poolintarray", PoolIntArray([0, 1, -1, 2147483647, -2147483648]))
	emit("poolintarray int64 truncated", PoolIntArray([4294967297, 1099511627775]))
	emit("poolrealarray empty", PoolRealArray())
	emit("poolrealarray specials", PoolRealArray([negzero, inf, -inf, nan, f64(0x3fb99999, 0x9999999a), f32(1)]))
	emit("poolstringarray empty", PoolStringArray())
	emit("poolstringarray lengths", PoolStringArray(["", "a", "ab", "abc", "abcd", "é", "😀"]))
	emit("poolstringarray one empty", PoolStringArray([""]))
	emit("poolvector2array empty", PoolVector2Array())
	emit("poolvector2array", PoolVector2Array([Vector2(1, 2), Vector2(negzero, nan)]))
	emit("poolvector3array empty", PoolVector3Array())
	emit("poolvector3array", PoolVector3Array([Vector3(1, 2, 3), Vector3(inf, -inf, negzero)]))
	emit("poolcolorarray empty", PoolColorArray())
	emit("poolcolorarray", PoolColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.4)]))

	# Everything at once, in an Array and in a Dictionary.
	emit("array of every type", keys)
	d = {}
	for i in range(keys.size()):
		d[i] = keys[i]
	emit("dict of every type", d)

# Random values. rv returns a random value of any type but Object-by-full; in_key says that the
# value is (inside) a Dictionary key, where a PoolRealArray with a NaN would be written as
# "[Deleted Object]" (fact 10) and break the engine's own round trip.
func rv(depth, in_key):
	var t = rng.randi_range(0, 26)
	if depth >= max_depth and (t == TYPE_DICTIONARY or t == TYPE_ARRAY):
		t = TYPE_STRING
	if t == TYPE_NIL:
		return null
	elif t == TYPE_BOOL:
		return rng.randi() % 2 == 0
	elif t == TYPE_INT:
		return ri()
	elif t == TYPE_REAL:
		return rf()
	elif t == TYPE_STRING:
		return rs()
	elif t == TYPE_VECTOR2:
		return Vector2(rc(), rc())
	elif t == TYPE_RECT2:
		return Rect2(rc(), rc(), rc(), rc())
	elif t == TYPE_VECTOR3:
		return Vector3(rc(), rc(), rc())
	elif t == TYPE_TRANSFORM2D:
		return Transform2D(Vector2(rc(), rc()), Vector2(rc(), rc()), Vector2(rc(), rc()))
	elif t == TYPE_PLANE:
		return Plane(rc(), rc(), rc(), rc())
	elif t == TYPE_QUAT:
		return Quat(rc(), rc(), rc(), rc())
	elif t == TYPE_AABB:
		return AABB(Vector3(rc(), rc(), rc()), Vector3(rc(), rc(), rc()))
	elif t == TYPE_BASIS:
		return Basis(Vector3(rc(), rc(), rc()), Vector3(rc(), rc(), rc()), Vector3(rc(), rc(), rc()))
	elif t == TYPE_TRANSFORM:
		return Transform(Basis(Vector3(rc(), rc(), rc()), Vector3(rc(), rc(), rc()), Vector3(rc(), rc(), rc())), Vector3(rc(), rc(), rc()))
	elif t == TYPE_COLOR:
		return Color(rc(), rc(), rc(), rc())
	elif t == TYPE_NODE_PATH:
		return rpath()
	elif t == TYPE_RID:
		return RID()
	elif t == TYPE_OBJECT:
		# Encoded as its instance id.
		return objs[rng.randi() % objs.size()]
	elif t == TYPE_DICTIONARY:
		var d = {}
		for i in range(rng.randi_range(0, 4)):
			d[rv(depth + 1, true)] = rv(depth + 1, in_key)
		return d
	elif t == TYPE_ARRAY:
		var a = []
		for i in range(rng.randi_range(0, 4)):
			a.append(rv(depth + 1, in_key))
		return a
	var n = rng.randi_range(0, 5)
	if t == TYPE_RAW_ARRAY:
		var p = PoolByteArray()
		for i in range(n):
			p.append(rng.randi() % 256)
		return p
	elif t == TYPE_INT_ARRAY:
		var p = PoolIntArray()
		for i in range(n):
			p.append(ri())
		return p
	elif t == TYPE_REAL_ARRAY:
		var p = PoolRealArray()
		for i in range(n):
			var x = rf()
			if in_key and is_nan(x):
				x = 1.0
			p.append(x)
		return p
	elif t == TYPE_STRING_ARRAY:
		var p = PoolStringArray()
		for i in range(n):
			p.append(rs())
		return p
	elif t == TYPE_VECTOR2_ARRAY:
		var p = PoolVector2Array()
		for i in range(n):
			p.append(Vector2(rc(), rc()))
		return p
	elif t == TYPE_VECTOR3_ARRAY:
		var p = PoolVector3Array()
		for i in range(n):
			p.append(Vector3(rc(), rc(), rc()))
		return p
	var p = PoolColorArray()
	for i in range(n):
		p.append(Color(rc(), rc(), rc(), rc()))
	return p

func ri():
	var k = rng.randi_range(0, 4)
	if k == 0:
		var edges = [0, 1, -1, 2147483647, -2147483648, 2147483648, -2147483649, 9223372036854775807, -9223372036854775807 - 1, 4294967296]
		return edges[rng.randi() % edges.size()]
	elif k == 1:
		return rng.randi_range(-1000, 1000)
	elif k == 2:
		return rng.randi() - 2147483648
	return (rng.randi() << 32) | rng.randi()

func rf():
	var k = rng.randi_range(0, 8)
	if k == 0:
		return f64(rng.randi(), rng.randi())
	elif k == 1:
		return f32(rng.randi())
	elif k == 2:
		return float(rng.randi_range(-1000, 1000)) / 8.0
	elif k == 3:
		return (rng.randf() - 0.5) * pow(10, rng.randi_range(-20, 20))
	elif k == 4:
		return f64((rng.randi() % 2) << 31, 0)
	elif k == 5:
		return f64(rng.randi() & 0x800fffff, rng.randi())
	elif k == 6:
		return f64(0x7ff00000 | (rng.randi() & 0x800fffff) | 0x80000, rng.randi())
	elif k == 7:
		var e = [[0x7ff00000, 0], [0xfff00000, 0], [0x3fb99999, 0x9999999a], [0x47efffff, 0xe0000000], [0x36a00000, 0], [0x41700000, 0x10000000]]
		var x = e[rng.randi() % e.size()]
		return f64(x[0], x[1])
	return float(ri())

# rc returns a math-type component (stored as float32).
func rc():
	var k = rng.randi_range(0, 4)
	if k == 0:
		return f32(rng.randi())
	elif k == 1:
		return float(rng.randi_range(-100, 100)) / 4.0
	elif k == 2:
		return f32((rng.randi() % 2) << 31)
	elif k == 3:
		return f32(rng.randi() & 0x807fffff)
	return rf()

func rs():
	var n = rng.randi_range(0, 6)
	if rng.randi() % 8 == 0:
		n = rng.randi_range(0, 24)
	var s = ""
	for i in range(n):
		var k = rng.randi_range(0, 19)
		var c
		if k < 10:
			c = rng.randi_range(0x20, 0x7e)
		elif k < 11:
			c = [9, 10, 13, 1, 0x1f, 0x7f][rng.randi() % 6]
		elif k < 13:
			c = rng.randi_range(0x80, 0x7ff)
		elif k < 16:
			c = rng.randi_range(0x800, 0xffff)
		elif k < 19:
			c = rng.randi_range(0x10000, 0x10ffff)
		else:
			c = rng.randi_range(0x110000, 0x7fffffff)
		if i == 0 and c == 0xfeff:
			c = 0x42
		s += char(c)
	return s

func rname():
	var letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"
	var s = ""
	for i in range(rng.randi_range(1, 6)):
		s += letters[rng.randi() % letters.length()]
	if rng.randi() % 8 == 0:
		s += char(rng.randi_range(0x80, 0x10ffff))
	return s

func rpath():
	var names = PoolStringArray()
	for i in range(rng.randi_range(0, 3)):
		names.append(rname())
	var subs = PoolStringArray()
	if rng.randi() % 2 == 0:
		for i in range(rng.randi_range(1, 3)):
			subs.append(rname())
	var s = names.join("/")
	if subs.size() > 0:
		s += ":" + subs.join(":")
	if s != "" and rng.randi() % 2 == 0:
		s = "/" + s
	return NodePath(s)
