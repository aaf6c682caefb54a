extends Node
# The score, replicated by the server to every client (a synchronizer outside spawned scenes).

var bombs := 0
var last_bomber := 0
