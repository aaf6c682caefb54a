# Times Godot 3.2.3's own var2bytes and bytes2var (C++ encode_variant/decode_variant, called from
# GDScript) on the workloads of gamewire's Go benchmarks (godot/bench_test.go, the same values:
# BenchmarkGodot3PoolVector3Array*, …PoolByteArray*, …DictArray*, …SmallValue*). Run it with run.sh.
#
# Method (see /work/shared/spec/godot3-engine.md, "Performance of Godot's own encoder and
# decoder"):
# - Every timed call sits in a function of its own. GDScript keeps a call's result in a stack
#   slot until the slot is reused, so in a loop the next call would pay for freeing the previous
#   result; returning from the function frees it outside the timed region.
# - One untimed warm-up call ("cold": fresh memory is faulted in), then the median of 5 runs.
# - Small values (d) are timed as a loop of N calls in one function; the same loop calling
#   typeof() instead is timed too, and its per-iteration cost is subtracted on the "net" figure.
#
# Workload (c) as the Go benchmark has it (each Dictionary's "tags" an Array of 2 Strings) does
# not touch the Pool*Array allocation limit of 3.2.3 (fact 15), which a PoolStringArray per
# Dictionary would exceed at 100 000 Dictionaries.
extends SceneTree

const RUNS = 5
const SMALL_N = 100000

var rows = []

func _init():
	print("Godot ", Engine.get_version_info().string, ", ", OS.get_processor_count(), " CPUs; median of ", RUNS, " runs after a warm-up")
	bench_big("(a) PoolVector3Array 1e6", make_vectors(), "vec")
	bench_big("(b) PoolByteArray 16 MiB", make_bytes(), "")
	bench_big("(c) Array of 1e5 Dictionaries", make_dicts(), "dict")
	bench_small("(d) Vector3", Vector3(1, 2, 3))
	bench_small("(d) int", 123456)
	bench_small("(d) String \"hello\"", "hello")
	print_table()
	quit()

func make_vectors():
	var p = PoolVector3Array()
	p.resize(1000000)
	for i in range(1000000):
		p[i] = Vector3(i, i * 0.5, -i)
	return p

func make_bytes():
	var p = PoolByteArray()
	p.resize(16 << 20)
	for i in range(p.size()):
		p[i] = i * 7 & 0xff
	return p

func make_dicts():
	var a = []
	a.resize(100000)
	for i in range(100000):
		a[i] = {"id": i, "name": "player%d" % i, "pos": Vector3(i, 1.5, -2), "tags": ["red", "team"]}
	return a

# Timed calls, one a function.
func time_encode(v):
	var t = OS.get_ticks_usec()
	var b = var2bytes(v)
	return [OS.get_ticks_usec() - t, b.size()]

func time_decode(b):
	var t = OS.get_ticks_usec()
	var v = bytes2var(b)
	return OS.get_ticks_usec() - t

func median(xs):
	xs.sort()
	return xs[xs.size() / 2]

func bench_big(name, v, unit):
	var cold = time_encode(v)
	var size = cold[1]
	var enc = []
	for i in range(RUNS):
		enc.append(time_encode(v)[0])
	var b = var2bytes(v)
	var cold_dec = time_decode(b)
	var dec = []
	for i in range(RUNS):
		dec.append(time_decode(b))
	var count = 0
	if unit == "vec" or unit == "dict":
		count = v.size()
	rows.append([name, "var2bytes", median(enc), size, count, unit, cold[0]])
	rows.append([name, "bytes2var", median(dec), size, count, unit, cold_dec])

func loop_encode(v):
	var t = OS.get_ticks_usec()
	for i in range(SMALL_N):
		var b = var2bytes(v)
	return OS.get_ticks_usec() - t

func loop_decode(b):
	var t = OS.get_ticks_usec()
	for i in range(SMALL_N):
		var v = bytes2var(b)
	return OS.get_ticks_usec() - t

func loop_overhead(v):
	var t = OS.get_ticks_usec()
	for i in range(SMALL_N):
		var x = typeof(v)
	return OS.get_ticks_usec() - t

func bench_small(name, v):
	var b = var2bytes(v)
	loop_encode(v)
	loop_decode(b)
	loop_overhead(v)
	var enc = []
	var dec = []
	var over = []
	for i in range(RUNS):
		enc.append(loop_encode(v))
		dec.append(loop_decode(b))
		over.append(loop_overhead(v))
	var o = median(over) * 1000.0 / SMALL_N
	rows.append([name, "var2bytes", median(enc) * 1000.0 / SMALL_N, b.size(), -1, "", o])
	rows.append([name, "bytes2var", median(dec) * 1000.0 / SMALL_N, b.size(), -1, "", o])

func pad(s, n):
	s = str(s)
	while s.length() < n:
		s += " "
	return s

func lpad(s, n):
	s = str(s)
	while s.length() < n:
		s = " " + s
	return s

func print_table():
	print("")
	print(pad("workload", 34), pad("call", 11), lpad("median", 13), lpad("throughput", 14), lpad("items/s", 17), "   notes")
	for r in rows:
		var name = r[0]
		var op = r[1]
		if r[4] == -1:
			# Small value: ns per call, and net of the loop's own cost.
			var ns = r[2]
			print(pad(name, 34), pad(op, 11), lpad("%.0f ns/call" % ns, 13), lpad("", 14), lpad("", 17),
				"   %.0f ns/call net of %.0f ns loop overhead; %d bytes" % [ns - r[6], r[6], r[3]])
			continue
		var us = float(max(r[2], 1))
		var mbs = r[3] / us
		var items = ""
		if r[4] > 0:
			var per_s = r[4] / us * 1e6
			if per_s >= 1e6:
				items = "%.1f M %s/s" % [per_s / 1e6, r[5]]
			else:
				items = "%.0f k %s/s" % [per_s / 1e3, r[5]]
		var med = "%.2f ms" % (us / 1000.0)
		print(pad(name, 34), pad(op, 11), lpad(med, 13), lpad("%.0f MB/s" % mbs, 14), lpad(items, 17),
			"   %d bytes; cold call %.2f ms" % [r[3], r[6] / 1000.0])
