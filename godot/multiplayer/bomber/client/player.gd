extends Node2D
# A player, named by the peer id of its owner. The server owns its position and hp; the owner's
# client owns its input.

var hp := 0
var label := ""
var last_exploded_by := 0

func _draw() -> void:
	draw_circle(Vector2.ZERO, 16, Color.WHITE if hp > 0 else Color.DIM_GRAY)
	draw_string(ThemeDB.fallback_font, Vector2(-24, -24), "%s %d" % [label, hp])

func _process(_delta: float) -> void:
	queue_redraw()

func _enter_tree() -> void:
	# Before the synchronizers enter the tree, so that the spawn assigns the server's net ids.
	$Input/InputSync.set_multiplayer_authority(str(name).to_int())

@rpc("authority", "call_local")
func exploded(by_peer: int) -> void:
	last_exploded_by = by_peer
