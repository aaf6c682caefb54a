extends Node
# A badge, named by its owner's peer id: only its owner sees it.

var text := ""

func _enter_tree() -> void:
	$BadgeSync.add_visibility_filter(func(peer: int) -> bool: return peer == str(name).to_int())
