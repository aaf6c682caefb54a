extends Node
# The world of the bomber example. The server (Go) spawns a player per peer, named by its peer
# id, and bombs; the clients only send their input and call the server's RPCs.

signal said(text: String)

@rpc("any_peer", "reliable")
func hello(player_name: String) -> void:
	pass

@rpc("authority", "call_remote", "reliable")
func announce(text: String) -> void:
	said.emit(text)
