extends Node2D

var from_player := 0
