extends Node
# A lobby/chat client for the gamewire Go server (gamewire godot mp serve).
# The scene's root node must be named "Lobby" (path /root/Lobby), as the server declares it.

@export var url := "ws://127.0.0.1:8910"
@export var player_name := "player"

func _ready() -> void:
	var peer := WebSocketMultiplayerPeer.new()
	peer.create_client(url)
	multiplayer.multiplayer_peer = peer
	multiplayer.connected_to_server.connect(func(): join.rpc_id(1, player_name))
	multiplayer.server_disconnected.connect(func(): print("lobby: server gone"))

func chat(text: String) -> void:
	say.rpc_id(1, text)

# Called on the server.
@rpc("any_peer")
func join(_player_name: String) -> void:
	pass

@rpc("any_peer")
func say(_text: String) -> void:
	pass

# Called by the server.
@rpc
func welcome(your_id: int, players: Dictionary) -> void:
	print("lobby: welcome %d, players %s" % [your_id, players])
	chat("hello from " + player_name)

@rpc
func joined(id: int, who: String) -> void:
	print("lobby: %s joined as %d" % [who, id])

@rpc
func left(id: int) -> void:
	print("lobby: %d left" % id)

@rpc
func said(id: int, who: String, text: String) -> void:
	print("lobby: %s (%d) says %s" % [who, id, text])
