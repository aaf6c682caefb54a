extends Node

var angle := 0.0
