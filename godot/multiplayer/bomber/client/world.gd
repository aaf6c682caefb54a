extends Node
# The world of the bomber example. The server (Go) spawns a player per peer, named by its peer
# id, and bombs; the clients only send their input and call the server's RPCs.
#
# Run as the main scene (the editor's Play, or `godot --path . -- --url=ws://HOST:PORT`), it
# connects to the server itself (ws://127.0.0.1:8910 unless --url says otherwise) and sends the
# arrow keys as motion and Enter/Space as bombing.

signal said(text: String)

func _ready() -> void:
	# Effects are spawned by the server with an argument: [kind, position, number].
	$FxSpawner.spawn_function = _spawn_fx
	if get_tree().current_scene == self:
		var url := "ws://127.0.0.1:8910"
		for arg in OS.get_cmdline_user_args():
			if arg.begins_with("--url="):
				url = arg.trim_prefix("--url=")
		var peer := WebSocketMultiplayerPeer.new()
		if peer.create_client(url) == OK:
			multiplayer.multiplayer_peer = peer
		said.connect(func(text): print(text))

func _process(_delta: float) -> void:
	if get_tree().current_scene != self or multiplayer.multiplayer_peer is OfflineMultiplayerPeer:
		return
	var me := get_node_or_null("Players/%d" % multiplayer.get_unique_id())
	if me == null:
		return
	var input = me.get_node("Input")
	input.motion = Input.get_vector("ui_left", "ui_right", "ui_up", "ui_down")
	input.bombing = Input.is_action_pressed("ui_accept")

func _spawn_fx(data: Variant) -> Node:
	var fx := Node2D.new()
	fx.name = "Fx%d" % data[2]
	fx.position = data[1]
	fx.set_meta("kind", data[0])
	return fx

@rpc("any_peer", "reliable")
func hello(player_name: String) -> void:
	pass

@rpc("authority", "call_remote", "reliable")
func announce(text: String) -> void:
	said.emit(text)
