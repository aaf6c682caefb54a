# A Godot 3 client for the Go server of peer_test.go. It connects to the server on loopback
# (res://config.json names the port and the transport), sends requests with put_var, reads the
# answers with get_var and checks each one against the value it expects, byte for byte
# (var2bytes), printing "ok NAME" or "FAIL NAME: ..." per check and "DONE checks failures" at the
# end. Every wait is bounded, so that a silent server makes the script fail instead of hanging.
extends SceneTree

const WAIT_MS = 10000

var checks = 0
var failures = 0
var mode = ""
var tcp = null
var pps = null
var udp = null

func _init():
	var f = File.new()
	if f.open("res://config.json", File.READ) != OK:
		printerr("cannot read config.json")
		quit()
		return
	var cfg = parse_json(f.get_as_text())
	f.close()
	mode = cfg["mode"]
	var port = int(cfg["port"])
	if open(port):
		run()
	print("DONE %d %d" % [checks, failures])
	quit()

func fail(name, msg):
	checks += 1
	failures += 1
	print("FAIL %s: %s" % [name, msg])

func check(name, got, want):
	checks += 1
	var g = var2bytes(got).hex_encode()
	var w = var2bytes(want).hex_encode()
	if typeof(got) != typeof(want) or g != w:
		failures += 1
		print("FAIL %s: got %s %s, want %s %s" % [name, var2str(got), g, var2str(want), w])
	else:
		print("ok %s" % name)

func open(port):
	if mode == "udp":
		udp = PacketPeerUDP.new()
		if udp.set_dest_address("127.0.0.1", port) != OK:
			fail("open", "set_dest_address failed")
			return false
		return true
	tcp = StreamPeerTCP.new()
	tcp.big_endian = mode == "stream_be"
	if tcp.connect_to_host("127.0.0.1", port) != OK:
		fail("open", "connect_to_host failed")
		return false
	var deadline = OS.get_ticks_msec() + WAIT_MS
	while tcp.get_status() == StreamPeerTCP.STATUS_CONNECTING and OS.get_ticks_msec() < deadline:
		OS.delay_msec(2)
	if tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		fail("open", "not connected, status %d" % tcp.get_status())
		return false
	# StreamPeer.put_var writes the length and the Variant with two send() calls; with Nagle's
	# algorithm on, the second waits for the server's delayed ACK (about 40 ms on Linux) every
	# time. set_no_delay works only once connected.
	tcp.set_no_delay(true)
	if mode == "pps":
		pps = PacketPeerStream.new()
		pps.stream_peer = tcp
	return true

func send(msg):
	var err = OK
	if pps != null:
		err = pps.put_var(msg)
	elif tcp != null:
		tcp.put_var(msg) # StreamPeer.put_var returns nothing in Godot 3
	else:
		err = udp.put_var(msg)
	if err != OK:
		fail("send", "put_var returned %d" % err)

# receive waits (bounded) until a message has started to arrive, then reads it with get_var.
# Returns [true, value], or [false, null] after a timeout.
func receive(name):
	var deadline = OS.get_ticks_msec() + WAIT_MS
	while OS.get_ticks_msec() < deadline:
		if pps != null:
			if pps.get_available_packet_count() > 0:
				return [true, pps.get_var()]
		elif tcp != null:
			if tcp.get_available_bytes() > 0:
				return [true, tcp.get_var()]
			if tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
				break
		elif udp.get_available_packet_count() > 0:
			return [true, udp.get_var()]
		OS.delay_msec(2)
	fail(name, "no answer")
	return [false, null]

func request(op, seq, body):
	return {"op": op, "seq": seq, "body": body}

func expect(name, want):
	var r = receive(name)
	if r[0]:
		check(name, r[1], want)

# The values that must survive Go's decode into interface{} and re-encode unchanged.
func echo_values():
	var big = 1 << 40
	var d = {}
	d[3] = "three"
	d["k"] = Vector2(1, -2)
	d[1.5] = [null, true]
	d[Vector2(0, 1)] = "vector key"
	return [
		null, true, false, 0, -1, 2147483647, -2147483648, big, -big, 0.5, 0.1, -0.0, 1e300,
		"", "ab", "héllo ✓", Vector2(1.5, -2), Rect2(1, 2, 3, 4), Vector3(1, 2, 3),
		Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)), Plane(0, 1, 0, 2),
		Quat(0, 0, 0, 1), AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)),
		Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
		Transform(Basis(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)), Vector3(7, 8, 9)),
		Color(0.25, 0.5, 0.75, 1), PoolByteArray([1, 2, 3]), PoolIntArray([1, -2, 2147483647]),
		PoolRealArray([0.5, -1.25]), PoolStringArray(["", "a", "bc"]),
		PoolVector2Array([Vector2(1, 2)]), PoolVector3Array([Vector3(1, 2, 3), Vector3(4, 5, 6)]),
		PoolColorArray([Color(1, 0, 0, 1)]), [1, [2, [3, "deep"]], {"x": []}], d,
	]

