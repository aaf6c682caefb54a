extends Node
# Runs two clients of test game 3 (its unmodified scenes and scripts) in one engine, each with
# its own SceneMultiplayer on its own subtree (/root/C1, /root/C2), against the Go server that
# loaded the game at URL.

const URL := "__URL__"

func out(s: String) -> void:
	print("G3 " + s)

func client(tag: String) -> Node:
	var root := Node.new()
	root.name = tag
	get_tree().root.add_child(root)
	var main = load("res://game.tscn").instantiate()
	root.add_child(main)
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, root.get_path())
	main.get_node("PlayerSpawner").spawned.connect(func(n):
		out("%s player %s hp=%d player=%d" % [tag, n.name, n.hp, n.player])
		n.get_node("ItemSpawner").spawned.connect(func(i):
			out("%s item %s/%s kind=%d" % [tag, n.name, i.name, i.kind])))
	main.get_node("PlayerSpawner").despawned.connect(func(n): out("%s player %s despawned" % [tag, n.name]))
	main.get_node("BadgeSpawner").spawned.connect(func(n): out("%s badge %s %s" % [tag, n.name, n.text]))
	main.get_node("DropSpawner").spawned.connect(func(n):
		out("%s drop %s amount=%d pos=%s" % [tag, n.name, n.amount, n.position]))
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client(URL)
	if err != OK:
		out("%s create_client error %d" % [tag, err])
	mp.multiplayer_peer = peer
	return main

# until waits for cond for at most 5 s; it reports a timeout.
func until(cond: Callable, what: String) -> bool:
	var deadline := Time.get_ticks_msec() + 5000
	while not cond.call():
		if Time.get_ticks_msec() > deadline:
			out("TIMEOUT " + what)
			return false
		await get_tree().process_frame
	return true

func count(n: Node, path: String) -> int:
	var c := 0
	for p in n.get_node("Players").get_children():
		c += p.get_node(path).get_child_count()
	return c

func main() -> void:
	await get_tree().process_frame
	var m1 := client("C1")
	if not await until(func(): return m1.get_node("Players").get_child_count() == 1 and count(m1, "Items") == 1 \
			and m1.get_node("Badges").get_child_count() == 1 and m1.get_node("Drops").get_child_count() == 1 \
			and m1.get_node("Clock").ticks == 42, "C1 spawns"):
		return
	var id1 := m1.multiplayer.get_unique_id()
	out("C1 clock %d" % m1.get_node("Clock").ticks)
	m1.get_node("Players/%d/Input" % id1).dir = Vector2(1, 0)
	m1.get_node("Players/%d/Aim" % id1).angle = 0.5

	# A late joiner: both players, each with its item, its own badge only, both drops.
	var m2 := client("C2")
	if not await until(func(): return m2.get_node("Players").get_child_count() == 2 and count(m2, "Items") == 2 \
			and m2.get_node("Drops").get_child_count() == 2 and m2.get_node("Clock").ticks == 42 \
			and m1.get_node("Players").get_child_count() == 2, "C2 spawns"):
		return
	var id2 := m2.multiplayer.get_unique_id()
	await get_tree().create_timer(0.2).timeout
	out("C1 badges %d, C2 badges %d" % [m1.get_node("Badges").get_child_count(), m2.get_node("Badges").get_child_count()])
	out("C2 own badge %s" % str(m2.get_node_or_null("Badges/%d" % id2) != null))

	# The server despawns C1's player: its item goes with it, on both clients. C1 stops sending
	# its input first, so that none relayed to C2 arrives for a freed node.
	m1.get_node("Players/%d/Input/InputSync" % id1).public_visibility = false
	m1.get_node("Players/%d/Aim/AimSync" % id1).public_visibility = false
	for i in 3:
		await get_tree().process_frame
	m1.ready_to_play.rpc_id(1, "despawn")
	if not await until(func(): return m1.get_node("Players").get_child_count() == 1 and m2.get_node("Players").get_child_count() == 1, "despawn"):
		return
	await get_tree().create_timer(0.2).timeout
	out("after despawn C1 items %d, C2 items %d" % [count(m1, "Items"), count(m2, "Items")])
	out("ids %d %d" % [id1, id2])
	await record()
	out("END")

