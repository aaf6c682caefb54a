extends Node
# The node "Own", whose multiplayer authority the client sets to itself. RPC table: cfg (from
# rpc_config, id 0x8000), then the @rpc methods anyone (0), owned (1).

var tag := ""
var out: Callable

func _ready() -> void:
	rpc_config("cfg", {"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER})

func cfg(x) -> void:
	out.call(tag + " cfg %s" % str(x))

@rpc("any_peer")
func anyone() -> void:
	out.call(tag + " anyone from %d" % multiplayer.get_remote_sender_id())

@rpc("authority")
func owned() -> void:
	out.call(tag + " owned ran")
