extends Node
# The node "Own", whose multiplayer authority the client sets to itself. Table: anyone, owned.

var tag := ""
var out: Callable

@rpc("any_peer")
func anyone() -> void:
	out.call(tag + " anyone from %d" % multiplayer.get_remote_sender_id())

@rpc("authority")
func owned() -> void:
	out.call(tag + " owned ran")
