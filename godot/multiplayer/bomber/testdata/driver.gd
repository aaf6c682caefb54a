extends Node
# Runs two bomber clients (the unmodified client project) in one engine, each with its own
# SceneMultiplayer on its own subtree (/root/C1, /root/C2), against the Go server at URL.

const URL := "__URL__"

func out(s: String) -> void:
	print("BOMBER " + s)

func client(tag: String) -> Node:
	var root := Node.new()
	root.name = tag
	get_tree().root.add_child(root)
	var world = load("res://world.tscn").instantiate()
	root.add_child(world)
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, root.get_path())
	world.get_node("PlayerSpawner").spawned.connect(func(n):
		out("%s spawned player %s pos=%s hp=%d label=%s" % [tag, n.name, n.position, n.hp, n.label]))
	world.get_node("PlayerSpawner").despawned.connect(func(n): out("%s despawned player %s" % [tag, n.name]))
	world.get_node("HintSpawner").spawned.connect(func(n): out("%s spawned hint %s %s" % [tag, n.name, n.editor_description]))
	world.get_node("Level/Zone/Area/BombSpawner").spawned.connect(func(n):
		out("%s spawned bomb %s pos=%s from=%d" % [tag, n.name, n.position, n.from_player]))
	world.said.connect(func(t): out("%s said %s" % [tag, t]))
	world.get_node("FxSpawner").spawned.connect(func(n):
		out("%s spawned fx %s pos=%s kind=%s" % [tag, n.name, n.position, n.get_meta("kind")]))
	var peer := WebSocketMultiplayerPeer.new()
	var err := peer.create_client(URL)
	if err != OK:
		out("%s create_client error %d" % [tag, err])
	mp.multiplayer_peer = peer
	return world

# until waits for cond for at most 5 s; it reports a timeout.
func until(cond: Callable, what: String) -> bool:
	var deadline := Time.get_ticks_msec() + 5000
	while not cond.call():
		if Time.get_ticks_msec() > deadline:
			out("TIMEOUT " + what)
			return false
		await get_tree().process_frame
	return true

func names(n: Node) -> String:
	var s: Array[String] = []
	for c in n.get_children():
		s.append(str(c.name))
	s.sort()
	return ",".join(s)

func main() -> void:
	await get_tree().process_frame
	var w1 := client("C1")
	if not await until(func(): return w1.get_node("Players").get_child_count() == 1, "C1 player"):
		return
	var id1 := w1.multiplayer.get_unique_id()
	var p1 = w1.get_node("Players/%d" % id1)
	out("C1 own player %s" % p1.name)
	w1.hello.rpc_id(1, "c1")
	var x0: float = p1.position.x
	p1.get_node("Input").motion = Vector2(1, 0)
	if not await until(func(): return p1.position.x >= x0 + 3 * 10, "C1 moves"):
		return
	p1.get_node("Input").motion = Vector2()
	out("C1 moved right")
	await get_tree().create_timer(0.2).timeout
	var x1: float = p1.position.x

	# A late joiner sees the existing player where it is now, and its own.
	var w2 := client("C2")
	if not await until(func(): return w2.get_node("Players").get_child_count() == 2, "C2 players"):
		return
	var id2 := w2.multiplayer.get_unique_id()
	out("C2 players %s" % names(w2.get_node("Players")))
	out("C2 sees C1 at its place %s" % str(is_equal_approx(w2.get_node("Players/%d" % id1).position.x, x1)))
	if not await until(func(): return w1.get_node("Players").get_child_count() == 2, "C1 players"):
		return
	out("C1 players %s" % names(w1.get_node("Players")))
	# Each sees only its own hint.
	if not await until(func(): return w2.get_node("Hints").get_child_count() == 1, "C2 hint"):
		return
	await get_tree().create_timer(0.2).timeout
	out("C1 hints %s" % names(w1.get_node("Hints")))
	out("C2 hints %s" % names(w2.get_node("Hints")))

	# Bombing: a bomb in the deep tree on both clients, and hp by delta SYNC.
	p1.get_node("Input").bombing = true
	var bombs1 = w1.get_node("Level/Zone/Area/Bombs")
	var bombs2 = w2.get_node("Level/Zone/Area/Bombs")
	if not await until(func(): return bombs1.get_child_count() == 1 and bombs2.get_child_count() == 1, "bombs"):
		return
	var p1on2 = w2.get_node("Players/%d" % id1)
	if not await until(func(): return p1on2.hp == 90 and p1.hp == 90, "hp"):
		return
	out("hp on both 90")
	if not await until(func(): return p1.last_exploded_by == id1 and p1on2.last_exploded_by == id1, "exploded"):
		return
	out("exploded on both by %d" % id1)
	var sb1 = w1.get_node("Scoreboard")
	var sb2 = w2.get_node("Scoreboard")
	if not await until(func(): return sb1.bombs == 1 and sb2.bombs == 1 and sb2.last_bomber == id1, "scoreboard"):
		return
	out("scoreboard bombs=1 last_bomber=%d on both" % sb2.last_bomber)
	if not await until(func(): return w2.get_node("Fx").get_child_count() == 1, "fx"):
		return

	# C2 leaves: its player and hint are despawned on C1.
	w2.multiplayer.multiplayer_peer.close()
	if not await until(func(): return w1.get_node("Players").get_child_count() == 1, "despawn"):
		return
	out("C1 players after C2 left %s" % names(w1.get_node("Players")))
	out("ids %d %d" % [id1, id2])
	await record()
	out("END")

