extends Node

var dir := Vector2()
