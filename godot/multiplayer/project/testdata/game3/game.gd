extends Node
# The main scene: players (each with its own item spawner), drops made by a spawn function,
# badges only their owner sees, and a clock the server keeps.

const DROP = preload("res://drop.tscn")

func _ready() -> void:
	$DropSpawner.spawn_function = _spawn_drop

# A drop's argument is [name, position].
func _spawn_drop(data: Variant) -> Node:
	var d := DROP.instantiate()
	d.name = data[0]
	d.position = data[1]
	return d

@rpc("any_peer", "reliable")
func ready_to_play(who: String) -> void:
	pass