func player():
	return {
		"name": "ada", "hp": 99, "pos": Vector3(1, 2, 3), "tags": PoolStringArray(["mage", "elf"]),
		"stats": {"str": 3, "int": 18}, "id": 7, "ignored": "by Go",
		"inventory": [{"item": "wand", "qty": 1}, {"item": "potion", "qty": 3}], "guild": null,
	}

# The Dictionary the Go server builds from its Player struct: embedded fields first (id), then the
# fields in declaration order, keys from the tags, the empty "note" omitted.
func player_reply():
	return {
		"id": 7 << 33, "name": "ADA", "hp": 100, "pos": Vector3(2, 4, 6),
		"tags": PoolStringArray(["mage", "elf", "go"]), "stats": {"str": 4, "int": 18},
		"inventory": [{"item": "wand", "qty": 1}, {"item": "potion", "qty": 3}, {"item": "gopher", "qty": 1}],
		"guild": "gophers",
	}

func run():
	var seq = 0
	# A struct with tags, embedded fields, omitempty and a pointer.
	seq += 1
	send(request("player", seq, player()))
	expect("player", {"seq": seq, "result": player_reply()})

	# Values of every type through Go's interface{} and back.
	var values = echo_values()
	for i in range(values.size()):
		seq += 1
		send(request("echo", seq, values[i]))
		expect("echo %d %s" % [i, var2str(values[i]).replace("\n", " ")], {"seq": seq, "result": values[i]})

	# A PoolIntArray into a Go []int64; the sum needs the 64-bit int form.
	seq += 1
	send(request("sum", seq, PoolIntArray([2147483647, 2147483645])))
	expect("sum", {"seq": seq, "result": {"sum": 4294967292, "count": 2, "mean": 2147483646.0}})

	# Integer keys into a Go map[int]string: the Go encoder sorts the keys.
	seq += 1
	var m = {}
	m[3] = "c"
	m[1] = "a"
	m[2] = "b"
	send(request("map", seq, m))
	var sorted = {}
	sorted[1] = "a"
	sorted[2] = "b"
	sorted[3] = "c"
	expect("map", {"seq": seq, "result": sorted})

	# A value Go cannot store in its struct: the error comes back as a message.
	seq += 1
	send(request("player", seq, {"name": 5}))
	expect("type error", {"seq": seq, "error": "godot: decoding int at byte 20 (at .Name): type mismatch: cannot store int in Go value of type string"})

	if mode == "udp":
		return

	# Several answers in one TCP segment.
	seq += 1
	send(request("batch", seq, 3))
	for i in range(3):
		expect("batch %d" % i, {"seq": seq, "result": i})

	# One answer written in three pieces, 50 ms apart (inside the length and inside the Variant).
	seq += 1
	send(request("split", seq, PoolVector3Array([Vector3(1, 2, 3), Vector3(4, 5, 6)])))
	expect("split answer", {"seq": seq, "result": PoolVector3Array([Vector3(1, 2, 3), Vector3(4, 5, 6)])})

	if mode == "pps":
		return

	# Several requests in one segment: framed in a StreamPeerBuffer, sent with one put_data.
	var spb = StreamPeerBuffer.new()
	spb.big_endian = tcp.big_endian
	for i in range(3):
		spb.put_var(request("echo", 100 + i, "multi %d" % i))
	tcp.put_data(spb.data_array)
	for i in range(3):
		expect("multi %d" % i, {"seq": 100 + i, "result": "multi %d" % i})

	# One request sent in three pieces, 50 ms apart.
	spb = StreamPeerBuffer.new()
	spb.big_endian = tcp.big_endian
	spb.put_var(request("echo", 200, PoolStringArray(["split", "request"])))
	var bytes = spb.data_array
	tcp.put_data(bytes.subarray(0, 1))
	OS.delay_msec(50)
	tcp.put_data(bytes.subarray(2, 9))
	OS.delay_msec(50)
	tcp.put_data(bytes.subarray(10, bytes.size() - 1))
	expect("split request", {"seq": 200, "result": PoolStringArray(["split", "request"])})
