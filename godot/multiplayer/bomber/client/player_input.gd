extends Node
# The input of a player, replicated from its owner's client to the server.

var motion := Vector2()
var bombing := false
