extends Node
# Runs the multiplayer scenarios against the Go servers at BASE, each with its own
# SceneMultiplayer on its own subtree (/root/<tag>), so that path caches start afresh.

const BASE := "__BASE__"

func out(s: String) -> void:
	print("MP " + s)

func values() -> Array:
	return [__VALUES__]

func make_mp(tag: String) -> Node:
	var root := Node.new()
	root.name = tag
	get_tree().root.add_child(root)
	var main = load("res://rpc_main.gd").new()
	main.name = "Main"
	main.tag = tag
	main.out = out
	root.add_child(main)
	var own = load("res://rpc_own.gd").new()
	own.name = "Own"
	own.tag = tag
	own.out = out
	root.add_child(own)
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, root.get_path())
	mp.connected_to_server.connect(func(): out(tag + " connected_to_server"))
	mp.connection_failed.connect(func(): out(tag + " connection_failed"))
	mp.server_disconnected.connect(func(): out(tag + " server_disconnected"); main.flags["gone"] = true)
	mp.peer_connected.connect(func(id): out(tag + " peer_connected %d" % id); main.flags["peer %d" % id] = true)
	mp.peer_disconnected.connect(func(id): out(tag + " peer_disconnected %d" % id); main.flags["nopeer %d" % id] = true)
	mp.peer_authenticating.connect(func(id): out(tag + " peer_authenticating %d" % id))
	mp.peer_authentication_failed.connect(func(id): out(tag + " peer_authentication_failed %d" % id); main.flags["authfail"] = true)
	mp.peer_packet.connect(func(id, data): out(tag + " peer_packet %d %s" % [id, data.hex_encode()]); main.flags["packet"] = true)
	return main

func start(main: Node, path: String) -> void:
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client(BASE + path)
	if err != OK:
		out(main.tag + " create_client error %d" % err)
	main.multiplayer.multiplayer_peer = peer

# wait_flag waits until main.flags has key, for at most 5 s; it reports a timeout.
func wait_flag(main: Node, key: String) -> bool:
	var until := Time.get_ticks_msec() + 5000
	while not main.flags.has(key):
		if Time.get_ticks_msec() > until:
			out(main.tag + " TIMEOUT " + key)
			return false
		await get_tree().process_frame
	return true

func frames(n: int) -> void:
	for i in n:
		await get_tree().process_frame

func scenario_rpc() -> void:
	var m := make_mp("R")
	await start(m, "/rpc/1001")
	if not await wait_flag(m, "peer 1"):
		return
	m.get_parent().get_node("Own").set_multiplayer_authority(m.multiplayer.get_unique_id())
	var vs := values()
	m.v1.rpc_id(1, vs[0])
	if not await wait_flag(m, "go_on"):
		return
	for i in range(1, vs.size()):
		m.v1.rpc_id(1, vs[i])
	m.v0.rpc_id(1)
	m.v2.rpc_id(1, 1, PackedByteArray([1, 2]))
	m.v1.rpc_id(1, PackedByteArray([9, 8, 7]))
	m.v1.rpc_id(1, PackedByteArray())
	m.vmany.rpc_id(1, 0, -1, 127, 128, -129, 32768, 2147483648, true, false, 1.5, "s", [1, [2, {"k": null}]])
	m.loc.rpc(5)
	m.only_server.rpc_id(1)
	m.get_parent().get_node("Own").cfg.rpc_id(1, 3)
	m.multiplayer.send_bytes(PackedByteArray([1, 2, 3]))
	m.multiplayer.send_bytes(PackedByteArray([4, 5]), 1)
	m.done.rpc_id(1)
	if not await wait_flag(m, "finish"):
		return
	await wait_flag(m, "packet")

func scenario_relay() -> void:
	var a := make_mp("A")
	var b := make_mp("B")
	await start(a, "/relay/2001")
	if not await wait_flag(a, "peer 1"):
		return
	await start(b, "/relay/2002")
	if not await wait_flag(b, "peer 1"):
		return
	if not await wait_flag(a, "peer 2002"):
		return
	a.relay_me.rpc_id(2002, "first")
	if not await wait_flag(b, "relay_me first"):
		return
	if not await wait_flag(a, "relay_me ack"):
		return
	a.relay_me.rpc_id(2002, "second")
	if not await wait_flag(b, "relay_me second"):
		return
	b.multiplayer.multiplayer_peer.close()
	await wait_flag(a, "nopeer 2002")

