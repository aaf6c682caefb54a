extends Node
# A beacon only the peer it is shown to sees: a filter the loader cannot read (it depends on a
# variable that changes), which the Go server supplies. The engine runs it every frame.

var shown_to := 0
var label := ""

func _enter_tree() -> void:
	$BeaconSync.add_visibility_filter(func(peer: int) -> bool: return peer == shown_to)
