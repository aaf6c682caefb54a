# Decodes and re-encodes every record of res://in.bin with bytes2var/var2bytes and writes the
# results to res://out.bin.
#
# in.bin:  records of  u32 flags (bit 0: allow objects), u32 length, bytes
# out.bin: records of  u32 ok (1, or 0 if bytes2var failed), u32 length, var2bytes of the
#          decoded value (with full objects if allowed), u32 length, var2str of it (UTF-8)
# All integers little-endian. Before decoding record i the script prints "@@case i" on stderr
# and on stdout, so that the engine's messages can be attributed to records: its error codes
# (ERR_*) go to stderr, but String::parse_utf8 prints its complaints ("Unicode error: invalid
# skip") on stdout. It prints "@@end" on both and "END n" on stdout when done.
extends "res://lib.gd"

func _init():
	var f = File.new()
	if f.open("res://in.bin", File.READ) != OK:
		printerr("no in.bin")
		quit(2)
		return
	var out = File.new()
	if out.open("res://out.bin", File.WRITE) != OK:
		printerr("cannot write out.bin")
		quit(2)
		return
	var n = 0
	var end = f.get_len()
	while f.get_position() < end:
		var flags = f.get_32()
		var size = f.get_32()
		var b = PoolByteArray()
		if size > 0:
			b = f.get_buffer(size)
		var objects = (flags & 1) != 0
		printerr("@@case ", n)
		print("@@case ", n)
		var r = decode(b, objects)
		if r[0]:
			var e = var2bytes(r[1], objects)
			var t = text(r[1]).to_utf8()
			out.store_32(1)
			out.store_32(e.size())
			out.store_buffer(e)
			out.store_32(t.size())
			if t.size() > 0:
				out.store_buffer(t)
		else:
			out.store_32(0)
			out.store_32(0)
			out.store_32(0)
		n += 1
	out.close()
	printerr("@@end")
	print("@@end")
	print("END ", n)
	quit()
