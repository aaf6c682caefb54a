extends Node2D

var from_player := 0

func _draw() -> void:
	draw_circle(Vector2.ZERO, 8, Color.ORANGE_RED)
