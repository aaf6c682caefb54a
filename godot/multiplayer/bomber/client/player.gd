extends Node2D
# A player, named by the peer id of its owner. The server owns its position and hp; the owner's
# client owns its input.

var hp := 0
var label := ""

func _enter_tree() -> void:
	# Before the synchronizers enter the tree, so that the spawn assigns the server's net ids.
	$Input/InputSync.set_multiplayer_authority(str(name).to_int())

var last_exploded_by := 0

@rpc("authority", "call_local")
func exploded(by_peer: int) -> void:
	last_exploded_by = by_peer
