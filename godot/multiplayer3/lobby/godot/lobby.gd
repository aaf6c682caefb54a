extends Node
# A lobby/chat client (Godot 3) for the gamewire Go server:
#   gamewire godot mp serve --godot 3 --transport enet --addr 127.0.0.1:9999
# The scene's root node must be named "Lobby" (path /root/Lobby), as the server declares it.

signal line(text)

export var address = "127.0.0.1"
export var port = 9999
export var player_name = "player"
# The server's --compression: 0 none, 1 range coder, 2 FastLZ, 3 zlib, 4 zstd.
export var compression_mode = 0

func _ready():
	var peer = NetworkedMultiplayerENet.new()
	peer.compression_mode = compression_mode
	var err = peer.create_client(address, port)
	if err != OK:
		print("lobby: cannot connect: ", err)
		return
	get_tree().network_peer = peer
	get_tree().connect("connected_to_server", self, "_connected")
	get_tree().connect("connection_failed", self, "_failed")
	get_tree().connect("server_disconnected", self, "_gone")

func _connected():
	rpc_id(1, "join", player_name)

func _failed():
	say_line("lobby: connection failed")

func _gone():
	say_line("lobby: server gone")

func say_line(text):
	print(text)
	emit_signal("line", text)

func chat(text):
	rpc_id(1, "say", text)

# Called on the server.
remote func join(_player_name):
	pass

remote func say(_text):
	pass

# Called by the server (puppet: only the server, the master of this node, may call them).
puppet func welcome(your_id, players):
	say_line("lobby: welcome %d, players %s" % [your_id, players])
	chat("hello from " + player_name)

puppet func joined(id, who):
	say_line("lobby: %s joined as %d" % [who, id])

puppet func left(id):
	say_line("lobby: %d left" % id)

puppet func said(id, who, text):
	say_line("lobby: %s (%d) says %s" % [who, id, text])
