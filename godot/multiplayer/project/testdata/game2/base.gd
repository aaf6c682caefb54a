extends Node
# A base script: its @rpc methods are inherited.

@rpc("any_peer")
func zeta() -> void:
	pass

@rpc
func alpha(x) -> void:
	pass

func not_an_rpc() -> void:
	pass

# The engine takes @rpc on a static func too, and counts it.
@rpc("any_peer")
static func st_rpc() -> void:
	pass
