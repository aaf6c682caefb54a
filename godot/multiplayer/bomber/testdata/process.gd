extends Node
# One bomber client per engine process (role A or B), against the Go server at URL. A moves,
# waits for B to join, bombs, and waits for B to leave; B joins late, watches, and leaves.

const URL := "__URL__"
const ROLE := "__ROLE__"

func out(s: String) -> void:
	print("BOMBER " + ROLE + " " + s)

func until(cond: Callable, what: String, secs: int) -> bool:
	var deadline := Time.get_ticks_msec() + secs * 1000
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
	var w = load("res://world.tscn").instantiate()
	get_tree().root.add_child(w)
	var peer := WebSocketMultiplayerPeer.new()
	peer.create_client(URL)
	multiplayer.multiplayer_peer = peer
	var players = w.get_node("Players")
	var bombs = w.get_node("Level/Zone/Area/Bombs")
	if ROLE == "A":
		if not await until(func(): return players.get_child_count() == 1, "own player", 10):
			return
		var me = players.get_child(0)
		me.get_node("Input").motion = Vector2(1, 0)
		if not await until(func(): return players.get_child_count() == 2, "B", 60):
			return
		me.get_node("Input").motion = Vector2()
		out("sees players %s" % names(players))
		me.get_node("Input").bombing = true
		if not await until(func(): return bombs.get_child_count() == 1, "bomb", 10):
			return
		out("sees bombs %s" % names(bombs))
		if not await until(func(): return players.get_child_count() == 1, "B leaves", 30):
			return
		out("after B left %s" % names(players))
	else:
		if not await until(func(): return players.get_child_count() == 2, "players", 10):
			return
		var other = players.get_child(0) if str(players.get_child(0).name) != str(multiplayer.get_unique_id()) else players.get_child(1)
		out("sees players %s, the other moved %s" % [names(players), str(other.position.x > 100)])
		if not await until(func(): return w.get_node("Hints").get_child_count() >= 1, "hint", 10):
			return
		out("sees hints %s" % names(w.get_node("Hints")))
		if not await until(func(): return bombs.get_child_count() == 1, "bomb", 30):
			return
		out("sees bombs %s" % names(bombs))
		multiplayer.multiplayer_peer.close()
		await get_tree().process_frame
	out("END")
