extends Node

var kind := 0