# record runs the same spawns on a real Godot 4.6 server (a SceneMultiplayer of id 1 on /root/S
# running the game's own scenes and scripts, connected in process to clients of ids 1001 and,
# later, 1002) and prints every packet the server sent: "REC <peer> <hex>".
func record() -> void:
	var s_root := Node.new()
	s_root.name = "S"
	get_tree().root.add_child(s_root)
	var sg = load("res://game.tscn").instantiate()
	s_root.add_child(sg)
	# The recording compares spawns and spawned synchronizers: no clock.
	sg.get_node("Clock").free()
	var smp := SceneMultiplayer.new()
	get_tree().set_multiplayer(smp, s_root.get_path())
	var sp = load("res://loop_peer.gd").new()
	sp.id = 1
	var players := {}
	var beacons := {}
	smp.peer_connected.connect(func(id):
		var pl = load("res://player.tscn").instantiate()
		pl.name = str(id)
		pl.hp = 50
		pl.player = id
		sg.get_node("Players").add_child(pl, true)
		players[id] = pl
		var item = load("res://item.tscn").instantiate()
		item.name = "Sword"
		item.kind = 3
		pl.get_node("Items").add_child(item, true)
		var b = load("res://badge.tscn").instantiate()
		b.name = str(id)
		b.text = "badge of %d" % id
		sg.get_node("Badges").add_child(b, true)
		sg.get_node("DropSpawner").spawn(["Drop%d" % id, Vector2(5, 6)])
		var bc = load("res://beacon.tscn").instantiate()
		bc.name = "Beacon%d" % id
		bc.label = "beacon of %d" % id
		bc.shown_to = id
		sg.get_node("Beacons").add_child(bc, true)
		beacons[id] = bc
	)
	smp.multiplayer_peer = sp
	var k1 = loop_client("K", 1001, sp)
	if not await until(func(): return players.has(1001), "record spawn"):
		return
	for i in 3:
		await get_tree().process_frame
	var k2 = loop_client("K2", 1002, sp)
	if not await until(func(): return players.has(1002), "record late joiner"):
		return
	for i in 3:
		await get_tree().process_frame
	# The beacon of 1001 is shown to 1002 instead: its filter, run every frame, moves it.
	beacons[1001].shown_to = 1002
	for i in 3:
		await get_tree().process_frame
	# The owner stops sending its input first, so that none arrives for a freed node.
	k1.get_node("Players/1001/Input/InputSync").public_visibility = false
	k1.get_node("Players/1001/Aim/AimSync").public_visibility = false
	await get_tree().process_frame
	await get_tree().process_frame
	players[1001].queue_free()
	await get_tree().process_frame
	await get_tree().process_frame
	out("recorded: K players %d items %d badges %d drops %d beacons %d, K2 players %d items %d badges %d drops %d beacons %d" % [
		k1.get_node("Players").get_child_count(), count(k1, "Items"), k1.get_node("Badges").get_child_count(), k1.get_node("Drops").get_child_count(),
		k1.get_node("Beacons").get_child_count(),
		k2.get_node("Players").get_child_count(), count(k2, "Items"), k2.get_node("Badges").get_child_count(), k2.get_node("Drops").get_child_count(),
		k2.get_node("Beacons").get_child_count()])
	for e in sp.sent:
		out("REC %d %s" % [e[0], e[1].hex_encode()])

# loop_client adds a client game on /root/<tag> with its own SceneMultiplayer, connected to the
# server end sp with id.
func loop_client(tag: String, id: int, sp) -> Node:
	var root := Node.new()
	root.name = tag
	get_tree().root.add_child(root)
	var g = load("res://game.tscn").instantiate()
	root.add_child(g)
	g.get_node("Clock").free()
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, root.get_path())
	var kp = load("res://loop_peer.gd").new()
	kp.id = id
	kp.others = [sp]
	sp.others.append(kp)
	mp.multiplayer_peer = kp
	return g
