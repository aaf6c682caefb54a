extends Node
# /root/Main of the recorded sessions: one function and one property per Godot 3 rpc mode, a
# function that takes any value, and the session's script (who calls what when). Every call,
# set and RAW packet that runs here is printed as a "LOG" line, so the recording says what the
# engine accepted.

remote var v_remote = 0 setget set_v_remote
master var v_master = 0 setget set_v_master
puppet var v_puppet = 0 setget set_v_puppet
remotesync var v_remotesync = 0 setget set_v_remotesync
mastersync var v_mastersync = 0 setget set_v_mastersync
puppetsync var v_puppetsync = 0 setget set_v_puppetsync

var role = ""
var clients = []

func log_line(s):
	print("LOG ", role, " ", s)

func sender():
	return get_tree().get_rpc_sender_id()

func values():
	return [null, true, false, 42, -7, 1099511627776, 1.5, 0.1, "héllo", "",
		Vector2(1.5, -2), Rect2(1, 2, 3, 4), Vector3(1, 2, 3),
		Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)), Plane(1, 2, 3, 4),
		Quat(0, 0, 0, 1), AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)),
		Basis(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)),
		Transform(Basis(), Vector3(7, 8, 9)), Color(0.25, 0.5, 0.75, 1), NodePath("a/b:c"),
		{"k": 1, 2: [3]}, [1, "two", 3.5], PoolByteArray([1, 2, 3]), PoolIntArray([1, -2]),
		PoolRealArray([1.5]), PoolStringArray(["ab", ""]), PoolVector2Array([Vector2(1, 2)]),
		PoolVector3Array([Vector3(1, 2, 3)]), PoolColorArray([Color(1, 0, 0)]), RID(), keep]

# An Object argument travels as its instance id (ENCODE_FLAG_OBJECT_AS_ID).
var keep = Reference.new()

func show(v):
	return var2str(v).replace("\n", " ")

remote func t_value(v):
	log_line("CALL t_value from %d %s" % [sender(), show(v)])
	if role == "server":
		rpc_id(sender(), "t_value", v)

remote func t_multi(a, b, c):
	log_line("CALL t_multi from %d %s %s %s" % [sender(), show(a), show(b), show(c)])

remote func m_remote():
	log_line("CALL m_remote from %d" % sender())
master func m_master():
	log_line("CALL m_master from %d" % sender())
puppet func m_puppet():
	log_line("CALL m_puppet from %d" % sender())
remotesync func m_remotesync():
	log_line("CALL m_remotesync from %d" % sender())
mastersync func m_mastersync():
	log_line("CALL m_mastersync from %d" % sender())
puppetsync func m_puppetsync():
	log_line("CALL m_puppetsync from %d" % sender())

func set_v_remote(v):
	v_remote = v
	log_line("SET v_remote from %d %s" % [sender(), show(v)])
func set_v_master(v):
	v_master = v
	log_line("SET v_master from %d %s" % [sender(), show(v)])
func set_v_puppet(v):
	v_puppet = v
	log_line("SET v_puppet from %d %s" % [sender(), show(v)])
func set_v_remotesync(v):
	v_remotesync = v
	log_line("SET v_remotesync from %d %s" % [sender(), show(v)])
func set_v_mastersync(v):
	v_mastersync = v
	log_line("SET v_mastersync from %d %s" % [sender(), show(v)])
func set_v_puppetsync(v):
	v_puppetsync = v
	log_line("SET v_puppetsync from %d %s" % [sender(), show(v)])

const MODES = ["remote", "master", "puppet", "remotesync", "mastersync", "puppetsync"]

func _on_packet(id, data):
	log_line("RAW from %d %s" % [id, data.hex_encode()])

# The server starts the first client ("A") once a second one ("B") is there.
func _on_connected(id):
	log_line("PEER connected %d" % id)
	if role == "server":
		clients.append(id)
		if clients.size() == 2:
			rpc_id(clients[0], "start", clients[1])

func _on_disconnected(id):
	log_line("PEER disconnected %d" % id)
	if role == "server":
		clients.erase(id)
		if clients.empty():
			get_tree().quit()

remote func start(other):
	log_line("CALL start from %d %d" % [sender(), other])
	for v in values():
		rpc_id(1, "t_value", v)
	rpc_id(1, "t_multi", 42, "héllo", Vector2(1, 2))
	for m in MODES:
		rpc_id(1, "m_" + m)
	for m in MODES:
		rset_id(1, "v_" + m, 5)
	get_tree().multiplayer.send_bytes(PoolByteArray([1, 2, 3]), 1)
	rpc_unreliable_id(1, "t_value", 7)
	# Through the server to the other client, and to everyone.
	rpc_id(other, "t_value", "to the other")
	rpc("m_remote")
	rset("v_remote", 8)
	get_tree().multiplayer.send_bytes(PoolByteArray([4, 5]), other)
	get_tree().multiplayer.send_bytes(PoolByteArray([6]), 0)
	rpc_id(1, "done")

remote func done():
	log_line("CALL done from %d" % sender())
	var id = sender()
	for m in MODES:
		rpc_id(id, "m_" + m)
	for m in MODES:
		rset_id(id, "v_" + m, 6)
	get_tree().multiplayer.send_bytes(PoolByteArray([9, 8]), id)
	rpc_unreliable_id(id, "t_value", Vector2(3, 4))
	# B's CONFIRM_PATH for A's path, relayed to A, must not race A's departure.
	yield(get_tree().create_timer(0.3), "timeout")
	rpc("bye")

remote func bye():
	log_line("CALL bye from %d" % sender())
	get_tree().network_peer.close_connection()
	get_tree().quit()
