extends "res://base.gd"
# Inherits zeta and alpha; adds methods with every form of the annotation. # @rpc in a comment

@rpc(
	"any_peer",
	"call_remote", "unreliable_ordered",
	2
)
func Beta(a, b) -> void:
	pass

@rpc("call_local") func _under() -> void:
	pass

@rpc("authority", "call_remote", "reliable", 0)
@warning_ignore("unused_parameter")
func inline_one(p) -> void:
	var s := "@rpc not here"

# A zeta override keeps one entry.
@rpc("any_peer")
func zeta() -> void:
	pass

func _ready() -> void:
	rpc_config("cfg_method", {"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER})

func cfg_method() -> void:
	pass

class Inner:
	@rpc
	func inner_rpc() -> void:
		pass
