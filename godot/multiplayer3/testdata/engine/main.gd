extends SceneTree
# Runs /root/Main as the server (ROLE "server", on PORT) or a client (connecting to PORT).

const ROLE = "@ROLE@"
const PORT = @PORT@
const COMPRESSION = @COMPRESSION@

func _init():
	var peer = NetworkedMultiplayerENet.new()
	peer.compression_mode = COMPRESSION
	var err
	if ROLE == "server":
		err = peer.create_server(PORT, 8)
	else:
		err = peer.create_client("127.0.0.1", PORT)
	if err != OK:
		printerr("cannot create the peer: ", err)
		quit()
		return
	var n = Node.new()
	n.set_script(load("res://node.gd"))
	n.name = "Main"
	n.role = ROLE
	get_root().add_child(n)
	network_peer = peer
	multiplayer.connect("network_peer_packet", n, "_on_packet")
	connect("network_peer_connected", n, "_on_connected")
	connect("network_peer_disconnected", n, "_on_disconnected")
	connect("server_disconnected", self, "_gone")
	print("ID ", ROLE, " ", peer.get_unique_id())
	var t = Timer.new()
	t.wait_time = 15
	t.one_shot = true
	t.connect("timeout", self, "_timeout")
	get_root().add_child(t)
	t.start()

func _gone():
	print("LOG ", ROLE, " server gone")
	quit()

func _timeout():
	printerr("timed out")
	quit()
