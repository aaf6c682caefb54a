# The Godot 4 differential test's script (godot/engine4_test.go runs it in the real engine with
# internal/harness/godot4). It prints one tab-separated record per line:
#
#   C  label  hex  rt  var_to_str      hand corpus (corpus.gd); rt is the engine's own
#                                      decode_var + re-encode of hex
#   R  i  objects  hex  rt  var_to_str random values generated here from the seed in in/seed.txt
#   B  i  size  hex                    values from in/ours.bin (encoded by the Go codec): the
#                                      engine's decode_var_size, and its re-encoding ("-" when
#                                      it rejects the input)
#   H  i  objects  size  hex  type  var_to_str
#                                      the same for the hostile inputs of in/hostile.bin
#   I  key  value                      observations (precision, encoder limits)
#   N  section  count                  totals, printed last; the Go test compares them with the
#                                      records it received, because this release build does not
#                                      report GDScript runtime errors (a failing record would just
#                                      go missing)
#
# Values are encoded with var_to_bytes, or var_to_bytes_with_objects where objects is true (and
# decoded with allow_objects to match).
extends Node

const Corpus = preload("res://corpus.gd")
const Random = preload("res://random.gd")


func enc(v, objects: bool) -> PackedByteArray:
	return var_to_bytes_with_objects(v) if objects else var_to_bytes(v)


func text(v) -> String:
	return var_to_str(v).c_escape().replace("\t", "\\t")


# The engine's own round trip of b: decode, then encode again.
func roundtrip(b: PackedByteArray, objects: bool) -> String:
	if b.decode_var_size(0, objects) <= 0:
		return "-"
	return enc(b.decode_var(0, objects), objects).hex_encode()


# Records of the input files: u32 objects, u32 length, the bytes, zero padding to 4.
func read_records(path: String) -> Array:
	var out := []
	var f := FileAccess.open(path, FileAccess.READ)
	if f == null:
		printerr("cannot open ", path)
		return out
	while f.get_position() < f.get_length():
		var objects := f.get_32() != 0
		var n := f.get_32()
		var b := f.get_buffer(n)
		f.get_buffer((4 - n % 4) % 4)
		out.append([objects, b])
	return out


func main() -> void:
	print("I\tdouble\t", OS.has_feature("double"))
	print("I\tversion\t", Engine.get_version_info().string)
	print("I\tms-start\t", Time.get_ticks_msec())

	var corpus := Corpus.new()
	var entries := corpus.build(self)
	for e in entries:
		var b := enc(e[1], e[2])
		print("C\t", e[0], "\t", b.hex_encode(), "\t", roundtrip(b, e[2]), "\t", text(e[1]))
	corpus.free_nodes()
	var n_corpus := entries.size()
	print("I\tms-corpus\t", Time.get_ticks_msec())

	var params := FileAccess.get_file_as_string("res://in/seed.txt").split(" ")
	var rnd := Random.new(int(params[0]))
	var n_random := int(params[1])
	for i in n_random:
		var objects := rnd.rng.randf() < 0.15
		var v = rnd.value(0)
		var b := enc(v, objects)
		print("R\t", i, "\t", int(objects), "\t", b.hex_encode(), "\t", roundtrip(b, objects), "\t", text(v))

	print("I\tms-random\t", Time.get_ticks_msec())
	var ours := read_records("res://in/ours.bin")
	for i in ours.size():
		var b: PackedByteArray = ours[i][1]
		var objects: bool = ours[i][0]
		var size := b.decode_var_size(0, objects)
		var hex := "-"
		if size > 0:
			hex = enc(b.decode_var(0, objects), objects).hex_encode()
		print("B\t", i, "\t", size, "\t", hex)

	print("I\tms-ours\t", Time.get_ticks_msec())
	var hostile := read_records("res://in/hostile.bin")
	for i in hostile.size():
		var b: PackedByteArray = hostile[i][1]
		var objects: bool = hostile[i][0]
		var size := b.decode_var_size(0, objects)
		if size > 0:
			var v = b.decode_var(0, objects)
			print("H\t", i, "\t", int(objects), "\t", size, "\t", enc(v, objects).hex_encode(), "\t", type_string(typeof(v)), "\t", text(v))
		else:
			print("H\t", i, "\t", int(objects), "\t", size, "\t-\t-\t-")

	print("I\tms-hostile\t", Time.get_ticks_msec())
	# The encoder's nesting limit: Arrays nested d deep (the innermost one empty).
	for d in [1024, 1025, 1026]:
		var top := []
		var cur := top
		for k in d - 1:
			var next := []
			cur.append(next)
			cur = next
		print("I\tencode-depth-", d, "\t", var_to_bytes(top).size())

	print("I\tms-depth\t", Time.get_ticks_msec())
	print("N\tC\t", n_corpus)
	print("N\tR\t", n_random)
	print("N\tB\t", ours.size())
	print("N\tH\t", hostile.size())