# record runs the same spawns and changes on a real Godot server (a SceneMultiplayer of id 1 on
# /root/S, connected in process to clients of ids 1001 on /root/K and, later, 1002 on /root/K2)
# and prints every packet the server sent: "REC <peer> <hex>".
func record() -> void:
	var s_root := Node.new()
	s_root.name = "S"
	get_tree().root.add_child(s_root)
	var sw = load("res://world.tscn").instantiate()
	s_root.add_child(sw)
	# The recording compares spawns and spawned synchronizers: no scoreboard.
	sw.get_node("Scoreboard").free()
	var smp := SceneMultiplayer.new()
	get_tree().set_multiplayer(smp, s_root.get_path())
	var sp = load("res://loop_peer.gd").new()
	sp.id = 1
	var players := {}
	var count := [0]
	smp.peer_connected.connect(func(id):
		count[0] += 1
		var pl = load("res://player.tscn").instantiate()
		pl.name = str(id)
		pl.position = Vector2(100 * count[0], 100)
		pl.hp = 100
		pl.label = "player %d" % id
		sw.get_node("Players").add_child(pl, true)
		players[id] = pl
		var h = load("res://hint.tscn").instantiate()
		h.name = "Hint%d" % id
		h.editor_description = "only for %d" % id
		h.get_node("HintSync").add_visibility_filter(func(p): return p == id)
		sw.get_node("Hints").add_child(h, true)
	)
	smp.multiplayer_peer = sp
	var kw = loop_client("K", 1001, sp)
	if not await until(func(): return players.has(1001), "record spawn"):
		return
	await get_tree().process_frame
	await get_tree().process_frame
	players[1001].hp = 90
	players[1001].position = Vector2(110, 100)
	sw.get_node("FxSpawner").spawn(["boom", Vector2(110, 100), 1])
	await get_tree().process_frame
	await get_tree().process_frame
	await get_tree().process_frame
	# A late joiner.
	var k2w = loop_client("K2", 1002, sp)
	if not await until(func(): return players.has(1002), "record late joiner"):
		return
	await get_tree().process_frame
	await get_tree().process_frame
	await get_tree().process_frame
	# The client of 1001 stops sending its input first, so that none arrives for a freed node.
	kw.get_node("Players/1001/Input/InputSync").public_visibility = false
	await get_tree().process_frame
	await get_tree().process_frame
	players[1001].queue_free()
	await get_tree().process_frame
	await get_tree().process_frame
	out("client sees %s, late joiner sees %s and hints %s" % [names(kw.get_node("Players")), names(k2w.get_node("Players")),
		names(k2w.get_node("Hints"))])
	for e in sp.sent:
		out("REC %d %s" % [e[0], e[1].hex_encode()])

# loop_client adds a client world on /root/<tag> with its own SceneMultiplayer, connected to
# the server end sp with id.
func loop_client(tag: String, id: int, sp) -> Node:
	var root := Node.new()
	root.name = tag
	get_tree().root.add_child(root)
	var w = load("res://world.tscn").instantiate()
	root.add_child(w)
	w.get_node("Scoreboard").free()
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, root.get_path())
	var kp = load("res://loop_peer.gd").new()
	kp.id = id
	kp.others = [sp]
	sp.others.append(kp)
	mp.multiplayer_peer = kp
	return w
