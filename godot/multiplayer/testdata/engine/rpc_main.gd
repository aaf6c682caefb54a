extends Node
# The node "Main" of every scenario. Its @rpc table (sorted): done, echo, finish, go_on, loc,
# only_server, relay_me, v0, v1, v2, vmany — the Go tests declare the same names.

var tag := ""
var out: Callable
var flags := {}
var score := 7          # replicated by the sync scenario (ALWAYS)
var label := "start"    # replicated by the sync scenario (ON_CHANGE)

func _log(s: String) -> void:
	out.call(tag + " " + s)

@rpc("any_peer")
func done() -> void:
	pass

@rpc
func echo(i, x) -> void:
	_log("echo %d %d %s" % [i, typeof(x), var_to_bytes(x).hex_encode()])

@rpc
func finish() -> void:
	_log("finish from %d" % multiplayer.get_remote_sender_id())
	flags["finish"] = true

@rpc
func go_on() -> void:
	flags["go_on"] = true

@rpc("any_peer", "call_local")
func loc(x) -> void:
	_log("loc %s from %d" % [str(x), multiplayer.get_remote_sender_id()])

@rpc("authority")
func only_server() -> void:
	_log("only_server ran")

@rpc("any_peer")
func relay_me(x) -> void:
	_log("relay_me %s from %d" % [str(x), multiplayer.get_remote_sender_id()])
	flags["relay_me " + str(x)] = true
	if x == "first":
		relay_me.rpc_id(multiplayer.get_remote_sender_id(), "ack")

@rpc("any_peer")
func v0() -> void:
	_log("v0")

@rpc("any_peer")
func v1(x) -> void:
	pass

@rpc("any_peer")
func v2(a, b) -> void:
	pass

@rpc("any_peer")
func vmany(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) -> void:
	pass
