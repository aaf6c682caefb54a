extends Node2D
# A player, named by its owner's peer id. Its input is the owner's; its items are spawned by
# its own spawner.

var hp := 10

# Set by the server, synchronized on spawn: the peer that aims.
@export var player := 1:
	set(id):
		player = id
		$Aim.set_multiplayer_authority(id)

func _enter_tree() -> void:
	$Input.set_multiplayer_authority(int(str(name)))

@rpc("authority", "call_remote", "reliable")
func picked(item: String) -> void:
	pass
