# The hand corpus: every Godot 4 Variant type (all 39 ids) and every header flag, as the real
# engine writes them. main.gd prints each entry as "C<TAB>label<TAB>hex<TAB>...". Labels are unique;
# the Go test checks that every type id and flag appears, so keep at least one entry of each.
extends RefCounted

const Bits = preload("res://bits.gd")
const Elem = preload("res://elem.gd")

var entries: Array = [] # [label, value, with_objects]
var nodes: Array[Node] = [] # freed by free_nodes() once the entries are printed


func add(label: String, value, objects := false) -> void:
	entries.append([label, value, objects])


func free_nodes() -> void:
	for n in nodes:
		n.free()
	nodes.clear()


func node(name: String) -> Node:
	var n := Node.new()
	n.name = name
	nodes.append(n)
	return n


func build(holder: Node) -> Array:
	var nz := Bits.f64(1 << 63) # -0.0
	var nan_payload := Bits.f64(0x7FF0000000000001) # signalling NaN, payload 1
	var nan_neg := Bits.f64((1 << 63) | 0x7FF8000000000000) # negative quiet NaN

	# 0 NIL, 1 BOOL
	add("nil", null)
	add("bool/true", true)
	add("bool/false", false)

	# 2 INT: 4 bytes when it fits in int32, else the 64-bit flag.
	add("int/0", 0)
	add("int/1", 1)
	add("int/-1", -1)
	add("int/12000", 12000)
	add("int/int32max", 2147483647)
	add("int/int32min", -2147483648)
	add("int/int32max+1", 2147483648)
	add("int/int32min-1", -2147483649)
	add("int/int64max", 9223372036854775807)
	add("int/int64min", -9223372036854775807 - 1)

	# 3 FLOAT: 4 bytes when float32 holds it exactly, else the 64-bit flag.
	add("float/0", 0.0)
	add("float/-0", nz)
	add("float/1", 1.0)
	add("float/0.15625", 0.15625)
	add("float/0.1", 0.1)
	add("float/1_3", 1.0 / 3.0)
	add("float/inf", INF)
	add("float/-inf", -INF)
	add("float/nan", NAN)
	add("float/nan-payload", nan_payload)
	add("float/nan-negative", nan_neg)
	add("float/f32-subnormal", Bits.f32(1))
	add("float/f32-max", Bits.f32(0x7F7FFFFF))
	add("float/f64-subnormal", Bits.f64(1))
	add("float/f64-max", Bits.f64(0x7FEFFFFFFFFFFFFF))
	add("float/1e300", 1e300)
	add("float/16777217", 16777217.0)

	# 4 STRING: lengths 0..5 cover every padding; multi-byte UTF-8.
	add("string/empty", "")
	add("string/a", "a")
	add("string/ab", "ab")
	add("string/abc", "abc")
	add("string/abcd", "abcd")
	add("string/abcde", "abcde")
	add("string/e-acute", "é")
	add("string/cjk", "日本語")
	add("string/emoji", String.chr(0x1F600) + "!")
	add("string/controls", "tab\tnewline\ncr\r")
	add("string/max-bmp", String.chr(0xFFFD) + String.chr(0x10FFFF))
	# What String.utf8() makes of characters UTF-8 cannot carry, and of a byte-order mark, which
	# the decoder drops when it comes first.
	add("string/nul-inside", "a" + String.chr(0) + "b")
	add("string/lone-surrogate", String.chr(0xD800) + "x")
	add("string/bom-first", String.chr(0xFEFF) + "x")
	add("string/bom-inside", "x" + String.chr(0xFEFF))
	add("stringname/bom-first", StringName(String.chr(0xFEFF) + "x"))
	add("pstr/nul-inside", PackedStringArray(["a" + String.chr(0) + "b"]))

	# 5..19 math types, 20 COLOR
	add("vector2", Vector2(1, 2))
	add("vector2/-0-nan", Vector2(nz, NAN))
	add("vector2/inf", Vector2(INF, -INF))
	add("vector2i", Vector2i(1, -1))
	add("vector2i/extremes", Vector2i(-2147483648, 2147483647))
	add("rect2", Rect2(1, 2, 3, 4))
	add("rect2/negative-size", Rect2(-1.5, 2.25, -3, 0.1))
	add("rect2i", Rect2i(1, 2, 3, 4))
	add("vector3", Vector3(1, 2, 3))
	add("vector3/f32-subnormal", Vector3(Bits.f32(1), Bits.f32(0x80000001), 0.1))
	add("vector3i", Vector3i(1, -2, 3))
	add("transform2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)))
	add("transform2d/identity", Transform2D.IDENTITY)
	add("vector4", Vector4(1, 2, 3, 4))
	add("vector4i", Vector4i(1, -2, 3, -4))
	add("plane", Plane(Vector3(1, 0, 0), 5))
	add("plane/raw", Plane(1, 2, 3, 4))
	add("quaternion", Quaternion(1, 2, 3, 4))
	add("quaternion/identity", Quaternion.IDENTITY)
	add("aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)))
	add("basis", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)))
	add("basis/identity", Basis.IDENTITY)
	add("transform3d", Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12)))
	add("projection", Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12), Vector4(13, 14, 15, 16)))
	add("projection/identity", Projection.IDENTITY)
	add("color", Color(1, 0, 0, 1))
	add("color/fractions", Color(0.1, 0.2, 0.3, 0.4))
	add("color/overbright", Color(2.5, -1, 1e10, 0))

	# 21 STRING_NAME
	add("stringname/empty", &"")
	add("stringname", &"name")
	add("stringname/cjk", StringName("日本"))

	# 22 NODE_PATH: the padding after each name is not written by the engine (masked in Go).
	add("nodepath/empty", NodePath(""))
	add("nodepath/dot", NodePath("."))
	add("nodepath/dotdot", NodePath(".."))
	add("nodepath/slash", NodePath("/"))
	add("nodepath/a", NodePath("a"))
	add("nodepath/a-b-c", NodePath("a/b:c"))
	add("nodepath/root", NodePath("/root"))
	add("nodepath/subname-only", NodePath(":x"))
	add("nodepath/sprite", NodePath("Path2D/PathFollow2D/Sprite:position:x"))
	add("nodepath/pads", NodePath("a/bb/ccc/dddd:eeeee:ffffff:ggggggg:hhhhhhhh"))
	add("nodepath/absolute-sub", NodePath("/root/Main:position:x"))
	add("nodepath/unique", NodePath("%Unique/child"))
	add("nodepath/unicode", NodePath("ноды/節点:ä"))

	# 23 RID
	add("rid/empty", RID())
	add("rid/13", rid_from_int64(13))
	add("rid/-1", rid_from_int64(-1))
	add("rid/large", rid_from_int64(0x0123456789ABCDEF))

	# 24 OBJECT: null and freed objects are written as NIL; without full objects an object is its
	# instance id (flag 1<<16); with them, its class and storage properties.
	var null_obj: Object = null
	add("object/null", null_obj)
	var freed := Object.new()
	freed.free()
	add("object/freed", freed)
	var rc := RefCounted.new()
	add("object/refcounted-id", rc)
	add("object/node-id", node("N1"))
	add("object/refcounted-full", rc, true)
	var obj := Object.new()
	add("object/object-full", obj, true)
	add("object/resource-full", Resource.new(), true)
	add("object/node-full", node("N2"), true)
	var e := Elem.new()
	e.count = -3
	e.child = Resource.new()
	add("object/scripted-full", e, true)
	add("object/scripted-id", e)
	add("object/in-array-full", [Elem.new(), null_obj, rc], true)

	# 25 CALLABLE: the header only.
	add("callable/empty", Callable())
	add("callable/method", Callable(holder, "main"))
	add("callable/lambda", func(): return 1)

	# 26 SIGNAL: name and the object's instance id.
	add("signal/empty", Signal())
	add("signal/node", Signal(holder, "ready"))
	add("signal/custom-name", Signal(rc, "changed_something"))

	# 27 DICTIONARY: insertion order is kept in the bytes.
	add("dict/empty", {})
	add("dict/a1", {"a": 1})
	add("dict/order", {"b": 1, "a": 2, "c": 3})
	add("dict/mixed-keys", {1: "int", 1.5: "float", "s": "string", &"sn": "stringname", Vector2i(1, 2): null, [1, 2]: {}, null: true})
	add("dict/nested", {"a": {"b": {"c": [1, {"d": PackedByteArray([1])}]}}})
	var dk := {}
	dk[NAN] = "nan"
	dk[nz] = "negative zero"
	add("dict/float-keys", dk)

	# Typed dictionaries (4.4+): key kind in bits 16-17, value kind in bits 18-19.
	var d_si: Dictionary[String, int] = {"a": 1, "b": 2}
	add("tdict/string-int", d_si)
	var d_ii: Dictionary[int, int] = {}
	add("tdict/int-int-empty", d_ii)
	var d_vi: Dictionary[Variant, int] = {"x": 1, 2: 3}
	add("tdict/variant-int", d_vi)
	var d_iv: Dictionary[int, Variant] = {1: "x", 2: [3]}
	add("tdict/int-variant", d_iv)
	var d_in: Dictionary[int, Node] = {1: null}
	add("tdict/int-node", d_in)
	add("tdict/int-node-objects", d_in, true)
	var d_ns := Dictionary({}, TYPE_OBJECT, &"Node", null, TYPE_STRING, &"", null)
	add("tdict/node-string-empty", d_ns)
	add("tdict/node-string-empty-objects", d_ns, true)
	var d_es := Dictionary({}, TYPE_OBJECT, &"RefCounted", Elem, TYPE_OBJECT, &"RefCounted", Elem)
	add("tdict/script-script", d_es)
	add("tdict/script-script-objects", d_es, true)
	var d_sn := Dictionary({}, TYPE_STRING_NAME, &"", null, TYPE_PACKED_BYTE_ARRAY, &"", null)
	d_sn[&"k"] = PackedByteArray([9])
	add("tdict/stringname-bytes", d_sn)
	var d_oo := Dictionary({}, TYPE_OBJECT, &"Object", null, TYPE_OBJECT, &"Object", null)
	add("tdict/object-object", d_oo)
	add("tdict/object-object-objects", d_oo, true)

	# 28 ARRAY, untyped and typed (4.3+: kind in bits 16-17 before the count).
	add("array/empty", [])
	add("array/1-a", [1, "a"])
	add("array/nested", [[[]], [1, [2, [3]]], {}])
	var a_int: Array[int] = [1, 2, 3]
	add("tarray/int", a_int)
	var a_int0: Array[int] = []
	add("tarray/int-empty", a_int0)
	var a_float: Array[float] = [1.5, 0.1, NAN]
	add("tarray/float", a_float)
	var a_str: Array[String] = ["x", "yz"]
	add("tarray/string", a_str)
	var a_sn: Array[StringName] = [&"a"]
	add("tarray/stringname", a_sn)
	var a_v3: Array[Vector3] = [Vector3(1, 2, 3)]
	add("tarray/vector3", a_v3)
	var a_arr: Array[Array] = [[1], []]
	add("tarray/array", a_arr)
	var a_dict: Array[Dictionary] = [{"k": "v"}]
	add("tarray/dictionary", a_dict)
	var a_np: Array[NodePath] = [NodePath("a:b")]
	add("tarray/nodepath", a_np)
	var a_pba: Array[PackedByteArray] = [PackedByteArray([1, 2])]
	add("tarray/packedbytearray", a_pba)
	var a_node: Array[Node] = []
	add("tarray/node-empty", a_node)
	add("tarray/node-empty-objects", a_node, true)
	var a_node1: Array[Node] = [node("N3"), null]
	add("tarray/node", a_node1)
	add("tarray/node-objects", a_node1, true)
	var a_rc: Array[RefCounted] = [rc]
	add("tarray/refcounted", a_rc)
	add("tarray/refcounted-objects", a_rc, true)
	var a_obj: Array[Object] = [null]
	add("tarray/object", a_obj)
	add("tarray/object-objects", a_obj, true)
	var a_elem := Array([Elem.new()], TYPE_OBJECT, &"RefCounted", Elem)
	add("tarray/script", a_elem)
	add("tarray/script-objects", a_elem, true)
	var a_elem0 := Array([], TYPE_OBJECT, &"RefCounted", Elem)
	add("tarray/script-empty-objects", a_elem0, true)

	# 29..38 packed arrays, empty and not; byte and string arrays cover every padding.
	add("pba/empty", PackedByteArray())
	add("pba/1", PackedByteArray([1]))
	add("pba/3", PackedByteArray([1, 2, 3]))
	add("pba/4", PackedByteArray([0, 255, 128, 7]))
	add("pba/5", PackedByteArray([1, 2, 3, 4, 5]))
	add("pi32/empty", PackedInt32Array())
	add("pi32", PackedInt32Array([1, -1, 2147483647, -2147483648]))
	add("pi64/empty", PackedInt64Array())
	add("pi64", PackedInt64Array([1, -1, 9223372036854775807, -9223372036854775807 - 1]))
	add("pf32/empty", PackedFloat32Array())
	add("pf32", PackedFloat32Array([1.0, nz, NAN, INF, 0.1, Bits.f32(1)]))
	add("pf64/empty", PackedFloat64Array())
	add("pf64", PackedFloat64Array([1.0, nz, nan_payload, 0.1, Bits.f64(1)]))
	add("pstr/empty", PackedStringArray())
	add("pstr/empty-string", PackedStringArray([""]))
	add("pstr/pads", PackedStringArray(["a", "ab", "abc", "abcd", "abcde"]))
	add("pstr/unicode", PackedStringArray(["é", "日本語", String.chr(0x1F600)]))
	add("pv2/empty", PackedVector2Array())
	add("pv2", PackedVector2Array([Vector2(1, 2), Vector2(nz, NAN)]))
	add("pv3/empty", PackedVector3Array())
	add("pv3", PackedVector3Array([Vector3(1, 2, 3), Vector3(-4, 0.5, INF)]))
	add("pcolor/empty", PackedColorArray())
	add("pcolor", PackedColorArray([Color(0, 0, 0, 1), Color(0.25, 0.5, 0.75, 1)]))
	add("pv4/empty", PackedVector4Array())
	add("pv4", PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(-1, nz, 0.1, 1e30)]))

	# Everything nested at once.
	add("nested/everything", [
		null, true, 7, 2.5, "s", Vector2(1, 2), Vector2i(3, 4), Rect2(), Rect2i(), Vector3(),
		Vector3i(), Transform2D(), Vector4(), Vector4i(), Plane(), Quaternion(), AABB(), Basis(),
		Transform3D(), Projection(), Color(), &"sn", NodePath("x:y"), RID(), null_obj,
		Callable(), Signal(), {}, [], PackedByteArray([1]), PackedInt32Array([2]),
		PackedInt64Array([3]), PackedFloat32Array([4]), PackedFloat64Array([5]),
		PackedStringArray(["6"]), PackedVector2Array([Vector2()]), PackedVector3Array([Vector3()]),
		PackedColorArray([Color()]), PackedVector4Array([Vector4()]),
	])
	return entries
