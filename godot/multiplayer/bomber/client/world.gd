extends Node
# The world of the bomber example. The server (Go) spawns a player per peer, named by its peer
# id, and bombs; the clients only send their input and call the server's RPCs.

signal said(text: String)

func _ready() -> void:
	# Effects are spawned by the server with an argument: [kind, position, number].
	$FxSpawner.spawn_function = _spawn_fx

func _spawn_fx(data: Variant) -> Node:
	var fx := Node2D.new()
	fx.name = "Fx%d" % data[2]
	fx.position = data[1]
	fx.set_meta("kind", data[0])
	return fx

@rpc("any_peer", "reliable")
func hello(player_name: String) -> void:
	pass

@rpc("authority", "call_remote", "reliable")
func announce(text: String) -> void:
	said.emit(text)
