# Reads records (u32 length, the bytes, padding) from res://in/values.bin. For each: the engine
# decodes the bytes (bytes_to_var) and prints what it writes back (var_to_bytes, hex) and its
# var_to_str text, with new lines escaped. Used by godot/real_engine4_test.go.
extends RefCounted


func main() -> void:
	print("I\tdouble\t", OS.has_feature("double"))
	var f := FileAccess.open("res://in/values.bin", FileAccess.READ)
	if f == null:
		printerr("cannot open res://in/values.bin")
		return
	var n := 0
	while f.get_position() < f.get_length():
		var size := f.get_32()
		var b := f.get_buffer(size)
		f.get_buffer((4 - size % 4) % 4)
		var v = bytes_to_var(b)
		print("R\t", n, "\t", var_to_bytes(v).hex_encode(), "\t", var_to_str(v).replace("\\", "\\\\").replace("\n", "\\n"))
		n += 1
	print("N\t", n)
