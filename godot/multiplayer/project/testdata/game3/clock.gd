extends Node

var ticks := 0
