extends MultiplayerPeerExtension
# One end of an in-process connection between two SceneMultiplayers, so that a real Godot
# server's packets can be recorded: every packet this end puts is logged with its target.

var id := 0
var others: Array = []  # the ends this one is connected to (a client: the server)
var inbox: Array = []   # [from, bytes]
var target := 0
var announced := {}     # the ids announced with peer_connected
var sent: Array = []    # [target, bytes], everything this end put

func _get_unique_id() -> int:
	return id

func _is_server() -> bool:
	return id == 1

func _is_server_relay_supported() -> bool:
	return true

func _get_connection_status() -> MultiplayerPeer.ConnectionStatus:
	return MultiplayerPeer.CONNECTION_CONNECTED

func _poll() -> void:
	for o in others:
		if not announced.has(o.id):
			announced[o.id] = true
			peer_connected.emit(o.id)

func _set_target_peer(p: int) -> void:
	target = p

func _put_packet_script(b: PackedByteArray) -> Error:
	sent.append([target, b])
	for o in others:
		if target == 0 or target == o.id or (target < 0 and -target != o.id):
			o.inbox.append([id, b])
	return OK

func _get_available_packet_count() -> int:
	return inbox.size()

func _get_packet_peer() -> int:
	return inbox[0][0]

func _get_packet_script() -> PackedByteArray:
	return inbox.pop_front()[1]

func _get_packet_channel() -> int:
	return 0

func _get_packet_mode() -> MultiplayerPeer.TransferMode:
	return MultiplayerPeer.TRANSFER_MODE_RELIABLE

func _set_transfer_channel(_c: int) -> void:
	pass

func _get_transfer_channel() -> int:
	return 0

func _set_transfer_mode(_m: MultiplayerPeer.TransferMode) -> void:
	pass

func _get_transfer_mode() -> MultiplayerPeer.TransferMode:
	return MultiplayerPeer.TRANSFER_MODE_RELIABLE

func _get_max_packet_size() -> int:
	return 65535

func _close() -> void:
	pass

func _disconnect_peer(_p: int, _force: bool) -> void:
	pass