func scenario_disconnect() -> void:
	var m := make_mp("D")
	await start(m, "/disconnect/3001")
	await wait_flag(m, "gone")

func scenario_auth(tag: String, path: String, answer: String, complete: bool) -> void:
	var m := make_mp(tag)
	var mp: SceneMultiplayer = m.multiplayer
	mp.auth_timeout = 1.0
	mp.auth_callback = func(id: int, data: PackedByteArray):
		out(tag + " auth_data %d %s" % [id, data.get_string_from_utf8()])
		if answer != "":
			mp.send_auth(id, answer.to_utf8_buffer())
		if complete:
			mp.complete_auth(id)
	await start(m, path)
	var until := Time.get_ticks_msec() + 5000
	while not m.flags.has("peer 1") and not m.flags.has("gone") and not m.flags.has("authfail"):
		if Time.get_ticks_msec() > until:
			out(tag + " TIMEOUT auth")
			return
		await get_tree().process_frame
	if m.flags.has("peer 1"):
		m.v0.rpc_id(1)
		await frames(5)
	else:
		await frames(10)

# scenario_vars: a plain WebSocketPeer exchanges put_var/get_var Variants with a Go VarServer.
func scenario_vars() -> void:
	var ws := WebSocketPeer.new()
	ws.connect_to_url(BASE + "/vars/")
	var until := Time.get_ticks_msec() + 5000
	while ws.get_ready_state() != WebSocketPeer.STATE_OPEN:
		ws.poll()
		if ws.get_ready_state() == WebSocketPeer.STATE_CLOSED or Time.get_ticks_msec() > until:
			out("V connect failed")
			return
		await get_tree().process_frame
	var vs := values()
	vs.append(PackedByteArray([1, 2, 3]))
	for v in vs:
		ws.put_var(v)
	var got := 0
	while got < vs.size():
		ws.poll()
		while ws.get_available_packet_count() > 0:
			var x = ws.get_var()
			out("V got %d %d %s" % [got, typeof(x), var_to_bytes(x).hex_encode()])
			got += 1
		if Time.get_ticks_msec() > until:
			out("V TIMEOUT")
			return
		await get_tree().process_frame
	ws.close()
	out("V done")

# scenario_sync: a MultiplayerSynchronizer whose authority is the client replicates two
# properties of Main to the server: SYNC for score (ALWAYS), delta SYNC for label (ON_CHANGE).
func scenario_sync() -> void:
	var m := make_mp("S")
	await start(m, "/sync/5001")
	if not await wait_flag(m, "peer 1"):
		return
	var cfg := SceneReplicationConfig.new()
	cfg.add_property(NodePath(".:score"))
	cfg.property_set_replication_mode(NodePath(".:score"), SceneReplicationConfig.REPLICATION_MODE_ALWAYS)
	cfg.add_property(NodePath(".:label"))
	cfg.property_set_replication_mode(NodePath(".:label"), SceneReplicationConfig.REPLICATION_MODE_ON_CHANGE)
	var sync := MultiplayerSynchronizer.new()
	sync.name = "Sync"
	sync.replication_config = cfg
	sync.set_multiplayer_authority(m.multiplayer.get_unique_id())
	m.add_child(sync)
	await frames(10)
	m.score = 42
	m.label = "changed"
	await frames(10)
	# A MultiplayerSpawner whose authority is the client: adding a Thing under Main sends
	# SPAWN, freeing it DESPAWN.
	var spawner := MultiplayerSpawner.new()
	spawner.name = "Spawner"
	spawner.spawn_path = NodePath("..")
	spawner.add_spawnable_scene("res://thing.tscn")
	spawner.set_multiplayer_authority(m.multiplayer.get_unique_id())
	m.add_child(spawner)
	await frames(5)
	var thing = load("res://thing.tscn").instantiate()
	m.add_child(thing, true)
	await frames(10)
	thing.queue_free()
	await frames(10)
	out("S sync done")

func main() -> void:
	await get_tree().process_frame  # the root is busy adding the runner until then
	await scenario_rpc()
	await scenario_relay()
	await scenario_disconnect()
	await scenario_auth("AO", "/auth/4001", "secret", true)
	await scenario_auth("AB", "/auth/4002", "wrong", true)
	await scenario_auth("AT", "/auth/4003", "", false)
	await scenario_auth("AC", "/authnever/4004", "secret", true)
	await scenario_vars()
	await scenario_sync()
	out("END")
